package dev.pg2spanner.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFixtures;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportTest {

  private static final String HOSTILE_TABLE = "audit.<script>alert(1)</script>";
  private static final String HOSTILE_COLUMN = "Tom & \"Jerry\" <b>";

  /**
   * The shop plan with the key designer's {@code writeSkew} evidence on both hotspot findings, and a table and
   * column whose names would break HTML.
   */
  private static Plan plan() {
    Plan plan = PlanFixtures.shop();
    plan = PlanFixtures.withTable(plan, 0, t -> withSkew(t, 30, 1.0, 0.034));
    plan = PlanFixtures.withTable(plan, 2, t -> withSkew(t, 30, 0.97, 0.0625));
    return PlanFixtures.withTable(plan, 3, HtmlReportTest::hostile);
  }

  private static TablePlan withSkew(TablePlan t, int ranges, double source, double planned) {
    List<Finding> findings = new ArrayList<>();
    for (Finding f : t.findings()) {
      if (f.code() == FindingCode.HOTSPOT_KEY) {
        Map<String, Object> evidence = new LinkedHashMap<>(f.evidence());
        evidence.put("writeSkew", Map.of("ranges", ranges, "sampledKeys", 600, "sourceKey", source,
            "plannedKey", planned));
        f = new Finding(f.code(), f.severity(), f.table(), f.column(), f.index(), f.message(), evidence);
      }
      findings.add(f);
    }
    return new TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(), t.bytesEstimate(), t.columns(),
        t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(), t.foreignKeys(), t.checks(), findings);
  }

  private static TablePlan hostile(TablePlan t) {
    List<ColumnPlan> columns = new ArrayList<>(t.columns());
    columns.add(new ColumnPlan(HOSTILE_COLUMN, "text", "tom_jerry_b", "STRING(MAX)", false, ValueConversion.STRING,
        null, null));
    List<Finding> findings = new ArrayList<>(t.findings());
    findings.add(Finding.of(FindingCode.NAME_CHANGED, HOSTILE_TABLE, HOSTILE_COLUMN, null,
        "Column " + HOSTILE_COLUMN + " is not a legal Spanner name.", Map.of("from", HOSTILE_COLUMN)));
    return new TablePlan(HOSTILE_TABLE, t.readOnly(), "audit_script", t.rowsEstimate(), t.bytesEstimate(), columns,
        t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(), t.foreignKeys(), t.checks(), findings);
  }

  @Test
  void drawsBeforeAndAfterChartsForEveryFlaggedTable() {
    Document doc = Jsoup.parse(HtmlReport.render(plan()));
    List<Element> hotspots = doc.select("#keys article.hotspot");
    assertThat(hotspots).extracting(e -> e.id()).containsExactly("key-orders", "key-events");
    for (Element hotspot : hotspots) {
      assertThat(hotspot.select("svg.skew-chart")).as(hotspot.id()).hasSize(2);
      assertThat(hotspot.select("svg.skew-chart rect.bar")).as(hotspot.id()).isNotEmpty();
      assertThat(hotspot.select(".evidence dl.kv dt")).extracting(Element::text).contains("writeSkew", "ranges",
          "sourceKey", "plannedKey");
    }
    // The orders key goes from one full range (every insert on the last range) to a spread over all 30.
    Element orders = hotspots.get(0);
    assertThat(orders.select("svg.skew-chart").get(0).select("rect.bar")).hasSize(1);
    assertThat(orders.select("svg.skew-chart").get(1).select("rect.bar")).hasSize(30);
    assertThat(orders.select("figcaption").text()).contains("100%").contains("3.4%");
  }

  @Test
  void aFlaggedTableWithoutAPredictionSaysSo() {
    Document doc = Jsoup.parse(HtmlReport.render(PlanFixtures.shop()));
    Element orders = doc.getElementById("key-orders");
    assertThat(orders.select("svg")).isEmpty();
    assertThat(orders.select(".no-chart").text()).contains("too few keys were sampled");
  }

  @Test
  void treeListsTheInterleavedChildUnderItsParent() {
    Document doc = Jsoup.parse(HtmlReport.render(plan()));
    Element root = doc.selectFirst("ul.tree > li[data-table=orders]");
    assertThat(root).isNotNull();
    assertThat(root.select("> ul > li").eachAttr("data-table")).containsExactly("order_items");
    assertThat(root.selectFirst("li[data-table=order_items] .note").text())
        .contains("ON DELETE CASCADE").contains("order_items_order_id_fkey");
    assertThat(doc.select("ul.tree > li").eachAttr("data-table"))
        .containsExactly("orders", "events", "audit_script");
  }

  @Test
  void treeGivesTheReasonATableIsNotInterleaved() {
    Plan plan = PlanFixtures.withTable(PlanFixtures.shop(), 2, t -> new TablePlan(t.source(), t.readOnly(),
        t.target(), t.rowsEstimate(), t.bytesEstimate(), t.columns(), t.primaryKey(), t.keyStrategy(),
        t.interleave(), t.indexes(), t.foreignKeys(), t.checks(),
        List.of(Finding.of(FindingCode.NOT_INTERLEAVED, t.source(), null, "events_order_id_fkey",
            "public.events is not interleaved in public.orders through events_order_id_fkey: its key does not "
                + "start with the parent's key.", Map.of("parent", "public.orders")))));
    Element events = Jsoup.parse(HtmlReport.render(plan)).selectFirst("ul.tree > li[data-table=events]");
    assertThat(events.select(".reason").text()).contains("does not start with the parent's key");
  }

  @Test
  void escapesEveryNameFromThePlan() {
    String html = HtmlReport.render(plan());
    assertThat(html).doesNotContain("<script>alert(1)").doesNotContain("<b>\"")
        .doesNotContain("Tom & ")
        .contains("audit.&lt;script&gt;alert(1)&lt;/script&gt;")
        .contains("Tom &amp; &quot;Jerry&quot; &lt;b&gt;");
    Document doc = Jsoup.parse(html);
    // Only the report's own two scripts (the error listener and the filters), and the names read back intact.
    assertThat(doc.select("script")).hasSize(2);
    assertThat(doc.select("b")).isEmpty();
    assertThat(doc.select("#changes summary").eachText()).contains(HOSTILE_TABLE + " → audit_script");
    assertThat(doc.select("#changes li").eachText())
        .anyMatch(t -> t.equals("Column renamed from " + HOSTILE_COLUMN + " to tom_jerry_b."));
  }

  @Test
  void isSelfContained() {
    String html = HtmlReport.render(plan());
    assertThat(html).doesNotContainIgnoringCase("http://").doesNotContainIgnoringCase("https://")
        .doesNotContain("src=").doesNotContain("<link").doesNotContain("@import").doesNotContain("url(");
    Document doc = Jsoup.parse(html);
    assertThat(doc.select("style")).hasSize(1);
    assertThat(doc.select("meta[http-equiv=Content-Security-Policy]").attr("content")).startsWith("default-src 'none'");
  }

  @Test
  void findingsCarryTheirSeverityForTheFilters() {
    Document doc = Jsoup.parse(HtmlReport.render(plan()));
    assertThat(doc.select(".filters input[data-filter-severity]").eachAttr("data-filter-severity"))
        .containsExactly("error", "warning", "info");
    int all = ReportFindings.all(plan()).size();
    assertThat(doc.select("tr.finding")).hasSize(all);
    assertThat(doc.select("tr.finding").eachAttr("data-severity")).isSubsetOf("error", "warning", "info")
        .contains("warning", "info");
    assertThat(doc.select("style").html()).contains("@media print").contains(".filters { display: none; }");
  }

  @Test
  void givesEachCodesTitleAndRemedyOnceAndLinksEveryFindingToIt() {
    Document doc = Jsoup.parse(HtmlReport.render(plan()));
    List<Finding> findings = ReportFindings.all(plan());
    List<String> occurring = findings.stream().map(f -> f.code().name()).distinct().sorted().toList();
    assertThat(doc.select("#finding-codes tr.code").eachAttr("id"))
        .containsExactlyElementsOf(occurring.stream().map(c -> "code-" + c).toList());
    for (FindingCode code : List.of(FindingCode.NOT_MIGRATED, FindingCode.HOTSPOT_KEY)) {
      long n = findings.stream().filter(f -> f.code() == code).count();
      assertThat(n).as("%s findings", code).isGreaterThan(1);
      assertThat(MarkdownReportTest.occurrences(doc.body().text(), code.remedy())).as(code.name()).isEqualTo(1);
      Element row = doc.getElementById("code-" + code.name());
      assertThat(row.select("td").eachText()).containsExactly(code.name(), code.defaultSeverity().json(),
          String.valueOf(n), code.title(), code.remedy());
    }
    // Every finding's code links to its row.
    for (Element link : doc.select("tr.finding a[href^=#code-]")) {
      assertThat(doc.getElementById(link.attr("href").substring(1))).as(link.attr("href")).isNotNull();
    }
    assertThat(doc.select("tr.finding a[href^=#code-]")).hasSize(findings.size());
    assertThat(doc.select("nav.toc a[href=#finding-codes]")).hasSize(1);
    assertThat(Jsoup.parse(HtmlReport.render(PlanFixtures.withoutFindings(plan()))).select("#finding-codes p").text())
        .isEqualTo("No findings.");
  }

  @Test
  void listsWhatIsNotMigrated() {
    Document doc = Jsoup.parse(HtmlReport.render(plan()));
    assertThat(doc.select("#not-migrated tbody tr")).hasSize(4);
    assertThat(doc.select("#not-migrated").text()).contains("public.order_totals").contains("public.weird|view")
        .contains("orders_audit").contains("public.touch_updated_at()");
  }

  @Test
  void listsWhatTheApplicationWillNotice() {
    Document doc = Jsoup.parse(HtmlReport.render(plan()));
    String changes = doc.select("#changes").text();
    assertThat(changes).contains("New ids come from a bit-reversed sequence")
        .contains("Hash-sharded key").contains("Interleaved in orders").contains("Key added")
        .contains("Column renamed from Note|Text to note_text").contains("FOREIGN_KEY_CHANGED");
  }

  @Test
  void equivalentSpreadSumsToOne() {
    assertThat(SkewChart.equivalentSpread(1.0, 10)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0);
    assertThat(SkewChart.equivalentSpread(0.1, 10)).containsOnly(0.1);
    double[] third = SkewChart.equivalentSpread(0.4, 10);
    assertThat(java.util.Arrays.stream(third).sum()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(third[9]).isEqualTo(0.4);
    assertThat(third[7]).isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void isDeterministicAndWritesTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("out/report.html");
    HtmlReport.write(plan(), file);
    assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo(HtmlReport.render(plan()));
  }
}
