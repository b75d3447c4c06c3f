package dev.pg2spanner.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TerminalSummaryTest {

  @Test
  void printsEachCodeWithWarningsOnceWithItsCountAndRemedy() {
    List<String> lines = TerminalSummary.findingCodes(PlanFixtures.shop());
    assertThat(lines.get(0)).isEqualTo("To do, once per finding code (report.md lists each finding):");
    // The shop plan's warnings: four NOT_MIGRATED findings, two HOTSPOT_KEY, two LOSSY_TYPE (one line each).
    assertThat(lines).contains("  NOT_MIGRATED (4 warnings): " + FindingCode.NOT_MIGRATED.remedy(),
        "  HOTSPOT_KEY (2 warnings): " + FindingCode.HOTSPOT_KEY.remedy(),
        "  INHERITANCE (1 warning): " + FindingCode.INHERITANCE.remedy());
    String all = String.join("\n", lines);
    for (FindingCode code : FindingCode.values()) {
      assertThat(MarkdownReportTest.occurrences(all, code.remedy())).as(code.name()).isLessThanOrEqualTo(1);
    }
    // Info-only codes stay in the reports.
    assertThat(all).doesNotContain("UNUSED_INDEX").doesNotContain("INTERLEAVE_CANDIDATE")
        .doesNotContain("STATISTICS_MISSING");
    assertThat(lines.subList(1, lines.size())).extracting(l -> l.substring(2, l.indexOf(' ', 2)))
        .containsExactly("FOREIGN_KEY_CHANGED", "HOTSPOT_KEY", "INHERITANCE", "LOSSY_TYPE", "MONOTONIC_INDEX",
            "NOT_MIGRATED", "NO_PRIMARY_KEY");
  }

  @Test
  void listsErrorsCodesFirstAndCountsEachSeverity() {
    Plan shop = PlanFixtures.shop();
    List<Finding> wide = new ArrayList<>(shop.findings());
    wide.add(Finding.of(FindingCode.UNSUPPORTED_TYPE, "public.zzz", "geom", null, "no type", Map.of()));
    wide.add(Finding.of(FindingCode.UNSUPPORTED_TYPE, "public.zzz", "geom2", null, "no type", Map.of()));
    wide.add(Finding.of(FindingCode.NOT_MIGRATED, null, null, null, "gone", Map.of())
        .withSeverity(dev.pg2spanner.finding.Severity.ERROR));
    Plan plan = new Plan(shop.formatVersion(), shop.generatedBy(), shop.generatedAt(), shop.source(), shop.target(),
        shop.tables(), shop.sequences(), wide);
    List<String> lines = TerminalSummary.findingCodes(plan);
    assertThat(lines.get(1)).isEqualTo("  NOT_MIGRATED (1 error, 4 warnings): " + FindingCode.NOT_MIGRATED.remedy());
    assertThat(lines.get(2)).isEqualTo("  UNSUPPORTED_TYPE (2 errors): " + FindingCode.UNSUPPORTED_TYPE.remedy());
    assertThat(lines.get(3)).startsWith("  FOREIGN_KEY_CHANGED (1 warning): ");
  }

  @Test
  void printsNothingWithoutErrorsOrWarnings() {
    assertThat(TerminalSummary.findingCodes(PlanFixtures.withoutFindings(PlanFixtures.shop()))).isEmpty();
  }
}
