package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
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

  @Test
  void aPrimaryKeyLongerThanSpannerAllowsInTheDataGetsASyntheticKeySoEveryRowArrives() {
    PgTable codes = table("codes", 1, List.of(column("code", TEXT), column("note", TEXT)), List.of(), List.of());
    // 8,192 bytes is the longest key Spanner takes: kept.
    Plan atLimit = planWithKeyBytes(List.of(codes), Map.of("public.codes", Map.of(KeyBytes.PRIMARY_KEY, 8192L)));
    assertThat(atLimit.tables().get(0).keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    Plan over = planWithKeyBytes(List.of(codes), Map.of("public.codes", Map.of(KeyBytes.PRIMARY_KEY, 8193L)));
    assertThat(PlanValidator.problems(over)).isEmpty();
    TablePlan t = over.tables().get(0);
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.SYNTHETIC);
    assertThat(t.primaryKey()).extracting(KeyPart::column).containsExactly("row_id");
    assertThat(t.column("code")).isPresent();
    assertThat(t.findings()).filteredOn(f -> f.code() == FindingCode.KEY_LIMIT).singleElement().satisfies(f -> {
      assertThat(f.severity()).isEqualTo(Severity.WARNING);
      assertThat(f.message()).contains("is 8193 bytes; Spanner allows 8192 bytes per key")
          .contains("every row arrives");
    });
    assertThat(t.findings()).extracting(Finding::code).doesNotContain(FindingCode.NO_PRIMARY_KEY);
  }

  @Test
  void anIndexLongerThanSpannerAllowsInTheDataIsLeftOutWithWhatWouldKeepItsLookups() {
    PgTable t = table("docs", 1, List.of(column("id", BIGINT), column("f1", TEXT)), List.of(),
        List.of(index("docs_f1", true, "f1"), index("docs_id_f1", false, "id")));
    Plan plan = planWithKeyBytes(List.of(t), Map.of("public.docs", Map.of(KeyBytes.PRIMARY_KEY, 8L, "docs_f1", 36044L,
        "docs_id_f1", 16L)));
    assertThat(PlanValidator.problems(plan)).isEmpty();
    TablePlan docs = plan.tables().get(0);
    assertThat(docs.indexes()).extracting(IndexPlan::source).containsExactly("docs_id_f1");
    assertThat(docs.findings()).filteredOn(f -> f.code() == FindingCode.KEY_LIMIT).singleElement().satisfies(f -> {
      assertThat(f.index()).isEqualTo("docs_f1");
      assertThat(f.severity()).isEqualTo(Severity.WARNING);
      assertThat(f.message()).contains("keys of up to 36044 bytes").contains("leaves the index out")
          .contains("no longer enforces the uniqueness of (f1)").contains("SHA256(f1)").contains("SUBSTR(f1, 1, 1000)");
    });
  }

  @Test
  void aChildIsNotInterleavedInAParentWhoseKeyIsTooLong() {
    PgTable parent = table("parent", 1, List.of(column("code", TEXT)), List.of(), List.of());
    PgTable child = table("child", 2, List.of(column("code", TEXT), column("n", BIGINT)),
        List.of(dev.pg2spanner.fixtures.PgFixtures.fk("child_parent_fkey", List.of("code"), "parent", List.of("code"),
            dev.pg2spanner.catalog.PgForeignKey.Action.CASCADE)), List.of());
    assertThat(planWithKeyBytes(List.of(parent, child), Map.of()).tableBySource("public.child").orElseThrow()
        .interleave()).isNotNull();
    Plan plan = planWithKeyBytes(List.of(parent, child), Map.of("public.parent", Map.of(KeyBytes.PRIMARY_KEY,
        9000L)));
    assertThat(PlanValidator.problems(plan)).isEmpty();
    TablePlan planned = plan.tableBySource("public.child").orElseThrow();
    assertThat(planned.interleave()).isNull();
    assertThat(planned.findings()).filteredOn(f -> f.code() == FindingCode.NOT_INTERLEAVED).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("the parent's primary key values are longer than Spanner's"));
  }

  private static Plan planWithKeyBytes(List<PgTable> tables, Map<String, Map<String, Long>> keyBytes) {
    PlannerOptions options = new PlannerOptions(3, false, "pg2spanner test", "db:5432/app", List.of(),
        Instant.parse("2026-11-23T12:00:00Z"), 0);
    return new Planner(options).plan(new PlanInputs(catalog(tables, List.of()), Map.of(), Map.of(), Map.of(),
        Map.of(), keyBytes));
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
