package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.UUID;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.fk;
import static dev.pg2spanner.fixtures.PgFixtures.index;
import static dev.pg2spanner.fixtures.PgFixtures.nullable;
import static dev.pg2spanner.fixtures.PgFixtures.sequence;
import static dev.pg2spanner.fixtures.PgFixtures.serial;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgObject;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.mapping.ColumnEvidence;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL-dialect plan is designed in that dialect: the type mapping decides there (numeric once), and every
 * finding and key-strategy reason names types and quotes expressions as that dialect's DDL writes them. Nothing
 * rewrites the planner's prose afterwards, so this test plans one catalog that reaches every place that names a
 * type, in both dialects, and reads all the prose.
 */
class PostgresDialectProseTest {

  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  /** A GoogleSQL type name; "conversion TIMESTAMP" names a conversion, which both dialects spell alike. */
  private static final Pattern GOOGLE_TYPE = Pattern.compile("ARRAY<|\\b(?:STRING|BYTES)\\((?:MAX|\\d+)\\)"
      + "|(?<!conversion )\\b(?:INT64|FLOAT64|FLOAT32|BOOL|TIMESTAMP|JSON|NUMERIC|DATE)\\b|GoogleSQL syntax");

  private static final PgType NUMERIC = PgType.builtin("numeric", "numeric");
  private static final PgType TIMESTAMP = PgType.builtin("timestamp", "timestamp without time zone");
  private static final PgType JSONB = PgType.builtin("jsonb", "jsonb");

  private static PgCatalog catalog() {
    PgTable accounts = table("accounts", 1, List.of(serial("id", "public", "accounts_id_seq"), column("name", TEXT)),
        List.of(), List.of());
    PgTable customers = table("customers", 1, List.of(serial("id", "public", "customers_id_seq"),
        column("name", TEXT)), List.of(), List.of());
    PgTable invoices = table("invoices", 1, List.of(column("invoice_no", TEXT), nullable("customer_id", BIGINT)),
        List.of(fk("invoices_customer_fk", List.of("customer_id"), "customers", List.of("id"),
            PgForeignKey.Action.NO_ACTION)), List.of());
    PgTable devices = table("devices", 1, List.of(column("id", BIGINT)), List.of(), List.of());
    PgTable pageViews = table("page_views", 0, List.of(nullable("url", TEXT)), List.of(), List.of());
    PgTable events = table("events", 1, List.of(column("event_id", TEXT), nullable("at", TIMESTAMP),
        nullable("reading", NUMERIC), nullable("amount", NUMERIC), nullable("doc", JSONB)), List.of(),
        List.of(index("events_at_idx", false, "at"), index("events_doc_idx", false, "doc")));
    // A generated column whose expression gives a numeric value into a bigint column: not translated, with a reason.
    PgTable totals = table("totals", 1, List.of(column("id", BIGINT), nullable("price", NUMERIC), new PgColumn(
        "total", 3, BIGINT, false, null, PgColumn.Identity.NONE, "((id)::numeric * 1.5)", null, null, null, null)),
        List.of(), List.of());
    PgTable sessions = table("sessions", 1, List.of(column("id", UUID)), List.of(), List.of());
    return new PgCatalog("15.4", 150004, "app", List.of(accounts, customers, invoices, devices, pageViews, events,
        totals, sessions),
        List.of(sequence("public", "accounts_id_seq", 1, 500L, "public.accounts.id"),
            sequence("public", "customers_id_seq", 1, 500L, "public.customers.id")),
        List.of(), List.of(), List.of(new PgObject(PgObject.Kind.VIEW, "public", "recent_events", null, null)));
  }

  /** reading holds ±Infinity; amount has 40 integer digits (too many for GoogleSQL, fine for the PostgreSQL dialect). */
  private static Map<String, ColumnEvidence> eventEvidence() {
    return Map.of(
        "at", new ColumnEvidence("at", false, 100, Map.of(ColumnEvidence.TEMPORAL_INFINITY, 3L,
            ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, 0L, ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, 0L)),
        "reading", numeric(2, 0, 5),
        "amount", numeric(0, 1, 40));
  }

  private static ColumnEvidence numeric(long infinity, long nan, long integerDigits) {
    return new ColumnEvidence("n", false, 100, Map.of(ColumnEvidence.NUMERIC_NAN, nan,
        ColumnEvidence.NUMERIC_INFINITY, infinity,
        ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, integerDigits > 29 ? 1L : 0L,
        ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS, 0L,
        ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, integerDigits,
        ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, 0L));
  }

