package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.awt.image.BufferedImage;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35: what operators watch. A live run serves {@code /metrics} while a workload writes (the figures move), warns
 * past {@code --max-slot-wal} on every channel (output, metric, status), and its run-summary.html charts lag and apply
 * rate (rendered by headless Chromium). The stop at {@code --stop-slot-wal}: {@link LiveSlotWalStopIT}.
 */
@WithLogicalPostgres
@WithSpannerEmulator
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LiveMetricsIT {

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Path ARTIFACTS = Path.of("target", "live-metrics");

  /** The run-summary.html of the live run, for the browser test. */
  private static Path liveSummary;

  @Test
  @Order(1)
  void metricsMoveAsTheWorkloadRunsAndTheSlotWarningReachesEveryChannel(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    LiveWorkload.createSchema(pg);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    int port = freePort();
    String url = "http://127.0.0.1:" + port + "/metrics";

    CompletableFuture<CliRunner.Result> migrate;
    String streaming;
    String later;
    try (LiveWorkload workload = new LiveWorkload(pg).start()) {
      // 1 kB: the slot holds more than that as soon as the workload writes, so the warning must show.
      migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(),
          spanner.emulatorHost(), run, "--live", "--workers", "2", "--progress-interval", "1",
          "--metrics-port", Integer.toString(port), "--max-slot-wal", "1kB", "--stop-slot-wal", "50GB")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      streaming = scrape(url);
      assertThat(value(streaming, "pg2spanner_run_phase{phase=\"streaming\"}")).isEqualTo(1.0);
      assertThat(value(streaming, "pg2spanner_run_phase{phase=\"load\"}")).isZero();
      // The load's own figures stay readable while streaming.
      assertThat(value(streaming, "pg2spanner_load_rows_total{table=\"accounts\"}")).isPositive();
      double loaded = Pattern.compile("(?m)^pg2spanner_load_rows_total\\{table=\"[^\"]+\"\\} (\\S+)$")
          .matcher(streaming).results().mapToDouble(r -> Double.parseDouble(r.group(1))).sum();
      long rowsWritten = MigrateSupport.jsonLines(run.resolve("progress.jsonl")).stream()
          .filter(l -> l.path("type").asText().equals("summary")).mapToLong(l -> l.path("rowsWritten").asLong())
          .sum();
      assertThat(loaded).as("the load's counters add up to the rows it reports").isEqualTo((double) rowsWritten);
      assertThat(value(streaming, "pg2spanner_load_pieces_done_total{table=\"accounts\"}")).isPositive();
      assertThat(value(streaming, "pg2spanner_commit_seconds_count{stage=\"load\"}")).isPositive();
      double appliedBefore = applied(streaming);

      long before = workload.transactions();
      while (workload.transactions() < before + 150) {
        assertThat(migrate).isNotDone();
        Thread.sleep(50);
      }
      // Counters move as changes are applied; gauges at the next progress report (1 s).
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      do {
        Thread.sleep(500);
        later = scrape(url);
      } while (System.nanoTime() < deadline && (applied(later) <= appliedBefore
          || value(later, "pg2spanner_slot_wal_over_max") < 1));
      assertThat(applied(later)).isGreaterThan(appliedBefore);
      assertThat(value(later, "pg2spanner_live_transactions_applied_total")).isPositive();
      assertThat(value(later, "pg2spanner_commit_seconds_count{stage=\"live\"}")).isPositive();
      assertThat(value(later, "pg2spanner_slot_wal_retained_bytes")).isGreaterThan(1024);
      assertThat(value(later, "pg2spanner_slot_wal_over_max")).isEqualTo(1.0);
      assertThat(value(later, "pg2spanner_slot_wal_limit_bytes{limit=\"max\"}")).isEqualTo(1024.0);
      assertThat(value(later, "pg2spanner_slot_wal_limit_bytes{limit=\"stop\"}")).isEqualTo(50.0 * (1L << 30));
      assertThat(later).containsPattern("(?m)^pg2spanner_live_lag_seconds [0-9.]+$")
          .containsPattern("(?m)^pg2spanner_live_lag_bytes [0-9.E]+$")
          .containsPattern("(?m)^pg2spanner_live_verified_position_bytes\\{table=\"accounts\"\\} ");
      // The load's own verify found every table equal at the slot's consistent point: a position, not NaN.
      assertThat(value(later, "pg2spanner_live_verified_position_bytes{table=\"accounts\"}")).isPositive();

      // status (another terminal) says it too.
      CliRunner.Result status = MigrateSupport.cli(List.of("status", "--run-dir", run.toString()));
      assertThat(status.exitCode()).as(status.out() + status.err()).isZero();
      assertThat(status.out()).contains("WARNING      the replication slot pg2spanner_")
          .contains("more than --max-slot-wal 1024 bytes").contains("(OVER --max-slot-wal 1024 bytes)");
    }
    new LiveWorkload(pg).run(20);
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
    assertThat(migrated.out()).contains("metrics: " + url)
        .contains("WARNING: the replication slot pg2spanner_").contains("(OVER --max-slot-wal 1024 bytes)");
    // The endpoint ends with the run.
    assertThat(reachable(url)).isFalse();

    // run-summary.html charts lag and apply rate from progress.jsonl; Chromium draws them.
    Path summary = run.resolve("run-summary.html");
    String html = Files.readString(summary);
    assertThat(html).contains("<section id=\"live\">").contains("Live streaming");
    assertThat(Pattern.compile("<polyline class=\"line\" points=\"").matcher(html).results().count()).isEqualTo(2);
    // Kept beyond this test's temporary directory (and as an artifact to look at).
    Files.createDirectories(ARTIFACTS);
    liveSummary = Files.copy(summary, ARTIFACTS.resolve("run-summary.html"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING).toAbsolutePath();
  }

  /** The page the live run above wrote, rendered by headless Chromium: both charts are drawn. */
  @Test
  @Order(2)
  void theLiveRunSummaryRendersItsChartsInABrowser(@TempDir Path dir) throws Exception {
    assertThat(liveSummary).as("the live run of the test before wrote run-summary.html").isNotNull();
    Path summary = liveSummary;
    HeadlessChromium chromium = HeadlessChromium.require();
    Path png = ARTIFACTS.resolve("live-run-summary.png").toAbsolutePath();
    // The whole page in one window (a fragment scroll leaves headless screenshots partly unpainted).
    chromium.screenshot(summary.toUri().toString(), png, 1100, 2400, dir);
    assertThat(linePixels(ImageIO.read(png.toFile()))).as("pixels of the charts' lines in " + png)
        .isGreaterThan(200);
    HeadlessChromium.Page page = chromium.dumpDom(summary.toUri().toString(), dir);
    assertThat(page.dom()).contains("<svg class=\"live-chart\"").contains("Apply rate");
  }

  private static double applied(String scrape) {
    double sum = 0;
    for (String kind : List.of("insert", "update", "delete", "truncate")) {
      sum += value(scrape, "pg2spanner_live_changes_applied_total{kind=\"" + kind + "\"}");
    }
    return sum;
  }

  /** The value of one sample, e.g. {@code pg2spanner_run_phase{phase="load"}}. */
  static double value(String scrape, String sample) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(sample) + " (\\S+)$").matcher(scrape);
    assertThat(m.find()).as(sample + " in:\n" + scrape).isTrue();
    return Double.parseDouble(m.group(1));
  }

  static String scrape(String url) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain; version=0.0.4");
    return r.body();
  }

  private static boolean reachable(String url) {
    try {
      HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding());
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Pixels in the colour of the charts' lines (#8250df, used by nothing else on the page; antialiasing allowed). */
  private static long linePixels(BufferedImage image) {
    long n = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int rgb = image.getRGB(x, y);
        int r = (rgb >> 16) & 0xff;
        int g = (rgb >> 8) & 0xff;
        int b = rgb & 0xff;
        if (Math.abs(r - 0x82) < 30 && Math.abs(g - 0x50) < 30 && Math.abs(b - 0xdf) < 30) {
          n++;
        }
      }
    }
    return n;
  }
}
