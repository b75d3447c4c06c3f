package dev.pg2spanner.report;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * An inline SVG bar chart of a key's predicted write skew, for {@code report.html}.
 *
 * <p>The plan records the skew as one figure per key (the {@code writeSkew} evidence of a HOTSPOT_KEY or
 * KEY_STRATEGY_REQUESTED finding, see {@code hotspot/WriteSkew}): the share of concurrent inserts that land on one
 * of K key ranges. It does not record per-range counts, so the chart draws the spread that figure stands for: a
 * burst of inserts spread evenly over 1/skew of the K ranges (busiest last), against the dashed line of an even
 * spread over all K (1/K). A monotonic key shows one full bar at the end; a well-spread key a flat row of low bars.
 */
final class SkewChart {

  private static final int WIDTH = 300;
  private static final int HEIGHT = 150;
  private static final int LEFT = 34;
  private static final int RIGHT = 6;
  private static final int TOP = 8;
  private static final int BOTTOM = 22;

  /**
   * The {@code writeSkew} evidence the key designer writes.
   *
   * @param ranges K, the number of key ranges the model cuts the key space into
   * @param sampledKeys how many sampled keys the figures come from
   * @param sourceKey the predicted skew under the source's key, 0..1
   * @param plannedKey the predicted skew under the planned key, 0..1
   */
  record Evidence(int ranges, int sampledKeys, double sourceKey, double plannedKey) {

    /** The finding's {@code writeSkew} evidence, or empty when it has none (too few sampled keys) or it is malformed. */
    static Optional<Evidence> of(Map<String, Object> evidence) {
      if (!(evidence.get("writeSkew") instanceof Map<?, ?> skew)) {
        return Optional.empty();
      }
      if (skew.get("ranges") instanceof Number ranges && skew.get("sampledKeys") instanceof Number sampled
          && skew.get("sourceKey") instanceof Number source && skew.get("plannedKey") instanceof Number planned
          && ranges.intValue() >= 1) {
        return Optional.of(new Evidence(ranges.intValue(), sampled.intValue(), clamp(source.doubleValue()),
            clamp(planned.doubleValue())));
      }
      return Optional.empty();
    }

    private static double clamp(double v) {
      return Double.isNaN(v) ? 1 : Math.max(0, Math.min(1, v));
    }
  }

  private SkewChart() {}

  /**
   * The chart of one key.
   *
   * @param label what the key is ("Current key", "Planned key"); escaped here
   * @param skew the predicted skew, 0..1
   * @param ranges K
   */
  static String svg(String label, double skew, int ranges) {
    double[] shares = equivalentSpread(skew, ranges);
    int plotWidth = WIDTH - LEFT - RIGHT;
    int plotHeight = HEIGHT - TOP - BOTTOM;
    double slot = (double) plotWidth / ranges;
    double gap = slot > 4 ? 1 : 0;
    StringBuilder svg = new StringBuilder();
    svg.append("<svg class=\"skew-chart\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
        .append("\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT)
        .append("\" role=\"img\" aria-label=\"").append(Html.esc(label + ": " + percent(skew)
            + " of concurrent inserts on one of " + ranges + " key ranges")).append("\">");
    svg.append("<title>").append(Html.esc(label + ": " + percent(skew))).append("</title>");
    // Axes and the 0 / 50 / 100 % grid.
    for (int p = 0; p <= 100; p += 50) {
      double y = TOP + plotHeight * (1 - p / 100.0);
      svg.append("<line class=\"grid\" x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT)
          .append("\" y1=\"").append(num(y)).append("\" y2=\"").append(num(y)).append("\"/>");
      svg.append("<text class=\"axis\" x=\"").append(LEFT - 4).append("\" y=\"").append(num(y + 4))
          .append("\" text-anchor=\"end\">").append(p).append("%</text>");
    }
    for (int i = 0; i < ranges; i++) {
      double h = plotHeight * shares[i];
      if (h <= 0) {
        continue;
      }
      svg.append("<rect class=\"bar\" x=\"").append(num(LEFT + i * slot + gap / 2)).append("\" y=\"")
          .append(num(TOP + plotHeight - h)).append("\" width=\"").append(num(Math.max(0.5, slot - gap)))
          .append("\" height=\"").append(num(h)).append("\"/>");
    }
    double even = TOP + plotHeight * (1 - 1.0 / ranges);
    svg.append("<line class=\"even\" x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT)
        .append("\" y1=\"").append(num(even)).append("\" y2=\"").append(num(even)).append("\"/>");
    svg.append("<text class=\"axis\" x=\"").append(LEFT + plotWidth / 2).append("\" y=\"").append(HEIGHT - 6)
        .append("\" text-anchor=\"middle\">").append(ranges).append(" key ranges, busiest last</text>");
    svg.append("</svg>");
    return svg.toString();
  }

  /**
   * Shares per range (summing to 1) of a burst spread evenly over {@code 1/skew} ranges, the busiest last: whole
   * ranges at {@code skew} each and, when 1/skew is fractional, one range with the remainder.
   */
  static double[] equivalentSpread(double skew, int ranges) {
    double[] shares = new double[ranges];
    double s = Math.max(1.0 / ranges, Math.min(1, skew));
    int full = (int) Math.min(ranges, Math.floor(1 / s + 1e-9));
    double rest = Math.max(0, 1 - full * s);
    for (int i = 0; i < full; i++) {
      shares[ranges - 1 - i] = s;
    }
    if (full < ranges && rest > 1e-9) {
      shares[ranges - 1 - full] = rest;
    }
    return shares;
  }

  /** 0.0625 → "6.3%", 1 → "100%". */
  static String percent(double share) {
    double p = share * 100;
    return p >= 10 || p == 0 ? String.format(Locale.ROOT, "%.0f%%", p) : String.format(Locale.ROOT, "%.1f%%", p);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
