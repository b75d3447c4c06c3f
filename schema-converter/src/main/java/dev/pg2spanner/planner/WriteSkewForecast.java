package dev.pg2spanner.planner;

import dev.pg2spanner.hotspot.WriteSkew;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The predicted write skew of a key decision: the share of concurrent inserts that land on the busiest key range,
 * under the current key and under the planned one, from the sampled keys.
 *
 * @param ranges the key ranges the model spreads inserts over
 * @param sampledKeys how many sampled keys it is computed from
 * @param before the busiest range's share under the current key
 * @param after the busiest range's share under the planned key
 * @param hot the few-valued leading columns that make the current key's hot ranges, or null when its leading column
 *     grows (one hot range)
 */
record WriteSkewForecast(int ranges, int sampledKeys, double before, double after, FewLeadingValues hot) {

  /** Sampled values fewer than this give no write-skew figure. */
  static final int MIN_SAMPLE = 40;

  /**
   * The forecast for {@code sourceKeys} (as sampled) becoming {@code plannedKeys}, or empty when fewer than
   * {@link #MIN_SAMPLE} keys were sampled. Pure.
   */
  static Optional<WriteSkewForecast> of(List<Object> sourceKeys, List<Object> plannedKeys, int nodes) {
    return of(sourceKeys, plannedKeys, nodes, null);
  }

  /** The same, for a current key whose {@code hot} leading columns make as many hot ranges as they take values. */
  static Optional<WriteSkewForecast> of(List<Object> sourceKeys, List<Object> plannedKeys, int nodes,
      FewLeadingValues hot) {
    if (sourceKeys.size() < MIN_SAMPLE) {
      return Optional.empty();
    }
    int ranges = WriteSkew.effectiveRanges(sourceKeys.size(), WriteSkew.rangesFor(nodes));
    return Optional.of(new WriteSkewForecast(ranges, sourceKeys.size(), concentration(sourceKeys, ranges),
        concentration(plannedKeys, ranges), hot));
  }

  /** As a finding's evidence records it. */
  Map<String, Object> evidence() {
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    out.put("ranges", ranges);
    out.put("sampledKeys", sampledKeys);
    out.put("sourceKey", round(before));
    out.put("plannedKey", round(after));
    if (hot != null) {
      out.put("hotRanges", hot.values());
    }
    return out;
  }

  /** The sentence a finding ends with (with a leading space). */
  String sentence() {
    String current = hot == null ? "" : String.format(Locale.ROOT, ", where every insert lands at the end of one of "
        + "%d key ranges, one per value of %s", hot.values(), hot.describe());
    return String.format(Locale.ROOT, " Predicted write skew (share of concurrent inserts that land on one of %d "
        + "key ranges, from %d sampled keys; an even spread is %s): %s under the current key%s, %s under the planned "
        + "key.", ranges, sampledKeys, percent(1.0 / ranges), percent(before), current, percent(after));
  }

  /** What a strategy's reason ends with (with a leading space). */
  String reasonSuffix() {
    return String.format(Locale.ROOT, " (write skew %s → %s)", percent(before), percent(after));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static double concentration(List<Object> keys, int ranges) {
    List<Comparable> comparable = new ArrayList<>();
    for (Object k : keys) {
      if (k instanceof Comparable c && (comparable.isEmpty() || comparable.get(0).getClass() == c.getClass())) {
        comparable.add(c);
      }
    }
    return WriteSkew.concentration((List) comparable, ranges);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  private static String percent(double v) {
    return v >= 0.995 ? "100%" : String.format(Locale.ROOT, "%.1f%%", v * 100);
  }
}
