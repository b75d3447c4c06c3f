package dev.pg2spanner.report;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * An inline SVG line chart of one figure of a live run over time (lag, apply rate), for {@code run-summary.html}: in
 * the style of report.html's skew charts (same size, grid and axis text), no script.
 */
final class LiveChart {

  private static final int WIDTH = 420;
  private static final int HEIGHT = 170;
  private static final int LEFT = 48;
  private static final int RIGHT = 8;
  private static final int TOP = 8;
  private static final int BOTTOM = 24;

  private LiveChart() {}

  /**
   * The chart of one figure.
   *
   * @param label what is charted ("Lag", "Apply rate"); escaped here
   * @param unit the value's unit for the axis ("s", "changes/s")
   * @param points the progress reports, oldest first (at least one)
   */
  static String svg(String label, String unit, List<RunSummary.LivePoint> points,
      ToDoubleFunction<RunSummary.LivePoint> value) {
    int plotWidth = WIDTH - LEFT - RIGHT;
    int plotHeight = HEIGHT - TOP - BOTTOM;
    double max = 0;
    for (RunSummary.LivePoint p : points) {
      max = Math.max(max, value.applyAsDouble(p));
    }
    double top = niceCeiling(max);
    long first = points.get(0).at().toEpochMilli();
    long span = Math.max(1, points.get(points.size() - 1).at().toEpochMilli() - first);
    StringBuilder svg = new StringBuilder();
    svg.append("<svg class=\"live-chart\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
        .append("\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT)
        .append("\" role=\"img\" aria-label=\"").append(Html.esc(label + " over " + points.size()
            + " progress reports, at most " + format(max) + " " + unit)).append("\">");
    svg.append("<title>").append(Html.esc(label + " (" + unit + "), highest " + format(max))).append("</title>");
    for (int i = 0; i <= 2; i++) {
      double v = top * i / 2;
      double y = TOP + plotHeight * (1 - i / 2.0);
      svg.append("<line class=\"grid\" x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT)
          .append("\" y1=\"").append(num(y)).append("\" y2=\"").append(num(y)).append("\"/>");
      svg.append("<text class=\"axis\" x=\"").append(LEFT - 4).append("\" y=\"").append(num(y + 4))
          .append("\" text-anchor=\"end\">").append(Html.esc(tick(v))).append("</text>");
    }
    StringBuilder line = new StringBuilder();
    for (RunSummary.LivePoint p : points) {
      double x = LEFT + plotWidth * (double) (p.at().toEpochMilli() - first) / span;
      double y = TOP + plotHeight * (1 - (top == 0 ? 0 : value.applyAsDouble(p) / top));
      line.append(line.length() == 0 ? "" : " ").append(num(x)).append(',').append(num(y));
    }
    if (points.size() == 1) {
      // One report: a dot, so the chart is not blank.
      svg.append("<circle class=\"line\" cx=\"").append(num(LEFT)).append("\" cy=\"")
          .append(line.substring(line.indexOf(",") + 1)).append("\" r=\"2\"/>");
    } else {
      svg.append("<polyline class=\"line\" points=\"").append(line).append("\"/>");
    }
    svg.append("<text class=\"axis\" x=\"").append(LEFT + plotWidth / 2).append("\" y=\"").append(HEIGHT - 6)
        .append("\" text-anchor=\"middle\">").append(Html.esc(unit + " over " + elapsed(Duration.ofMillis(span))
            + " of streaming")).append("</text>");
    svg.append("</svg>");
    return svg.toString();
  }

  /** The smallest of 1, 2, 5 × 10^n at or above {@code v} (1 for 0). */
  static double niceCeiling(double v) {
    if (v <= 0 || Double.isNaN(v)) {
      return 1;
    }
    double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * magnitude >= v) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  private static String elapsed(Duration d) {
    long s = d.toSeconds();
    return s < 120 ? s + " s" : s < 7200 ? s / 60 + " min" : String.format(Locale.ROOT, "%.1f h", s / 3600.0);
  }

  /** An axis value: 0.25, 0.5, 10, 2,500 (no rounding of a round tick away). */
  static String tick(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v)
        : java.math.BigDecimal.valueOf(v).setScale(2, java.math.RoundingMode.HALF_UP).stripTrailingZeros()
            .toPlainString();
  }

  private static String format(double v) {
    return v >= 100 || v == Math.rint(v) ? String.format(Locale.ROOT, "%,.0f", v)
        : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
