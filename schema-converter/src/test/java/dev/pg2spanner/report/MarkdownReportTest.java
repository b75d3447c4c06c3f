package dev.pg2spanner.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.Golden;
import dev.pg2spanner.plan.PlanFixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

class MarkdownReportTest {

  private static final String MD = MarkdownReport.render(PlanFixtures.shop());

  @Test
  void matchesTheGoldenFile() throws Exception {
    Golden.assertMatches("report/report.md.golden", MD);
    assertThat(MarkdownReport.render(PlanFixtures.shop())).isEqualTo(MD);
  }

  @Test
  void summarisesTablesRowsSizeAndFindings() {
    assertThat(MD).startsWith("# Migration plan: db.example.internal:5432/app\n");
    assertThat(MD).contains("on 2024-05-01 10:15 UTC");
    assertThat(MD).contains("| 4 | 58,050,000 (+ 1 unknown) | 21.8 GiB | 0 | 12 | 5 |");
  }

  @Test
  void explainsWhatEachKeyStrategyMeansForTheApplication() {
    assertThat(MD).contains("| public.orders | orders | bit-reversed | order_id | — |");
    assertThat(MD).contains("New ids are no longer ordered");
    assertThat(MD).contains("which skips 1–1,250,000 (the migrated range)");
    assertThat(MD).contains("reads by event_id must add the shard predicate (shard_id = "
        + "MOD(ABS(FARM_FINGERPRINT(...)), 16)) or scan all 16 shards");
    assertThat(MD).contains("**Key added**: the source table has no primary key");
    assertThat(MD).contains("**Interleaved in orders** ON DELETE CASCADE");
    assertThat(MD).contains("**Created after the load**: 1 index (events_by_order) and 1 foreign key "
        + "(events_order_fk)");
  }

  @Test
  void showsTypeChangesAndRenames() {
    assertThat(MD).contains("| occurred_at | timestamp without time zone | occurred_at | TIMESTAMP | no | "
        + "TIMESTAMP_WALL_CLOCK_AS_UTC |");
    assertThat(MD).contains("| User Name | text | user_name (renamed) | STRING(MAX) | yes | STRING |");
    assertThat(MD).contains("- **Renamed** from audit.log_entries to audit_log_entries.");
  }

  @Test
  void listsEveryObjectNotMigratedAndWhatIsDeferred() {
    String notMigrated = MD.substring(MD.indexOf("## Not migrated"), MD.indexOf("## Deferred"));
    assertThat(notMigrated).contains("| function | public.touch_updated_at() | — |",
        "| trigger | orders_audit | public.orders |", "| view | public.order_totals | — |");
    String deferred = MD.substring(MD.indexOf("## Deferred"));
    assertThat(deferred).contains("| orders_by_customer | orders | customer_id, created_at DESC | no | no | status "
        + "| — |", "| events_order_fk | events | order_id | orders (order_id) | NO ACTION |");
  }

  @Test
  void escapesNamesSoTheyCannotBreakTables() {
    // A pipe in a name would otherwise end the table cell.
    assertThat(MD).contains("| view | public.weird\\|view | — |");
    assertThat(MD).contains("| Note\\|Text | text | note_text (renamed) |");
    assertThat(MarkdownReport.esc("a*b_ _c <d> [e] `f` x_y")).isEqualTo("a\\*b\\_ \\_c \\<d\\> \\[e\\] \\`f\\` x_y");
    assertThat(MarkdownReport.cellCode("a|b")).isEqualTo("`a\\|b`");
    assertThat(MarkdownReport.code("a`b")).isEqualTo("``a`b``");
  }

  @Test
  void formatsSizesInBinaryUnits() {
    assertThat(MarkdownReport.size(0)).isEqualTo("0 B");
    assertThat(MarkdownReport.size(1536)).isEqualTo("1.5 KiB");
    assertThat(MarkdownReport.size(188_743_680)).isEqualTo("180 MiB");
    assertThat(MarkdownReport.size(22_548_578_304L)).isEqualTo("21.0 GiB");
  }

  @Test
  void listsSplitPointsOnlyWhenThePlanHasThem() {
    assertThat(MarkdownReport.render(PlanFixtures.shop())).doesNotContain("Pre-split");
    String md = MarkdownReport.render(PlanFixtures.withTable(PlanFixtures.shop(), 0,
        t -> t.withSplitPoints(java.util.List.of(java.util.List.of("100"), java.util.List.of("200"),
            java.util.List.of("300")))));
    assertThat(md).contains("## Pre-split before the load (real Spanner)").contains("| orders | 3 | 100 | 300 |");
    org.jsoup.nodes.Document html = org.jsoup.Jsoup.parse(HtmlReport.render(PlanFixtures.withTable(
        PlanFixtures.shop(), 0, t -> t.withSplitPoints(java.util.List.of(java.util.List.of("100"),
            java.util.List.of("300"))))));
    assertThat(html.select("#pre-split td").eachText()).containsExactly("orders", "2", "100", "300");
    assertThat(org.jsoup.Jsoup.parse(HtmlReport.render(PlanFixtures.shop())).select("#pre-split")).isEmpty();
  }

  @Test
  void givesEachCodesTitleAndRemedyOnceHoweverManyFindingsItHas() {
    List<Finding> findings = ReportFindings.all(PlanFixtures.shop());
    String codes = MD.substring(MD.indexOf("## Finding codes"));
    for (FindingCode code : List.of(FindingCode.NOT_MIGRATED, FindingCode.HOTSPOT_KEY, FindingCode.LOSSY_TYPE)) {
      long n = findings.stream().filter(f -> f.code() == code).count();
      assertThat(n).as("%s findings in the shop plan", code).isGreaterThan(1);
      assertThat(occurrences(MD, MarkdownReport.esc(code.remedy()))).as(code.name()).isEqualTo(1);
      assertThat(occurrences(MD, MarkdownReport.esc(code.title()))).as(code.name()).isEqualTo(1);
      assertThat(codes).contains("| " + code.name() + " | " + code.defaultSeverity().json() + " | " + n + " | "
          + MarkdownReport.esc(code.title()) + " | " + MarkdownReport.esc(code.remedy()) + " |");
    }
    // Only the codes that occur, in name order.
    assertThat(codes).doesNotContain("UNSUPPORTED_TYPE").doesNotContain("ROWS_NOT_VISIBLE");
    assertThat(codes.indexOf("| HOTSPOT_KEY |")).isLessThan(codes.indexOf("| LOSSY_TYPE |"));
    assertThat(MarkdownReport.render(PlanFixtures.withoutFindings(PlanFixtures.shop())))
        .endsWith("## Finding codes\n\nNo findings.\n");
  }

  static int occurrences(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
      n++;
    }
    return n;
  }
}
