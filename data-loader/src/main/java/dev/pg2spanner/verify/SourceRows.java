package dev.pg2spanner.verify;

import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.plan.TablePlan;
import java.util.List;

/**
 * The source side of verify: streams every source row of one table as the values the loader writes to Spanner.
 * The integrator adapts the loader's row converter to it (the mutation's values for {@link
 * Verifier#loadedColumns(TablePlan)}, in that order), so source and target go through the same {@link Canonical}
 * function.
 *
 * <p>Contract: {@code forEach} may be called twice for a table (a second pass when its checksum differs, to name
 * the differing keys) and should yield the same rows both times, e.g. by reading one exported snapshot. It is
 * called from up to {@code threads} threads at once, for different tables. Every source row reaches the sink once
 * per pass, in one of three ways: compared ({@link Sink#row}), left out because the run's dead-letter file accounts
 * for it ({@link Sink#leftOut}), or not convertible and accounted for by nobody ({@link Sink#unconverted}) — a row
 * verify never silently skips.
 */
public interface SourceRows {

  /** Receives one table's source rows. */
  interface Sink {

    /**
     * A row to compare.
     *
     * @param key the row's key text ({@link dev.pg2spanner.load.row.RowKey#forVerify}); null means "compute it from the
     *     values"
     * @param values the values of the loaded columns in plan order (never null elements: a SQL NULL is a null
     *     {@code Value})
     */
    void row(String key, List<Value> values);

    /** A row the run's dead-letter file lists (rejected by the converter or by Spanner): not compared, counted. */
    void leftOut(String key);

    /**
     * A row the converter refuses that no dead-letter file lists: it cannot be in the target, so the table does not
     * match.
     *
     * @param key the row's key text, or its location when the key itself could not be converted
     * @param reason why the converter refused it (column and cause)
     */
    void unconverted(String key, String reason);

    /** A sink for a source whose every row converts and none is left out: other calls are a bug. */
    static Sink rows(java.util.function.BiConsumer<String, List<Value>> rows) {
      return new Sink() {
        @Override
        public void row(String key, List<Value> values) {
          rows.accept(key, values);
        }

        @Override
        public void leftOut(String key) {
          throw new IllegalStateException("this source leaves no row out, yet left out " + key);
        }

        @Override
        public void unconverted(String key, String reason) {
          throw new IllegalStateException("this source converts every row, yet refused " + key + ": " + reason);
        }
      };
    }
  }

  /**
   * Passes every source row of {@code table} to {@code sink}.
   *
   * @param table the plan table to read; not null
   * @throws Exception when the source cannot be read; verify stops and rethrows it
   */
  void forEach(TablePlan table, Sink sink) throws Exception;
}
