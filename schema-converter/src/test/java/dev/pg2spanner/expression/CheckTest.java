package dev.pg2spanner.expression;

import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** CHECK expressions exactly as PostgreSQL 15's pg_get_constraintdef prints them (captured from a real server). */
class CheckTest {

  private static final Map<String, ColumnRef> COLUMNS = Map.ofEntries(
      column("status", "status", "varchar", SpannerType.string(10), ValueConversion.STRING),
      column("quantity", "quantity", "int4", SpannerType.INT64, ValueConversion.INT64),
      column("price", "price", "numeric", SpannerType.NUMERIC, ValueConversion.NUMERIC),
      column("code", "code", "varchar", SpannerType.string(3), ValueConversion.STRING),
      column("email", "email", "text", SpannerType.STRING_MAX, ValueConversion.STRING),
      column("w", "w", "float8", SpannerType.FLOAT64, ValueConversion.FLOAT64),
      column("sd", "start_date", "date", SpannerType.DATE, ValueConversion.DATE),
      column("ed", "end_date", "date", SpannerType.DATE, ValueConversion.DATE),
      column("Order", "Order", "int4", SpannerType.INT64, ValueConversion.INT64),
      column("b1", "active", "bool", SpannerType.BOOL, ValueConversion.BOOL),
      column("ts", "ts", "timestamptz", SpannerType.TIMESTAMP, ValueConversion.TIMESTAMP),
      Map.entry("mo", ColumnRef.named("mood", new PgType("public", "mood", "mood", null, null, null, false, 0,
          PgType.Kind.ENUM, null, List.of(), false, List.of("sad", "ok")), SpannerType.STRING_MAX,
          ValueConversion.ENUM_TEXT)),
      column("Prix (€)", "Prix", "numeric", SpannerType.NUMERIC, ValueConversion.NUMERIC),
      column("select", "select", "int4", SpannerType.INT64, ValueConversion.INT64));

  private static Map.Entry<String, ColumnRef> column(String pgName, String spannerName, String pgType,
      SpannerType spannerType, ValueConversion conversion) {
    return Map.entry(pgName, ColumnRef.named(spannerName, PgType.builtin(pgType, pgType), spannerType, conversion));
  }

  private static Translation check(String pg) {
    return ExpressionTranslator.check(GOOGLE_STANDARD_SQL, pg, COLUMNS);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '^', value = {
      "((status)::text = ANY ((ARRAY['new'::character varying, 'paid'::character varying])::text[])) "
          + "| status IN ('new', 'paid')",
      "(quantity > 0) | quantity > 0",
      "((price >= (0)::numeric) AND (price <= (1000)::numeric)) | price >= 0 AND price <= 1000",
      "(char_length((code)::text) = 3) | CHAR_LENGTH(code) = 3",
      "(length(email) <= 100) | CHAR_LENGTH(email) <= 100",
      "(sd < ed) | start_date < end_date",
      "((\"Order\" IS NOT NULL) OR (quantity IS NULL)) | `Order` IS NOT NULL OR quantity IS NULL",
      "(NOT ((quantity = 5) AND (price > (2)::numeric))) | NOT (quantity = 5 AND price > 2)",
      "(email = ANY ('{a,b}'::text[])) | email IN ('a', 'b')",
      "((status)::text <> ALL ((ARRAY['x'::character varying, 'y'::character varying])::text[])) "
          + "| status NOT IN ('x', 'y')",
      "((status)::text <> 'x'::text) | status <> 'x'",
      "(price > '-0.5'::numeric) | price > NUMERIC '-0.5'",
      "(quantity <> '-1'::integer) | quantity <> -1",
      "(((quantity * 2) + 1) < 100) | quantity * 2 + 1 < 100",
      "(((quantity)::numeric / (2)::numeric) > 1.5) | quantity / NUMERIC '2' > NUMERIC '1.5'",
      "(w > (1.5)::double precision) | w > 1.5",
      "(sd > '2020-01-01'::date) | start_date > DATE '2020-01-01'",
      "(ts > '2020-01-01 00:00:00+00'::timestamp with time zone) | ts > TIMESTAMP '2020-01-01 00:00:00+00'",
      "b1 | active",
      "(NOT b1) | NOT active",
      "((quantity >= 1) AND (quantity <= 10) OR (quantity = 100)) | (quantity >= 1 AND quantity <= 10) OR quantity = 100",
      "(((quantity > 0) OR (price > (0)::numeric)) AND (status IS NOT NULL)) "
          + "| (quantity > 0 OR price > 0) AND status IS NOT NULL",
      "(quantity BETWEEN 1 AND 10) | quantity BETWEEN 1 AND 10",
      "((quantity - (- 1)) > 0) | quantity - -1 > 0",
      "((- (- quantity)) > 0) | -(-quantity) > 0",
      "((quantity - (price - (1)::numeric)) > (0)::numeric) | quantity - (price - NUMERIC '1') > 0",
      "(\"Prix (€)\" > (0)::numeric) | Prix > 0",
      "(\"select\" > 0) | `select` > 0",
      "((status)::text = ANY ((ARRAY['it''s'::character varying, 'back\\slash'::character varying])::text[])) "
          + "| status IN (\"it's\", 'back\\\\slash')",
      "((quantity > 0)) NOT VALID | quantity > 0",
      "(w > ('-10'::integer)::double precision) | w > -10",
      "(w > ('2.5'::numeric)::double precision) | w > 2.5",
  })
  void translates(String pg, String expected) {
    Translation t = check(pg);
    assertThat(t.translated()).as(t.reason()).isTrue();
    assertThat(t.expression()).isEqualTo(expected);
  }

