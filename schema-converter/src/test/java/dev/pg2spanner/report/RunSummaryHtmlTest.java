package dev.pg2spanner.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;

class RunSummaryHtmlTest {

  private static RunSummary summary(String status, List<RunSummary.TableCheck> checks, long deadLetters) {
    return new RunSummary("db:5432/shop", "projects/p/instances/i/databases/d", "out/plan.yaml",
        Instant.parse("2026-11-24T02:00:00Z"), Duration.ofSeconds(42), status,
        List.of(new RunSummary.Phase("1/4 tables", Duration.ofMillis(1500)),
            new RunSummary.Phase("2/4 load", Duration.ofSeconds(30))),
        List.of(new RunSummary.TableLoad("orders", 20_000, 3_500_000, 2, Duration.ofSeconds(4)),
            new RunSummary.TableLoad("<script>alert(1)</script>", 10, 100, 0, Duration.ZERO)),
        deadLetters, "run/dead-letters.jsonl", checks, "run pg2spanner verify");
  }

  @Test
  void phasesTablesRatesDeadLettersAndVerifyAreShownAndEveryValueIsEscaped() {
    String html = RunSummaryHtml.render(summary("completed", List.of(new RunSummary.TableCheck("orders", 20_002,
        20_000, false)), 2));
    Document page = Jsoup.parse(html);
    assertThat(page.select("#phases td").eachText()).containsExactly("1/4 tables", "1.5 s", "2/4 load", "30.0 s");
    // 20,000 rows over 4 s of worker time.
    assertThat(page.select("#tables tr:contains(orders) td").eachText()).containsExactly("orders", "20,000", "3.5",
        "2", "4.0 s", "5,000");
    assertThat(page.select("#verify td").eachText()).containsExactly("orders", "20,002", "20,000", "differs");
    assertThat(page.select(".tile.sev-error dd").eachText()).contains("DIFFERS");
    assertThat(page.select(".tile.sev-warning dd").eachText()).containsExactly("2");
    assertThat(page.text()).contains("run/dead-letters.jsonl");
    assertThat(page.select("script")).isEmpty();
    assertThat(html).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
    assertThat(page.select("meta[http-equiv=Content-Security-Policy]").attr("content")).startsWith("default-src 'none'");
  }

  @Test
  void aFailedRunSaysWhatStoppedItAndWhatToDoNext() {
    Document page = Jsoup.parse(RunSummaryHtml.render(summary("failed: the emulator went away", List.of(), 0)));
    assertThat(page.select(".alert").text()).isEqualTo("failed: the emulator went away");
    assertThat(page.select(".tile dd").eachText()).contains("stopped", "not run");
    assertThat(page.select("#verify").text()).contains("Verify did not run");
    assertThat(page.text()).contains("Next: run pg2spanner verify");
  }

  @Test
  void aLiveRunChartsLagAndApplyRateOverTimeInTheReportStyle() {
    RunSummary plain = summary("completed", List.of(), 0);
    Instant t0 = Instant.parse("2026-11-24T02:00:00Z");
    List<RunSummary.LivePoint> points = List.of(
        new RunSummary.LivePoint(t0, 0.0, 0, 0, 4096),
        new RunSummary.LivePoint(t0.plusSeconds(5), 12.5, 800_000, 950, 900_000),
        new RunSummary.LivePoint(t0.plusSeconds(10), 3.0, 1_000, 400, 5_000_000));
    RunSummary live = new RunSummary(plain.source(), plain.target(), plain.planFile(), plain.started(),
        plain.elapsed(), plain.status(), plain.phases(), plain.tables(), 0, plain.deadLetterFile(),
        plain.verification(), plain.nextStep(), points);
    Document page = Jsoup.parse(RunSummaryHtml.render(live));
    assertThat(page.select("#live .tile dd").eachText()).containsExactly("3", "3.0 s", "12.5 s", "450 changes/s",
        "5.0 MB");
    assertThat(page.select("#live svg.live-chart")).hasSize(2);
    assertThat(page.select("#live svg.live-chart").eachAttr("aria-label")).containsExactly(
        "Lag over 3 progress reports, at most 12.5 s", "Apply rate over 3 progress reports, at most 950 changes/s");
    // Three points from the left edge to the right, the highest lag at the top of a 0..20 s axis.
    String line = page.select("#live svg.live-chart").get(0).select("polyline").attr("points");
    assertThat(line.split(" ")).hasSize(3);
    assertThat(line).startsWith("48.0,").contains(" 412.0,");
    assertThat(page.select("#live svg.live-chart").get(0).select("text.axis").eachText()).contains("0", "10", "20",
        "s over 10 s of streaming");
    assertThat(page.select("script")).isEmpty();
    // A run that did not stream has no such section.
    assertThat(Jsoup.parse(RunSummaryHtml.render(plain)).select("#live")).isEmpty();
  }

  @Test
  void chartAxesEndOnRoundNumbers() {
    assertThat(LiveChart.niceCeiling(0)).isEqualTo(1);
    assertThat(LiveChart.niceCeiling(12.5)).isEqualTo(20);
    assertThat(LiveChart.niceCeiling(950)).isEqualTo(1000);
    assertThat(LiveChart.niceCeiling(0.3)).isEqualTo(0.5);
    assertThat(LiveChart.niceCeiling(4000)).isEqualTo(5000);
    assertThat(LiveChart.tick(0.25)).isEqualTo("0.25");
    assertThat(LiveChart.tick(0.5)).isEqualTo("0.5");
    assertThat(LiveChart.tick(0)).isEqualTo("0");
    assertThat(LiveChart.tick(10)).isEqualTo("10");
    assertThat(LiveChart.tick(2500)).isEqualTo("2,500");
  }
}
