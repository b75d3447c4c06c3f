package dev.pg2spanner.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.PlanFixtures;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.preflight.RowVisibility;
import dev.pg2spanner.report.JsonReport;
import dev.pg2spanner.report.MarkdownReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ROWS_NOT_VISIBLE finding plan adds, and how the plan and both reports carry it. */
class RowVisibilityFindingsTest {

  private static final RowVisibility.Role ROLE = new RowVisibility.Role("reader", false, false);
  private static final RowVisibility.Policy POLICY = new RowVisibility.Policy("mine", true, "SELECT",
      List.of("PUBLIC"), "(owner = CURRENT_USER)", true);

  private static List<Finding> hidden(TablePlan t) {
    return t.findings().stream().filter(f -> f.code() == FindingCode.ROWS_NOT_VISIBLE).toList();
  }

  @Test
  void aFilteredTableGetsOneErrorNamingRolePolicyAndTheWayOut() {
    Plan shop = PlanFixtures.shop();
    RowVisibility.Report report = new RowVisibility.Report(ROLE, List.of(
        new RowVisibility.Restriction("public.orders", "public.orders", false,
            RowVisibility.Problem.ROW_SECURITY, List.of(POLICY))));

    Plan plan = RowVisibilityFindings.attach(shop, report);

    TablePlan orders = plan.tableBySource("public.orders").orElseThrow();
    assertThat(hidden(orders)).hasSize(1);
    Finding f = hidden(orders).get(0);
    assertThat(f.severity()).isEqualTo(Severity.ERROR);
    assertThat(f.message()).contains("Role reader cannot see every row of public.orders")
        .contains("policy mine (FOR SELECT TO PUBLIC USING (owner = CURRENT_USER))")
        .contains("BYPASSRLS").contains("owner").contains("--accept-filtered-copy")
        .contains("plan again as the role that will migrate");
    assertThat(f.evidence()).containsEntry("role", "reader")
        .containsEntry("problems", List.of("ROW_SECURITY"))
        .containsEntry("policies", List.of("mine (FOR SELECT TO PUBLIC USING (owner = CURRENT_USER))"));
    // Only that table changes, and everything else it held is kept.
    assertThat(orders.findings()).hasSize(shop.tableBySource("public.orders").orElseThrow().findings().size() + 1);
    assertThat(plan.tables().stream().filter(t -> !t.source().equals("public.orders")).flatMap(t -> hidden(t)
        .stream())).isEmpty();

    // The plan file keeps it, and both reports show it.
    Plan reread = PlanFiles.fromYaml(PlanFiles.toYaml(plan), "plan.yaml");
    assertThat(hidden(reread.tableBySource("public.orders").orElseThrow())).hasSize(1);
    assertThat(JsonReport.render(plan)).contains("\"code\": \"ROWS_NOT_VISIBLE\"");
    assertThat(MarkdownReport.render(plan)).contains("**Rows the planning role cannot read** in 1 table(s): "
        + "public.orders").contains("ROWS_NOT_VISIBLE");
  }

  @Test
  void anUnreadablePartitionIsAnErrorWithoutTheFilteredCopyWayOut() {
    RowVisibility.Report report = new RowVisibility.Report(ROLE, List.of(
        new RowVisibility.Restriction("public.events", "public.events_2024", true, RowVisibility.Problem.NO_SELECT,
            List.of())));

    Finding f = hidden(RowVisibilityFindings.attach(PlanFixtures.shop(), report).tableBySource("public.events")
        .orElseThrow()).get(0);

    assertThat(f.message()).contains("public.events_2024 (a partition of public.events): no SELECT privilege")
        .contains("GRANT SELECT").doesNotContain("--accept-filtered-copy");
    assertThat(f.evidence()).containsEntry("relations", List.of("public.events_2024")).doesNotContainKey("policies");
  }

  @Test
  void aRoleThatReadsEverythingLeavesThePlanAsItIs() {
    Plan shop = PlanFixtures.shop();
    assertThat(RowVisibilityFindings.attach(shop, new RowVisibility.Report(ROLE, List.of()))).isSameAs(shop);
  }
}