  @Test
  void aZoneLessTimestampConstantIsReadAsUtcAndSaysSo() {
    Translation t = check("(ts > '2020-01-01 00:00:00'::timestamp without time zone)");
    assertThat(t.expression()).isEqualTo("ts > TIMESTAMP '2020-01-01 00:00:00+00'");
    assertThat(t.reason()).contains("UTC");
  }

  @Test
  void refusesConcatenation() {
    Translation t = check("((email || 'x'::text) <> 'y'::text)");
    assertThat(t.translated()).isFalse();
    assertThat(t.reason()).contains("concatenation (||)");
  }

  @Test
  void acceptsTheFullConstraintDefinitionToo() {
    assertThat(check("CHECK ((quantity > 0))").expression()).isEqualTo("quantity > 0");
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '^', value = {
      "(email ~ '@'::text) | regular expression",
      "(email ~~ '%@%'::text) | LIKE",
      "(lower(email) = email) | calls lower()",
      "((quantity / 2) > 1) | integer division",
      "((quantity % 2) = 0) | modulo",
      "(email > 'm'::text) | collation",
      "(code = 'ab'::bpchar) | trailing spaces",
      "(mo <> 'sad'::mood) | type mood",
      "((price)::integer > 0) | may change its value",
      "((price)::numeric(10,2) > (0)::numeric) | may change its value",
      "(unknown_col > 0) | unknown_col, which is not a column",
      "(t.quantity > 0) | qualified name",
      "(quantity > ANY (ARRAY[1, 2])) | > ANY",
      "(ts < now()) | calls now()",
      "(sd < CURRENT_DATE) | CURRENT_DATE",
      "(EXISTS (SELECT 1)) | EXISTS",
      "(CASE WHEN (quantity > 0) THEN true ELSE false END) | CASE",
      "((quantity IS TRUE)) | IS TRUE",
      "(quantity = ANY (ARRAY[price, 2])) | non-constant item",
      "(email = ANY ('{}'::text[])) | empty list",
      "(quantity > 0 | not understood",
      "(quantity > ('1.5'::numeric)::integer) | casts a constant twice",
      "(quantity + 1) | not a boolean",
  })
  void refusesWhatItCannotTranslateFaithfully(String pg, String reason) {
    Translation t = check(pg);
    assertThat(t.translated()).as(t.expression()).isFalse();
    assertThat(t.reason()).contains(reason).startsWith("the check ");
  }

  @Test
  void generatedColumnsTranslateWhenTheResultIsTheColumnsType() {
    assertThat(ExpressionTranslator.generated(GOOGLE_STANDARD_SQL,
        "(quantity * 2)", COLUMNS, SpannerType.INT64).expression())
        .isEqualTo("quantity * 2");
    assertThat(ExpressionTranslator.generated(GOOGLE_STANDARD_SQL,
        "length((email)::text)", COLUMNS, SpannerType.INT64).expression())
        .isEqualTo("CHAR_LENGTH(email)");
    // An integer feeds a NUMERIC column unchanged.
    assertThat(ExpressionTranslator.generated(GOOGLE_STANDARD_SQL,
        "(quantity + 1)", COLUMNS, SpannerType.NUMERIC).translated()).isTrue();
    assertThat(ExpressionTranslator.generated(GOOGLE_STANDARD_SQL,
        "(price * (quantity)::numeric)", COLUMNS, SpannerType.NUMERIC)
        .translated()).isTrue();
    // A boolean generated column, as before.
    assertThat(ExpressionTranslator.generated(GOOGLE_STANDARD_SQL,
        "(quantity > 0)", COLUMNS, SpannerType.BOOL).expression())
        .isEqualTo("quantity > 0");
    // The wrong type, or what the translator never writes, is refused with the reason.
    assertThat(ExpressionTranslator.generated(GOOGLE_STANDARD_SQL, "(price * 2)", COLUMNS, SpannerType.INT64).reason())
        .contains("gives a NUMERIC value, but the column is INT64");
    assertThat(ExpressionTranslator.generated(GOOGLE_STANDARD_SQL,
        "upper(email)", COLUMNS, SpannerType.STRING_MAX).translated())
        .isFalse();
  }
}
