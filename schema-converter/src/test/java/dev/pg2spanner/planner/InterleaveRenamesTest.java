package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.fk;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, point 4: interleaving renames a child's key columns to the parent's names (Spanner requires it), which
 * breaks every query naming them: a warning by default, and {@code --interleave no-renames} keeps such a child
 * top-level instead, while a child whose names already match is still interleaved.
 */
class InterleaveRenamesTest {

  /** orders(id); lines(order_id, n) references orders(id): a rename; notes(id, n) references orders(id): none. */
  private static List<PgTable> tables() {
    return List.of(
        table("orders", 1, List.of(column("id", BIGINT)), List.of(), List.of()),
        table("lines", 2, List.of(column("order_id", BIGINT), column("n", BIGINT)),
            List.of(fk("lines_order_fkey", List.of("order_id"), "orders", List.of("id"), PgForeignKey.Action.CASCADE)),
            List.of()),
        table("notes", 2, List.of(column("id", BIGINT), column("n", BIGINT)),
            List.of(fk("notes_order_fkey", List.of("id"), "orders", List.of("id"), PgForeignKey.Action.CASCADE)),
            List.of()));
  }

  private static Plan plan(boolean withoutRenames) {
    PlannerOptions options = new PlannerOptions(3, false, "pg2spanner test", "db:5432/app", List.of(),
        Instant.parse("2026-11-23T12:00:00Z"), 0, Map.of(), withoutRenames);
    return new Planner(options).plan(new PlanInputs(catalog(tables(), List.of()), Map.of(), Map.of(), Map.of()));
  }

  private static TablePlan planned(Plan plan, String name) {
    return plan.tableBySource("public." + name).orElseThrow();
  }

  @Test
  void byDefaultTheChildIsInterleavedAndItsRenamedKeyColumnIsAWarning() {
    Plan plan = plan(false);
    TablePlan lines = planned(plan, "lines");
    assertThat(lines.interleave()).isNotNull();
    assertThat(lines.column("id")).as("order_id takes the parent's name").isPresent();
    assertThat(lines.findings()).filteredOn(f -> f.code() == FindingCode.NAME_CHANGED)
        .singleElement().extracting(Finding::severity).isEqualTo(Severity.WARNING);
  }

  @Test
  void noRenamesKeepsOnlyTheChildThatWouldBeRenamedTopLevel() {
    Plan plan = plan(true);
    TablePlan lines = planned(plan, "lines");
    assertThat(lines.interleave()).isNull();
    assertThat(lines.column("order_id")).as("the column keeps its name").isPresent();
    assertThat(lines.findings()).filteredOn(f -> f.code() == FindingCode.NOT_INTERLEAVED).extracting(Finding::message)
        .singleElement().asString().contains("order_id → id").contains("--interleave no-renames");
    assertThat(planned(plan, "notes").interleave()).as("a child that needs no rename").isNotNull();
  }
}
