package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.hotspot.Monotonicity;
import dev.pg2spanner.hotspot.WriteRate;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyStrategy;
import java.util.List;
import java.util.Objects;

/**
 * What the key policy knows about one top-level table's key when it decides.
 *
 * @param table the source table, "schema.name"
 * @param key the key's columns in the plan, in key order
 * @param lead the key's first column in the plan
 * @param leadSource the PostgreSQL column {@code lead} comes from
 * @param requested the strategy asked for with {@code plan --key-strategy}, or null
 * @param monotonicity why the leading column grows monotonically (or, with {@code fewLeading}, the first key column
 *     after the few-valued leading ones), or null when nothing shows it does
 * @param writeRate the table's insert rate from its activity statistics
 * @param swapColumn another key column that is well distributed in the sample (it could lead), or null
 * @param fullestKey the table of the hierarchy whose key has no room for a shard column, or null
 * @param fullestTable the table of the hierarchy that already has Spanner's maximum number of columns, so no shard
 *     column can be added to it, or null
 * @param lowWriteInsertsPerSecond below this, over a trusted window, a hotspot is accepted ({@code 0}: never)
 * @param nodes the expected Spanner nodes (a swap column needs as many distinct values as their key ranges)
 * @param fewLeading the leading key columns when they take few values and {@code monotonicity} is of the key column
 *     after them; null when the monotonic column (if any) leads the key
 */
record KeyEvidence(String table, List<String> key, ColumnPlan lead, PgColumn leadSource,
    KeyStrategy.Kind requested, Monotonicity monotonicity, WriteRate writeRate, String swapColumn, String fullestKey,
    double lowWriteInsertsPerSecond, int nodes, String fullestTable, FewLeadingValues fewLeading) {

  KeyEvidence {
    Objects.requireNonNull(table, "table");
    key = List.copyOf(key);
    Objects.requireNonNull(lead, "lead");
    Objects.requireNonNull(leadSource, "leadSource");
    Objects.requireNonNull(writeRate, "writeRate");
    if (fewLeading != null && (monotonicity == null || swapColumn != null)) {
      throw new IllegalArgumentException("few leading values go with the monotonic column after them, and no swap");
    }
  }

  /**
   * Evidence about a key whose monotonic column, if any, leads it, in a hierarchy where every table has room for
   * another column.
   */
  KeyEvidence(String table, List<String> key, ColumnPlan lead, PgColumn leadSource, KeyStrategy.Kind requested,
      Monotonicity monotonicity, WriteRate writeRate, String swapColumn, String fullestKey,
      double lowWriteInsertsPerSecond, int nodes) {
    this(table, key, lead, leadSource, requested, monotonicity, writeRate, swapColumn, fullestKey,
        lowWriteInsertsPerSecond, nodes, null, null);
  }
}
