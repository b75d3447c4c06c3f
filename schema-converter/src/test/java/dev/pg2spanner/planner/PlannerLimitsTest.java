package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.index;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanValidator;
import dev.pg2spanner.plan.TablePlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The key-column limits the planner applies, at their boundary (the depth limit: InterleaveDepthTest). */
class PlannerLimitsTest {

  @Test
  void sixteenKeyColumnsAreKeptSeventeenGetAValidSyntheticKey() {
    TablePlan sixteen = plan(table("wide", 16, columns(17), List.of(), List.of()));
    assertThat(sixteen.primaryKey()).hasSize(16);
    assertThat(sixteen.findings()).extracting(Finding::code).doesNotContain(FindingCode.KEY_LIMIT);

    // The planner never writes a plan its validator refuses (issue 15): a 17-column key becomes a synthetic key.
    Plan plan = planOf(table("wide", 17, columns(17), List.of(), List.of()));
    TablePlan seventeen = plan.tables().get(0);
    assertThat(seventeen.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.SYNTHETIC);
    assertThat(seventeen.primaryKey()).extracting(KeyPart::column).containsExactly("row_id");
    assertThat(seventeen.columns()).extracting(ColumnPlan::target).contains("c0", "c16");
    assertThat(seventeen.findings()).filteredOn(f -> f.code() == FindingCode.KEY_LIMIT).singleElement()
        .satisfies(f -> assertThat(f.message()).startsWith("The primary key has 17 columns; Spanner allows 16. "
            + "The plan gives public.wide a synthetic key"))
        .extracting(Finding::severity).isEqualTo(Severity.WARNING);
    assertThat(PlanValidator.problems(plan)).isEmpty();
  }

  @Test
  void indexesOfSixteenColumnsMigrateSeventeenDoNot() {
    TablePlan sixteen = plan(table("wide", 1, columns(18), List.of(), List.of(wideIndex(16))));
    assertThat(sixteen.indexes()).extracting(IndexPlan::source).containsExactly("wide_idx");
    assertThat(sixteen.indexes().get(0).columns()).hasSize(16);

    TablePlan seventeen = plan(table("wide", 1, columns(18), List.of(), List.of(wideIndex(17))));
    assertThat(seventeen.indexes()).isEmpty();
    assertThat(seventeen.findings()).filteredOn(f -> f.code() == FindingCode.NOT_MIGRATED)
        .extracting(Finding::message)
        .containsExactly("Index wide_idx is not migrated: it has more than 16 key columns.");
  }

  /** c0 … c(n − 1), all bigint NOT NULL. */
  private static List<PgColumn> columns(int n) {
    List<PgColumn> columns = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      columns.add(column("c" + i, BIGINT));
    }
    return columns;
  }

  /**
   * An index over c0 … c(n − 1), the table's key c0 included: Spanner counts an index's columns together with the
   * table's key columns, so this index is within both counts up to 16.
   */
  private static PgIndex wideIndex(int n) {
    String[] names = new String[n];
    for (int i = 0; i < n; i++) {
      names[i] = "c" + i;
    }
    return index("wide_idx", false, names);
  }

  @Test
  void anIndexThatListsAColumnTwiceKeepsItsFirstOccurrenceAndSaysSo() {
    // CREATE INDEX ON t (f1, id, f1 text_pattern_ops): legal in PostgreSQL, refused by Spanner (issue 28).
    PgTable t = table("t", 1, columns(2), List.of(), List.of(index("t_f1", false, "c1", "c0", "c1")));
    Plan plan = planOf(t);
    assertThat(PlanValidator.problems(plan)).isEmpty();
    TablePlan planned = plan.tables().get(0);
    assertThat(planned.indexes()).singleElement().satisfies(i -> assertThat(i.columns())
        .extracting(KeyPart::column).containsExactly("c1", "c0"));
    assertThat(planned.findings()).filteredOn(f -> f.code() == FindingCode.INDEX_CHANGED).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("t_f1 lists c1 more than once")
            .contains("keeps only the first occurrence"));
  }

  private static TablePlan plan(PgTable table) {
    return planOf(table).tables().get(0);
  }

  private static Plan planOf(PgTable table) {
    PlannerOptions options = new PlannerOptions(3, false, "pg2spanner test", "db:5432/app", List.of(),
        Instant.parse("2026-11-23T12:00:00Z"), 0);
    return new Planner(options).plan(new PlanInputs(catalog(List.of(table), List.of()), Map.of(), Map.of(),
        Map.of()));
  }
}
