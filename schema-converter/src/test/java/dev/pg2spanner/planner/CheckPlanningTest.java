package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.nullable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgCheck;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.fixtures.PgFixtures;
import dev.pg2spanner.mapping.ColumnEvidence;
import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.TablePlan;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Table CHECKs through the planner: translated with the columns' PostgreSQL and Spanner types. */
class CheckPlanningTest {

  private static final PgType NUMERIC = PgType.builtin("numeric", "numeric");

  private static TablePlan plan(List<PgColumn> columns, String check, Map<String, ColumnEvidence> evidence) {
    PgTable t = PgFixtures.table("t", 1, columns, List.of(), List.of());
    t = new PgTable(t.schema(), t.name(), t.kind(), t.columns(), t.primaryKey(), t.uniqueConstraints(),
        t.foreignKeys(), List.of(new PgCheck("t_check", check, true)), t.indexes(), t.partitioning(),
        t.inheritanceParents(), t.hasInheritanceChildren(), t.comment(), t.stats());
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(),
        Instant.parse("2026-11-21T12:00:00Z"), 0);
    return new Planner(options).plan(new PlanInputs(catalog(List.of(t), List.of()),
        Map.of("public.t", evidence), Map.of(), Map.of())).tables().get(0);
  }

  private static List<String> checks(TablePlan t) {
    return t.checks().stream().map(CheckPlan::expression).toList();
  }

  private static List<Finding> notTranslated(TablePlan t) {
    return t.findings().stream().filter(f -> f.code() == FindingCode.CHECK_NOT_TRANSLATED).toList();
  }

  @Test
  void aCheckOnAColumnSpannerHoldsAsAnotherTypeIsReported() {
    // Fixed: an unconstrained numeric without evidence that its values fit becomes STRING(MAX); "amount >= 0" on a
    // STRING column is not valid GoogleSQL and failed the V4 migration after the load.
    String check = "(amount >= (0)::numeric)";
    TablePlan text = plan(List.of(column("id", BIGINT), nullable("amount", NUMERIC)), check, Map.of());
    assertThat(text.column("amount").orElseThrow().targetType()).isEqualTo("STRING(MAX)");
    assertThat(checks(text)).isEmpty();
    assertThat(notTranslated(text)).singleElement().satisfies(f -> assertThat(f.message())
        .contains("Spanner holds its values as STRING(MAX), not as the numeric values PostgreSQL compares"));

    // The boundary: the same check on the same column, once the evidence says its values fit NUMERIC.
    ColumnEvidence fits = new ColumnEvidence("amount", false, 100, Map.of(ColumnEvidence.NUMERIC_NAN, 0L,
        ColumnEvidence.NUMERIC_INFINITY, 0L, ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, 0L,
        ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS, 0L, ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, 5L,
        ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, 2L));
    TablePlan numeric = plan(List.of(column("id", BIGINT), nullable("amount", NUMERIC)), check,
        Map.of("amount", fits));
    assertThat(numeric.column("amount").orElseThrow().targetType()).isEqualTo("NUMERIC");
    assertThat(checks(numeric)).containsExactly("amount >= 0");
  }

  @Test
  void aCheckSpannerRefusesForTheColumnsItUsesIsReportedAtPlanTime() {
    // Fixed (issue 28): CHECK (false) NO INHERIT became CHECK (FALSE), which Spanner refused after the load.
    List<PgColumn> columns = List.of(column("id", BIGINT), nullable("a", BIGINT), new PgColumn("g", 3, BIGINT, false,
        null, PgColumn.Identity.NONE, "(a * 2)", null, null, null, null));
    TablePlan constant = plan(columns, "false", Map.of());
    assertThat(checks(constant)).isEmpty();
    assertThat(notTranslated(constant)).singleElement().satisfies(f -> assertThat(f.message())
        .contains("uses no column, and Spanner requires a CHECK to depend on at least one column that is not "
            + "generated"));
    TablePlan generatedOnly = plan(columns, "(g > 0)", Map.of());
    assertThat(checks(generatedOnly)).isEmpty();
    assertThat(notTranslated(generatedOnly)).singleElement().satisfies(f -> assertThat(f.message())
        .contains("uses only generated columns"));
    assertThat(checks(plan(columns, "((g > 0) AND (a > 0))", Map.of()))).containsExactly("g > 0 AND a > 0");
  }

  @Test
  void aCheckThatOrdersTwoTextColumnsIsReported() {
    // Fixed: PostgreSQL orders text by the collation, Spanner by code point; only constants were caught before.
    List<PgColumn> columns = List.of(column("id", BIGINT), column("first_name", TEXT), column("last_name", TEXT));
    TablePlan t = plan(columns, "(first_name < last_name)", Map.of());
    assertThat(checks(t)).isEmpty();
    assertThat(notTranslated(t)).singleElement().satisfies(f -> assertThat(f.message()).contains("collation"));
    assertThat(checks(plan(columns, "(first_name <> last_name)", Map.of()))).containsExactly("first_name <> last_name");
  }

  @Test
  void checksThatUseCharNOrCitextValuesAreReported() {
    // Fixed: PostgreSQL ignores the blank padding of character(n) (char_length('ab '::char(3)) = 2, checked here)
    // and the case of citext; Spanner keeps the padding and compares case. A test for NULL is the same in both.
    PgType char3 = new PgType("pg_catalog", "bpchar", "character(3)", 3, null, null, false, 0, PgType.Kind.BASE,
        null, List.of(), false, List.of());
    PgType char5 = new PgType("pg_catalog", "bpchar", "character(5)", 5, null, null, false, 0, PgType.Kind.BASE,
        null, List.of(), false, List.of());
    List<PgColumn> padded = List.of(column("id", BIGINT), nullable("code", char3), nullable("other", char5));
    for (String check : List.of("(char_length(code) = 2)", "(code = other)", "((code)::text = 'ab'::text)")) {
      TablePlan t = plan(padded, check, Map.of());
      assertThat(checks(t)).as(check).isEmpty();
      assertThat(notTranslated(t)).singleElement().satisfies(f -> assertThat(f.message()).contains("blanks"));
    }
    assertThat(checks(plan(padded, "(code IS NOT NULL)", Map.of()))).containsExactly("code IS NOT NULL");

    PgType citext = new PgType("public", "citext", "citext", null, null, null, false, 0, PgType.Kind.BASE, null,
        List.of(), false, List.of());
    List<PgColumn> caseless = List.of(column("id", BIGINT), nullable("tag", citext), nullable("other", citext));
    TablePlan t = plan(caseless, "(tag = other)", Map.of());
    assertThat(checks(t)).isEmpty();
    assertThat(notTranslated(t)).singleElement().satisfies(f -> assertThat(f.message()).contains("case"));
    // Cast to text, a citext value is compared as text by PostgreSQL too.
    assertThat(checks(plan(caseless, "(char_length((tag)::text) > 0)", Map.of())))
        .containsExactly("CHAR_LENGTH(tag) > 0");
  }

  @Test
  void checksOnValuesSpannerHoldsAsTextOfAnotherTypeAreReported() {
    // Fixed: two unconstrained numerics without evidence become STRING(MAX) holding each value's decimal text;
    // PostgreSQL finds 1.0 = 1.00, Spanner finds '1.0' <> '1.00', so "a = b" rejected rows PostgreSQL holds.
    List<PgColumn> columns = List.of(column("id", BIGINT), nullable("a", NUMERIC), nullable("b", NUMERIC));
    for (String check : List.of("(a = b)", "((a)::text <> ''::text)")) {
      TablePlan t = plan(columns, check, Map.of());
      assertThat(checks(t)).as(check).isEmpty();
      assertThat(notTranslated(t)).singleElement().satisfies(f -> assertThat(f.message())
          .contains("Spanner holds its values as STRING(MAX)"));
    }
    assertThat(checks(plan(columns, "((a IS NOT NULL) OR (b IS NULL))", Map.of())))
        .containsExactly("a IS NOT NULL OR b IS NULL");
    // An interval is held as ISO 8601 text ('P1D'), not as the text PostgreSQL prints ('1 day').
    TablePlan interval = plan(List.of(column("id", BIGINT), nullable("every", PgType.builtin("interval",
        "interval"))), "((every)::text <> '1 day'::text)", Map.of());
    assertThat(checks(interval)).isEmpty();
    assertThat(notTranslated(interval)).singleElement().satisfies(f -> assertThat(f.message())
        .contains("Spanner holds its values as STRING(MAX), not as the interval values"));
  }
}
