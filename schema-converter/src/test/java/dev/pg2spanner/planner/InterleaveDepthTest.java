package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.fk;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanValidator;
import dev.pg2spanner.plan.TablePlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Spanner's interleaving depth limit at its exact boundary, where the planner and the plan validator must agree:
 * a hierarchy of seven levels (a top-level table and six below it) passes both, eight fail both. Spanner counts the
 * top-level table as the first level (the emulator rejects the eighth with "Table T7 is too deeply nested; the
 * limit is 7").
 */
class InterleaveDepthTest {

  @Test
  void theDeepestHierarchySpannerAllowsIsPlannedAndValid() {
    Plan plan = plan(chain(7));
    for (int level = 1; level < 7; level++) {
      assertThat(planned(plan, level).interleave()).as("t" + level).isNotNull();
      assertThat(planned(plan, level).interleave().parent()).isEqualTo("t" + (level - 1));
    }
    assertThat(PlanValidator.problems(plan)).isEmpty();
  }

  @Test
  void oneLevelDeeperIsNeitherPlannedNorValid() {
    Plan plan = plan(chain(8));
    assertThat(planned(plan, 6).interleave()).isNotNull();
    TablePlan eighth = planned(plan, 7);
    assertThat(eighth.interleave()).isNull();
    assertThat(eighth.findings()).filteredOn(f -> f.code() == FindingCode.NOT_INTERLEAVED)
        .extracting(Finding::message)
        .containsExactly("public.t7 is not interleaved in public.t6: the hierarchy would be 8 levels deep; Spanner "
            + "allows 7");
    assertThat(PlanValidator.problems(plan)).isEmpty();

    // The same eighth level written into the plan by hand.
    List<TablePlan> edited = new ArrayList<>(plan.tables());
    edited.set(7, new TablePlan(eighth.source(), eighth.readOnly(), eighth.target(), eighth.rowsEstimate(),
        eighth.bytesEstimate(), eighth.columns(), eighth.primaryKey(), eighth.keyStrategy(),
        new Interleave("t6", Interleave.OnDelete.CASCADE, null), eighth.indexes(), eighth.foreignKeys(),
        eighth.checks(), eighth.findings()));
    Plan handEdited = new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(),
        plan.target(), edited, plan.sequences(), plan.findings());
    assertThat(PlanValidator.problems(handEdited)).containsExactly("tables[7].interleave: interleaving depth 8 "
        + "exceeds Spanner's limit of 7 (t7 → t6 → t5 → t4 → t3 → t2 → t1 → t0); make one of its ancestors "
        + "top-level");
  }

  /**
   * Tables t0 … t(levels − 1): t(i) is keyed by k0 … k(i) and references t(i − 1) by k0 … k(i − 1), so each is an
   * interleave candidate in the one before it.
   */
  private static List<PgTable> chain(int levels) {
    List<PgTable> tables = new ArrayList<>();
    List<PgColumn> columns = new ArrayList<>();
    List<String> key = new ArrayList<>();
    for (int level = 0; level < levels; level++) {
      columns.add(column("k" + level, BIGINT));
      List<PgForeignKey> fks = level == 0 ? List.of() : List.of(fk("t" + level + "_t" + (level - 1) + "_fkey",
          List.copyOf(key), "t" + (level - 1), List.copyOf(key), PgForeignKey.Action.CASCADE));
      key.add("k" + level);
      tables.add(table("t" + level, level + 1, List.copyOf(columns), fks, List.of()));
    }
    return tables;
  }

  private static Plan plan(List<PgTable> tables) {
    PlannerOptions options = new PlannerOptions(3, false, "pg2spanner test", "db:5432/app", List.of(),
        Instant.parse("2026-11-23T12:00:00Z"), 0);
    return new Planner(options).plan(new PlanInputs(catalog(tables, List.of()), Map.of(), Map.of(), Map.of()));
  }

  private static TablePlan planned(Plan plan, int level) {
    return plan.tableBySource("public.t" + level).orElseThrow();
  }
}
