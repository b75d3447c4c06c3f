package dev.pg2spanner.report;

import static dev.pg2spanner.report.Html.esc;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * {@code run-summary.html}, written by {@code migrate} into its run directory: one self-contained page in the style of
 * report.html (its stylesheet, no script, no network) with the time of each phase, rows and rows/s per table, the
 * dead letters and verify's result, and what to do next. Every value is escaped by {@link Html#esc}.
 */
public final class RunSummaryHtml {

  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final String CSP = "default-src 'none'; style-src 'unsafe-inline'";

  private RunSummaryHtml() {}

  public static String render(RunSummary s) {
    StringBuilder h = new StringBuilder(16 * 1024);
    h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta http-equiv=\"Content-Security-Policy\" content=\"").append(CSP).append("\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<title>Migration run: ").append(esc(s.source())).append("</title>\n")
        .append("<style>\n").append(Html.asset("report.css")).append("</style>\n</head>\n<body>\n");
    h.append("<header>\n<h1>Migration run: ").append(esc(s.source())).append(" → ").append(esc(s.target()))
        .append("</h1>\n<p>Started ").append(s.started() == null ? "at an unknown time" : DATE.format(s.started()))
        .append(", plan <code>").append(esc(s.planFile())).append("</code>.</p>\n</header>\n");

    boolean ok = s.status().equals("completed") && (s.verification().isEmpty() || s.verified());
    h.append("<section id=\"summary\">\n<h2>Summary</h2>\n<dl class=\"tiles\">");
    tile(h, "Status", s.status().equals("completed") ? "completed" : "stopped", ok ? "" : "sev-error");
    tile(h, "Wall time", seconds(s.elapsed()), "");
    tile(h, "Rows written", MarkdownReport.count(s.rowsWritten()), "");
    tile(h, "Dead letters", MarkdownReport.count(s.deadLetters()), s.deadLetters() > 0 ? "sev-warning" : "");
    tile(h, "Verify", s.verification().isEmpty() ? "not run" : s.verified() ? "equal" : "DIFFERS",
        !s.verification().isEmpty() && !s.verified() ? "sev-error" : "");
    h.append("</dl>\n");
    if (!s.status().equals("completed")) {
      h.append("<p class=\"alert\">").append(esc(s.status())).append("</p>\n");
    }
    if (s.nextStep() != null) {
      h.append("<p><strong>Next:</strong> ").append(esc(s.nextStep())).append("</p>\n");
    }
    h.append("</section>\n");

    h.append("<section id=\"phases\">\n<h2>Phases</h2>\n<table>\n<thead><tr><th>phase</th><th>wall time</th>"
        + "</tr></thead>\n<tbody>\n");
    for (RunSummary.Phase p : s.phases()) {
      h.append("<tr><td>").append(esc(p.name())).append("</td><td>").append(seconds(p.elapsed()))
          .append("</td></tr>\n");
    }
    h.append("</tbody>\n</table>\n</section>\n");

    h.append("<section id=\"tables\">\n<h2>Load per table</h2>\n");
    if (s.tables().isEmpty()) {
      h.append("<p>No rows were loaded in this run.</p>\n");
    } else {
      h.append("<table>\n<thead><tr><th>table</th><th>rows</th><th>MB</th><th>rejected</th><th>worker time</th>"
          + "<th>rows/s (worker time)</th></tr></thead>\n<tbody>\n");
      for (RunSummary.TableLoad t : s.tables()) {
        h.append("<tr><td>").append(esc(t.table())).append("</td><td>").append(MarkdownReport.count(t.rows()))
            .append("</td><td>").append(String.format(Locale.ROOT, "%.1f", t.bytes() / 1e6)).append("</td><td>")
            .append(MarkdownReport.count(t.rejected())).append("</td><td>").append(seconds(t.busy()))
            .append("</td><td>").append(MarkdownReport.count(Math.round(t.rowsPerSecond()))).append("</td></tr>\n");
      }
      h.append("</tbody>\n</table>\n");
    }
    if (s.deadLetters() > 0) {
      h.append("<p>").append(MarkdownReport.count(s.deadLetters()))
          .append(" row(s) could not be written; each is listed, with the reason, in <code>")
          .append(esc(s.deadLetterFile())).append("</code>.</p>\n");
    }
    h.append("</section>\n");

    if (!s.live().isEmpty()) {
      live(h, s.live());
    }

    h.append("<section id=\"verify\">\n<h2>Verify</h2>\n");
    if (s.verification().isEmpty()) {
      h.append("<p>Verify did not run in this run.</p>\n");
    } else {
      h.append("<table>\n<thead><tr><th>table</th><th>source rows</th><th>target rows</th><th>result</th></tr>"
          + "</thead>\n<tbody>\n");
      for (RunSummary.TableCheck c : s.verification()) {
        h.append("<tr><td>").append(esc(c.table())).append("</td><td>").append(MarkdownReport.count(c.sourceRows()))
            .append("</td><td>").append(MarkdownReport.count(c.targetRows())).append("</td><td>")
            .append(c.matches() ? "equal" : "<strong>differs</strong>").append("</td></tr>\n");
      }
      h.append("</tbody>\n</table>\n");
    }
    h.append("</section>\n</body>\n</html>\n");
    return h.toString();
  }

  /**
   * Writes {@link #render} to {@code file}, creating its directory.
   *
   * @throws dev.pg2spanner.error.Pg2SpannerException LOCAL_IO naming the file when it cannot be written
   */
  public static void write(RunSummary summary, Path file) {
    JsonReport.writeReport(render(summary), file);
  }

  /** The live run's lag and apply rate over time, one chart each, from its progress reports. */
  private static void live(StringBuilder h, List<RunSummary.LivePoint> points) {
    RunSummary.LivePoint last = points.get(points.size() - 1);
    double peakLag = points.stream().mapToDouble(RunSummary.LivePoint::lagSeconds).max().orElse(0);
    double meanRate = points.stream().mapToDouble(RunSummary.LivePoint::changesPerSecond).average().orElse(0);
    h.append("<section id=\"live\">\n<h2>Live streaming</h2>\n<dl class=\"tiles\">");
    tile(h, "Reports", MarkdownReport.count(points.size()), "");
    tile(h, "Lag at the end", String.format(Locale.ROOT, "%.1f s", last.lagSeconds()), "");
    tile(h, "Highest lag", String.format(Locale.ROOT, "%.1f s", peakLag), "");
    tile(h, "Mean apply rate", MarkdownReport.count(Math.round(meanRate)) + " changes/s", "");
    if (last.slotRetainedBytes() >= 0) {
      tile(h, "Slot held at the end", String.format(Locale.ROOT, "%.1f MB", last.slotRetainedBytes() / 1e6), "");
    }
    h.append("</dl>\n<div class=\"charts\">\n<figure>")
        .append(LiveChart.svg("Lag", "s", points, RunSummary.LivePoint::lagSeconds))
        .append("<figcaption>Lag: now minus the commit time of the last source transaction applied, at each progress "
            + "report (0 when caught up).</figcaption></figure>\n<figure>")
        .append(LiveChart.svg("Apply rate", "changes/s", points, RunSummary.LivePoint::changesPerSecond))
        .append("<figcaption>Changes applied per second between progress reports.</figcaption></figure>\n</div>\n")
        .append("</section>\n");
  }

  private static void tile(StringBuilder h, String name, String value, String cssClass) {
    h.append("<div class=\"tile ").append(cssClass).append("\"><dt>").append(esc(name)).append("</dt><dd>")
        .append(esc(value)).append("</dd></div>");
  }

  private static String seconds(Duration d) {
    return d == null ? "-" : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
