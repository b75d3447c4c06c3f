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
 */
record WriteSkewForecast(int ranges, int sampledKeys, double before, double after) {

  /** Sampled values fewer than this give no write-skew figure. */
  static final int MIN_SAMPLE = 40;

  /**
   * The forecast for {@code sourceKeys} (as sampled) becoming {@code plannedKeys}, or empty when fewer than
   * {@link #MIN_SAMPLE} keys were sampled. Pure.
   */
  static Optional<WriteSkewForecast> of(List<Object> sourceKeys, List<Object> plannedKeys, int nodes) {
    if (sourceKeys.size() < MIN_SAMPLE) {
      return Optional.empty();
    }
    int ranges = WriteSkew.effectiveRanges(sourceKeys.size(), WriteSkew.rangesFor(nodes));
    return Optional.of(new WriteSkewForecast(ranges, sourceKeys.size(), concentration(sourceKeys, ranges),
        concentration(plannedKeys, ranges)));
  }

  /** As a finding's evidence records it. */
  Map<String, Object> evidence() {
    return Map.of("ranges", ranges, "sampledKeys", sampledKeys, "sourceKey", round(before), "plannedKey",
        round(after));
  }

  /** The sentence a finding ends with (with a leading space). */
  String sentence() {
    return String.format(Locale.ROOT, " Predicted write skew (share of concurrent inserts that land on one of %d "
        + "key ranges, from %d sampled keys; an even spread is %s): %s under the current key, %s under the planned "
        + "key.", ranges, sampledKeys, percent(1.0 / ranges), percent(before), percent(after));
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
