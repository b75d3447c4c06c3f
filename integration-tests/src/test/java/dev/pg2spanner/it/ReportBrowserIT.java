package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19: report.html in a real browser. Headless Chromium (Debian's package; .ci/run installs it) loads the report
 * of the Pagila fixture with {@code ?selftest}, whose script measures what rendered and exercises the severity
 * filters; the test reads that back from the DOM, checks that the browser logged no script error and that nothing
 * tried to reach the network, and keeps a screenshot as a test artifact
 * ({@code integration-tests/target/report-browser/report.png}).
 */
@WithPostgres
class ReportBrowserIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path ARTIFACTS = Path.of("target", "report-browser");

  @TempDir
  static Path out;
  private static HeadlessChromium chromium;

  @BeforeAll
  static void planPagila(PgTestDatabase pg) throws Exception {
    chromium = HeadlessChromium.require();
    pg.runScript(Fixtures.pagilaSchema());
    pg.execute(Fixtures.resource("fixtures/pagila-data.sql"));
    // Enough sampled keys on a sequence-fed table for the write-skew chart (the planner charts 40 or more).
    pg.execute("INSERT INTO actor (first_name, last_name) SELECT 'first ' || g, 'last ' || g "
        + "FROM generate_series(1, 600) g", "ANALYZE");
    MigrateSupport.plan(pg, out);
    Files.createDirectories(ARTIFACTS);
  }

  @Test
  void chartsTreeAndFindingsRenderTheFiltersWorkAndNothingFailsOrReachesTheNetwork() throws Exception {
    Path report = out.resolve("report.html");
    HeadlessChromium.Page page = chromium.dumpDom(report.toUri() + "?selftest", out);
    JsonNode rendered = rendered(page);

    assertThat(rendered.path("errors")).as(page.log()).isEmpty();
    assertThat(consoleErrors(page.log())).isEmpty();
    assertThat(rendered.path("charts").asInt()).isPositive();
    assertThat(rendered.path("sizedCharts").asInt()).isEqualTo(rendered.path("charts").asInt());
    assertThat(rendered.path("sizedBars").asInt()).isGreaterThanOrEqualTo(2 * rendered.path("charts").asInt());
    assertThat(rendered.path("treeItems").asInt()).isGreaterThanOrEqualTo(2);
    assertThat(rendered.path("sizedTreeItems").asInt()).isEqualTo(rendered.path("treeItems").asInt());
    int findings = rendered.path("findings").asInt();
    assertThat(findings).isPositive();
    assertThat(rendered.path("sizedFindings").asInt()).isEqualTo(findings);

    // Each severity box hides exactly its own rows; ticking it again shows them all.
    JsonNode filters = rendered.path("filters");
    assertThat(filters.path("all").asInt()).isEqualTo(findings);
    int hidden = 0;
    for (String severity : List.of("error", "warning", "info")) {
      if (filters.has(severity)) {
        hidden += filters.path(severity).asInt();
      }
    }
    assertThat(filters.path("warning").asInt()).as("warnings hidden by their box").isPositive();
    assertThat(hidden).as("every finding belongs to one severity box").isEqualTo(findings);
    assertThat(filters.path("restored").asInt()).isEqualTo(findings);

    Path png = ARTIFACTS.resolve("report.png");
    chromium.screenshot(report.toUri().toString(), png, 1280, 900, out);
    byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
    assertThat(head).containsExactly(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
    assertThat(Files.size(png)).as("a rendered page, not a blank one").isGreaterThan(20_000);
  }

  /** The same page with a reference to the network added: the selftest must report it (so a clean run means it). */
  @Test
  void aReportThatReachesForTheNetworkIsCaught() throws Exception {
    String html = Files.readString(out.resolve("report.html"), StandardCharsets.UTF_8);
    Path tampered = out.resolve("tampered.html");
    Files.writeString(tampered, html.replace("</body>", "<img src=\"https://example.com/pixel.png\" alt=\"\">"
        + "<script>undefinedFunction();</script></body>"), StandardCharsets.UTF_8);
    JsonNode rendered = rendered(chromium.dumpDom(tampered.toUri() + "?selftest", out));
    assertThat(rendered.path("errors").toString()).contains("blocked by the report's CSP");
  }

  private static JsonNode rendered(HeadlessChromium.Page page) throws Exception {
    Document dom = Jsoup.parse(page.dom());
    String attribute = dom.body().attr("data-rendered");
    assertThat(attribute).as("the selftest ran (data-rendered on <body>); Chromium's log: %s", page.log())
        .isNotEmpty();
    return JSON.readTree(attribute);
  }

  /** Script errors Chromium logged from the page's console ("Uncaught ...", CSP refusals). */
  private static List<String> consoleErrors(String log) {
    return log.lines().filter(l -> l.contains("CONSOLE") && (l.contains("Uncaught") || l.contains("Refused")))
        .toList();
  }
}
