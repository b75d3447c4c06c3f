package dev.pg2spanner.verify;

import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.TablePlan;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The source side of verify: streams every source row of one table as the values the loader writes to Spanner.
 * The integrator adapts the loader's row converter to it (the mutation's values for {@link
 * Verifier#loadedColumns(TablePlan)}, in that order), so source and target go through the same {@link Canonical}
 * function.
 *
 * <p>Contract: {@code forEach} may be called twice for a table (a second pass when its checksum differs, to name
 * the differing keys) and should yield the same rows both times, e.g. by reading one exported snapshot. It is
 * called from up to {@code threads} threads at once, for different tables. Rows the converter rejects are not
 * passed (they are missing in the target too, and the dead-letter file names them).
 */
public interface SourceRows {

  /**
   * Calls {@code row} once per source row of {@code table}.
   *
   * @param table the plan table to read; not null
   * @param row receives the row's key text ({@link dev.pg2spanner.load.RowKey#forVerify}; null means "compute it
   *     from the values") and the values of the loaded columns in plan order (never null elements: a SQL NULL
   *     is a null {@code Value})
   * @throws Exception when the source cannot be read; verify stops and rethrows it
   */
  void forEach(TablePlan table, BiConsumer<String, List<Value>> row) throws Exception;
}
