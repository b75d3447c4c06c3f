package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.hotspot.WriteSkew;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A composite key whose leading columns take few values before a column that grows with every insert, such as
 * {@code (tenant_id, id bigserial)} with a handful of tenants or {@code (region, created_at)}: every insert lands at
 * the end of one of a few key ranges, one per leading value, so at most that many servers take the writes.
 *
 * <p>"Few" is fewer than the key ranges that spread writes over the planned nodes ({@link WriteSkew#rangesFor}: 10 ×
 * nodes). The count is estimated from {@code pg_stats.n_distinct} of each leading column and from the distinct
 * combinations in the sampled rows, whichever is larger (the estimate errs towards "many", which keeps the key).
 *
 * @param columns the leading source columns, in key order
 * @param values the estimated number of distinct combinations of their values: the number of hot key ranges
 * @param source how it was estimated, for the report ("4 in 2,000 sampled rows; pg_stats n_distinct 4")
 */
record FewLeadingValues(List<String> columns, long values, String source) {

  /** Fewer sampled rows than this say nothing about how many values a column takes. */
  static final int MIN_SAMPLED_ROWS = 100;

  FewLeadingValues {
    columns = List.copyOf(columns);
    if (columns.isEmpty() || values < 1) {
      throw new IllegalArgumentException("leading columns and at least one value");
    }
    Objects.requireNonNull(source, "source");
  }

  /**
   * The leading columns {@code leading} of {@code table} when they take fewer values than spread writes over
   * {@code nodes}, else empty (also when too few rows were sampled to tell).
   */
  static Optional<FewLeadingValues> of(PgTable table, List<PgColumn> leading, KeySample sample, int nodes) {
    List<Integer> at = new ArrayList<>();
    for (PgColumn c : leading) {
      at.add(sample.columns().indexOf(c.name()));
    }
    if (at.contains(-1) || sample.rows().size() < MIN_SAMPLED_ROWS) {
      return Optional.empty();
    }
    Set<List<Object>> seen = new HashSet<>();
    for (List<Object> row : sample.rows()) {
      List<Object> combination = new ArrayList<>(at.size());
      at.forEach(i -> combination.add(row.get(i)));
      seen.add(combination);
    }
    // pg_stats counts each column over ANALYZE's own sample of the whole table: the combination has at least as
    // many values as its most varied column.
    long statistics = 0;
    Double rows = table.stats().rowEstimate();
    for (PgColumn c : leading) {
      if (c.stats() != null) {
        double d = c.stats().distinct();
        statistics = Math.max(statistics, d > 0 ? Math.round(d) : d < 0 && rows != null ? Math.round(-d * rows) : 0);
      }
    }
    long estimate = Math.max(seen.size(), statistics);
    String source = String.format(Locale.ROOT, "%,d in %,d sampled rows", seen.size(), sample.rows().size())
        + (statistics > 0 ? String.format(Locale.ROOT, "; pg_stats n_distinct %,d", statistics) : "");
    if (estimate >= WriteSkew.rangesFor(nodes)) {
      return Optional.empty();
    }
    return Optional.of(new FewLeadingValues(leading.stream().map(PgColumn::name).toList(), estimate, source));
  }

  /** The leading columns as prose: "tenant_id", "(region, tenant_id)". */
  String describe() {
    return columns.size() == 1 ? columns.get(0) : "(" + String.join(", ", columns) + ")";
  }

  /** As a finding's evidence records it. */
  Map<String, Object> evidence() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("leadingColumns", String.join(", ", columns));
    out.put("leadingValues", values);
    out.put("leadingValuesFrom", source);
    return out;
  }
}
