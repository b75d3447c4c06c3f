package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Values that keep rising (or falling) with no default to say so: application-generated ids, ULIDs and other
 * time-prefixed text keys, ids copied from another system. Two independent signals must agree: PostgreSQL's
 * {@code pg_stats.correlation} near ±1 (physical order follows value order) and the sampled values, read in
 * physical order, rising (or falling) between almost every pair of neighbours.
 */
public final class CorrelatedValuesRule implements MonotonicRule {

  /** |correlation| at or above this counts as "near ±1". */
  static final double MIN_CORRELATION = 0.9;
  /** Share of neighbouring sampled values that must be in order. */
  static final double MIN_ORDERED_SHARE = 0.9;
  /**
   * Fewer sampled values than this prove nothing: a table of a few dozen rows written in sorted order (a lookup table
   * of codes) looks "rising" but never takes enough writes to hotspot.
   */
  static final int MIN_SAMPLES = 100;
  /**
   * Text keys must look like generated ids to count: time-prefixed ids (ULID 26, KSUID 27, prefixed ids like
   * "ord_01H...") are long, while natural keys inserted in sorted order (country or tenant codes) are short.
   */
  static final int MIN_TEXT_ID_LENGTH = 10;

  @Override
  public Optional<Monotonicity> detect(PgCatalog catalog, PgTable table, PgColumn column, KeySample sample) {
    if (column.stats() == null || column.stats().correlation() == null) {
      return Optional.empty();
    }
    double correlation = column.stats().correlation();
    if (Math.abs(correlation) < MIN_CORRELATION) {
      return Optional.empty();
    }
    List<Object> values = sample.values(column.name());
    if (values.size() < MIN_SAMPLES) {
      return Optional.empty();
    }
    if (values.get(0) instanceof String && medianLength(values) < MIN_TEXT_ID_LENGTH) {
      return Optional.empty();
    }
    boolean descending = correlation < 0;
    double ordered = orderedShare(values, descending);
    if (ordered < MIN_ORDERED_SHARE) {
      return Optional.empty();
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("correlation", Math.round(correlation * 1000) / 1000.0);
    evidence.put("orderedNeighbours", Math.round(ordered * 1000) / 1000.0);
    evidence.put("sampled", values.size());
    evidence.put("firstSampled", String.valueOf(values.get(0)));
    evidence.put("lastSampled", String.valueOf(values.get(values.size() - 1)));
    String kind = values.get(0) instanceof String ? "text values (e.g. a time-prefixed id such as a ULID)" : "values";
    Monotonicity.Cause cause = values.get(0) instanceof String
        ? Monotonicity.Cause.TIME_PREFIXED_TEXT : Monotonicity.Cause.CORRELATED_VALUES;
    return Optional.of(new Monotonicity(column.name(), cause, descending, evidence,
        column.name() + " has no sequence, but its " + kind + " arrive in " + (descending ? "descending" : "ascending")
            + " order: pg_stats.correlation is " + evidence.get("correlation") + " and "
            + Math.round(ordered * 100) + "% of neighbouring sampled rows (in physical order) are in order."));
  }

  private static int medianLength(List<Object> values) {
    int[] lengths = values.stream().mapToInt(v -> String.valueOf(v).length()).sorted().toArray();
    return lengths[lengths.length / 2];
  }

  /** Share of adjacent pairs (a, b) with a &lt;= b (or &gt;= b when descending). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static double orderedShare(List<Object> values, boolean descending) {
    int pairs = 0;
    int inOrder = 0;
    for (int i = 1; i < values.size(); i++) {
      Object a = values.get(i - 1);
      Object b = values.get(i);
      if (!(a instanceof Comparable) || a.getClass() != b.getClass()) {
        continue;
      }
      int cmp = ((Comparable) a).compareTo(b);
      pairs++;
      if (descending ? cmp >= 0 : cmp <= 0) {
        inOrder++;
      }
    }
    return pairs == 0 ? 0 : (double) inOrder / pairs;
  }
}
