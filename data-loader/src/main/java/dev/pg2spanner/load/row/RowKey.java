package dev.pg2spanner.load.row;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A row's identity in one planned table: which target columns name the row, and the one text form that names it.
 * Every part of the tool that names a row goes through this class — the loader's dead-letter entries, the Beam
 * pipeline's failed writes, verify (to match source and target rows, and to leave dead-lettered rows out) and the
 * live applier — so a row is named the same way everywhere.
 *
 * <p>The text is {@link Canonical#keyText}: each value in its self-delimiting canonical form, joined with
 * {@code ", "}, so the one-column key {@code 'a, b'} and the two-column key {@code 'a', 'b'} cannot print alike.
 * A row whose identifying values cannot be converted is named by its location instead ({@link #location}).
 *
 * <p>Immutable and thread-safe.
 */
public final class RowKey {

  /** Where a table's row identity comes from. */
  public enum Kind {
    /** The Spanner primary-key columns that hold source values (a hash-shard column, computed by Spanner, is not one). */
    PRIMARY_KEY,
    /**
     * No primary-key column holds source values (the {@code uuid} strategy's new random key): the column that
     * keeps the old key, which is unique.
     */
    KEPT_KEY,
    /** A table without a source key: the added key column the loader derives from the row's location. */
    SYNTHETIC,
    /** Nothing identifies a row but its content: every loaded column. */
    WHOLE_ROW
  }

  private final String table;
  private final Kind kind;
  private final List<String> columns;

  private RowKey(String table, Kind kind, List<String> columns) {
    this.table = table;
    this.kind = kind;
    this.columns = List.copyOf(columns);
  }

  /**
   * The identity of a table's rows as the loader writes them.
   *
   * @param table not null
   */
  public static RowKey of(TablePlan table) {
    Objects.requireNonNull(table, "table");
    List<String> loaded = table.columns().stream().filter(ColumnPlan::isLoaded).map(ColumnPlan::target).toList();
    List<String> key = table.primaryKey().stream().map(KeyPart::column).filter(loaded::contains).toList();
    if (!key.isEmpty()) {
      return new RowKey(table.target(), Kind.PRIMARY_KEY, key);
    }
    String synthetic = syntheticKeyColumn(table);
    if (synthetic != null) {
      return new RowKey(table.target(), Kind.SYNTHETIC, List.of(synthetic));
    }
    String kept = table.keyStrategy().keptKeyColumn();
    if (kept != null && loaded.contains(kept)) {
      return new RowKey(table.target(), Kind.KEPT_KEY, List.of(kept));
    }
    return new RowKey(table.target(), Kind.WHOLE_ROW, loaded);
  }

  /**
   * The identity verify matches source and target rows by. The same as {@link #of} except for a synthetic key:
   * its values come from where a row lies in the source (its {@code ctid}), which is not source data and moves
   * when PostgreSQL rewrites the table, so verify identifies such rows by their whole content (a changed row then
   * shows as one row missing in the target and one extra).
   */
  public static RowKey forVerify(TablePlan table) {
    RowKey key = of(table);
    if (key.kind != Kind.SYNTHETIC) {
      return key;
    }
    String kept = table.keyStrategy().keptKeyColumn();
    List<String> loaded = table.columns().stream().filter(ColumnPlan::isLoaded).map(ColumnPlan::target).toList();
    if (kept != null && loaded.contains(kept)) {
      return new RowKey(table.target(), Kind.KEPT_KEY, List.of(kept));
    }
    return new RowKey(table.target(), Kind.WHOLE_ROW, loaded);
  }

  /**
   * The added key column the loader writes for a table without a source key: a SYNTHETIC key column without a
   * generated expression; null when there is none.
   */
  public static String syntheticKeyColumn(TablePlan table) {
    List<String> keyTargets = table.primaryKey().stream().map(KeyPart::column).toList();
    for (ColumnPlan column : table.columns()) {
      if (column.source() == null && column.conversion() == ValueConversion.SYNTHETIC
          && column.generatedExpression() == null && keyTargets.contains(column.target())) {
        return column.target();
      }
    }
    return null;
  }

  public String table() {
    return table;
  }

  public Kind kind() {
    return kind;
  }

  /** The identifying target columns, in key order. */
  public List<String> columns() {
    return columns;
  }

  /**
   * The text that names a row.
   *
   * @param values the values of {@link #columns()}, in that order; not null, no null elements (a SQL NULL is a
   *     {@code Value} whose {@code isNull()} is true)
   */
  public String text(List<Value> values) {
    if (values.size() != columns.size()) {
      throw new IllegalArgumentException("the key of " + table + " has " + columns.size() + " columns " + columns
          + ", not " + values.size());
    }
    return Canonical.keyText(values);
  }

  /** Like {@link #text(List)}, from an array (the loader's per-row form). */
  public String text(Value[] values) {
    return text(java.util.Arrays.asList(values));
  }

  /**
   * The text that names the row a mutation writes, or null when the mutation lacks an identifying column.
   *
   * @param mutation a write of this table; not null
   */
  public String text(Mutation mutation) {
    Map<String, Value> values = mutation.asMap();
    List<Value> key = new ArrayList<>(columns.size());
    for (String column : columns) {
      Value v = values.get(column);
      if (v == null) {
        return null;
      }
      key.add(v);
    }
    return text(key);
  }

  /** The name of a row whose identifying values cannot be converted (the key may be the problem). */
  public static String location(String ctid) {
    return "ctid " + ctid;
  }

  @Override
  public String toString() {
    return table + " " + kind + " " + columns;
  }
}