  private static Plan plan(SpannerDialect dialect) {
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 0,
        Map.of("public.devices", KeyStrategy.Kind.HASH_SHARD, "public.customers", KeyStrategy.Kind.UUID,
            "public.sessions", KeyStrategy.Kind.UUID))
        .withDialect(dialect);
    return new Planner(options).plan(new PlanInputs(catalog(), Map.of("public.events", eventEvidence()), Map.of(),
        Map.of("public.accounts", new PlanInputs.KeyRange(1, 500), "public.customers",
            new PlanInputs.KeyRange(1, 500))));
  }

  /** Every finding message and key-strategy reason of the plan. */
  private static List<String> prose(Plan plan) {
    List<String> all = new ArrayList<>();
    plan.findings().stream().map(Finding::message).forEach(all::add);
    for (TablePlan t : plan.tables()) {
      t.findings().stream().map(Finding::message).forEach(all::add);
      all.add(t.keyStrategy().reason());
    }
    return all;
  }

  private static List<String> namingGoogleSqlTypes(Plan plan) {
    return prose(plan).stream().filter(p -> GOOGLE_TYPE.matcher(p).find()).toList();
  }

  /**
   * One sentence of each place that names a type or quotes an expression, in GoogleSQL's words and in the PostgreSQL
   * dialect's.
   */
  private static final List<List<String>> SAME_SENTENCE = List.of(
      List.of("keeps id as INT64", "keeps id as bigint"),
      List.of("becomes STRING(36)", "becomes varchar(36)"),
      List.of("(INT64, NULL for new rows)", "(bigint, NULL for new rows)"),
      List.of("rows get random UUIDs (DEFAULT GENERATE_UUID())", "rows get random UUIDs (DEFAULT spanner.generate_uuid())"),
      List.of("random version-4 UUIDs (DEFAULT GENERATE_UUID())",
          "random version-4 UUIDs (DEFAULT spanner.generate_uuid())"),
      List.of("adds row_id STRING(36)", "adds row_id varchar(36)"),
      List.of("FARM_FINGERPRINT", "spanner.farm_fingerprint"),
      List.of("has values Spanner TIMESTAMP cannot hold", "has values Spanner timestamptz cannot hold"),
      List.of("does not fit Spanner NUMERIC", "does not fit Spanner numeric"),
      List.of("(GoogleSQL syntax)", "(in the PostgreSQL dialect)"),
      List.of("gives a NUMERIC value, but the column is INT64", "gives a numeric value, but the column is bigint"),
      List.of("column doc becomes JSON, which Spanner cannot index",
          "column doc becomes jsonb, which Spanner cannot index"));

  @Test
  void theCatalogReachesEveryPlaceThatNamesATypeInGoogleSql() {
    // Without this, the PostgreSQL-dialect assertion below could pass on a catalog that names no type at all.
    List<String> prose = prose(plan(SpannerDialect.GOOGLE_STANDARD_SQL));
    for (List<String> sentence : SAME_SENTENCE) {
      assertThat(prose).as("GoogleSQL: " + sentence.get(0)).anyMatch(p -> p.contains(sentence.get(0)));
    }
  }

  @Test
  void aPostgresDialectPlanNamesNoGoogleSqlTypeAnywhere() {
    Plan plan = plan(SpannerDialect.POSTGRESQL);
    assertThat(namingGoogleSqlTypes(plan)).isEmpty();
    List<String> prose = prose(plan);
    for (List<String> sentence : SAME_SENTENCE) {
      assertThat(prose).as("PostgreSQL dialect: " + sentence.get(1)).anyMatch(p -> p.contains(sentence.get(1)));
    }
    assertThat(prose).anyMatch(p -> p.contains("has values Spanner timestamptz cannot hold")
        && p.contains("varchar holding") && p.contains("with conversion TIMESTAMP_WALL_CLOCK_AS_UTC"));
  }

  @Test
  void numericIsDecidedOnceInTheDialectOfThePlan() {
    TablePlan google = plan(SpannerDialect.GOOGLE_STANDARD_SQL).tableBySource("public.events").orElseThrow();
    TablePlan postgres = plan(SpannerDialect.POSTGRESQL).tableBySource("public.events").orElseThrow();
    // 40 integer digits: too many for GoogleSQL's NUMERIC, none too many for the PostgreSQL dialect's numeric.
    assertThat(google.column("amount").map(ColumnPlan::conversion)).contains(ValueConversion.NUMERIC_TEXT);
    assertThat(postgres.column("amount").map(ColumnPlan::targetType)).contains("numeric");
    assertThat(postgres.column("amount").map(ColumnPlan::conversion)).contains(ValueConversion.NUMERIC);
    assertThat(postgres.findings()).noneMatch(f -> "amount".equals(f.column()));
    // ±Infinity fits neither: the exact text is kept, and the warning speaks of what this dialect cannot hold.
    assertThat(postgres.column("reading").map(ColumnPlan::targetType)).contains("varchar");
    assertThat(postgres.column("reading").map(ColumnPlan::conversion)).contains(ValueConversion.NUMERIC_TEXT);
    assertThat(postgres.findings()).filteredOn(f -> "reading".equals(f.column())).singleElement()
        .satisfies(f -> {
          assertThat(f.code()).isEqualTo(FindingCode.LOSSY_TYPE);
          assertThat(f.message()).contains("does not fit Spanner numeric: 2 ±Infinity").doesNotContain("digits");
        });
  }
}
