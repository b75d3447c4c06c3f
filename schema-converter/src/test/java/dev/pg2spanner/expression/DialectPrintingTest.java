package dev.pg2spanner.expression;

import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One translation, printed in both dialects: PostgreSQL's own text in, the GoogleSQL and the PostgreSQL-dialect text
 * out, from the same typed expression (nothing reads the GoogleSQL back).
 */
class DialectPrintingTest {

  private static final SpannerDialect PG = SpannerDialect.POSTGRESQL;
  private static final SpannerDialect GSQL = SpannerDialect.GOOGLE_STANDARD_SQL;

  private static final Map<String, ColumnRef> COLUMNS = Map.ofEntries(
      column("done", "done", "int4", SpannerType.INT64),
      column("Group", "Group", "int4", SpannerType.INT64),
      column("select", "select", "int4", SpannerType.INT64),
      column("feeling", "feeling", "text", SpannerType.STRING_MAX),
      column("code", "code", "varchar", SpannerType.string(4)),
      column("price", "price", "numeric", SpannerType.NUMERIC),
      column("cost", "cost", "numeric", SpannerType.NUMERIC),
      column("x", "x", "int4", SpannerType.INT64));

  private static Map.Entry<String, ColumnRef> column(String pg, String spanner, String type, SpannerType target) {
    ValueConversion conversion = switch (target.base()) {
      case INT64 -> ValueConversion.INT64;
      case NUMERIC -> ValueConversion.NUMERIC;
      default -> ValueConversion.STRING;
    };
    return Map.entry(pg, ColumnRef.named(spanner, PgType.builtin(type, type), target, conversion));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '^', value = {
      "((done >= 0) AND (done <= 100)) | done >= 0 AND done <= 100 | done >= 0 AND done <= 100",
      "(\"Group\" > 0) | `Group` > 0 | \"Group\" > 0",
      "(\"select\" <> ALL ('{1,2}'::integer[])) | `select` NOT IN (1, 2) | \"select\" NOT IN (1, 2)",
      "(feeling = ANY (ARRAY['happy'::text, 'it''s ok'::text])) | feeling IN ('happy', \"it's ok\") "
          + "| feeling IN ('happy', 'it''s ok')",
      "(char_length((code)::text) <= 4) | CHAR_LENGTH(code) <= 4 | length(code) <= 4",
      "(NOT ((x >= 1) AND (x <= 2))) | NOT (x >= 1 AND x <= 2) | NOT (x >= 1 AND x <= 2)",
      "((price * (2)::numeric) > (cost + 1.5)) | price * NUMERIC '2' > cost + NUMERIC '1.5' "
          + "| price * '2'::numeric > cost + '1.5'::numeric",
      "(feeling = 'back\\slash'::text) | feeling = 'back\\\\slash' | feeling = 'back\\slash'"})
  void aCheckIsPrintedInEachDialect(String pg, String googleSql, String postgres) {
    Translation t = ExpressionTranslator.check(GOOGLE_STANDARD_SQL, pg, COLUMNS);
    assertThat(t.expression()).isEqualTo(googleSql);
    assertThat(t.in(GSQL)).contains(googleSql);
    assertThat(t.in(PG)).contains(postgres);
  }

  @ParameterizedTest(name = "{0} as {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '^', value = {
      "gen_random_uuid() | STRING(36) | GENERATE_UUID() | spanner.generate_uuid()",
      "now() | TIMESTAMP | CURRENT_TIMESTAMP() | CURRENT_TIMESTAMP",
      "12.50 | NUMERIC | NUMERIC '12.5' | '12.5'::numeric",
      "'2024-01-31'::date | DATE | DATE '2024-01-31' | '2024-01-31'::date",
      "'2024-01-31 10:00:00+00'::timestamp with time zone | TIMESTAMP | TIMESTAMP '2024-01-31 10:00:00+00' "
          + "| '2024-01-31 10:00:00+00'::timestamptz",
      "'\\x00ff'::bytea | BYTES(MAX) | b'\\x00\\xff' | '\\x00ff'::bytea",
      "'{a,b}'::text[] | ARRAY<STRING(MAX)> | ['a', 'b'] | ARRAY['a', 'b']",
      "'{1,-2}'::integer[] | ARRAY<INT64> | [1, -2] | ARRAY[1, -2]",
      "true | BOOL | TRUE | TRUE",
      "'-5'::integer | INT64 | -5 | -5"})
  void aDefaultIsPrintedInEachDialect(String pg, String target, String googleSql, String postgres) {
    Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, pg, null, SpannerType.parse(target));
    assertThat(t.expression()).isEqualTo(googleSql);
    assertThat(t.in(PG)).contains(postgres);
  }

  @ParameterizedTest(name = "{0} as {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '^', value = {
      "CURRENT_DATE | DATE",
      "'{}'::jsonb | JSON",
      "'{}'::text[] | ARRAY<STRING(MAX)>"})
  void whatThePostgresDialectCannotHoldAsWrittenIsNotPrintedThere(String pg, String target) {
    Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, pg, null, SpannerType.parse(target));
    assertThat(t.translated()).as("translated for GoogleSQL").isTrue();
    assertThat(t.in(GSQL)).isPresent();
    assertThat(t.in(PG)).isEmpty();
  }

  @Test
  void aStringWithAControlCharacterIsNotPrintedInThePostgresDialect() {
    Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL,
        "'line\nbreak'::text", null, SpannerType.STRING_MAX);
    assertThat(t.expression()).isEqualTo("'line\\nbreak'");
    assertThat(t.in(PG)).isEmpty();
  }

  @Test
  void aTemplateIsWrittenForItsColumnAndSaysWhichColumnsItReads() {
    SpannerExpression template = SpannerExpression.seq(SpannerExpression.placeholder(),
        SpannerExpression.token(" IN ("), SpannerExpression.joined(", ", List.of(SpannerExpression.string("G"),
            SpannerExpression.string("it's"))), SpannerExpression.token(")"));
    assertThat(template.usesPlaceholder()).isTrue();
    assertThat(template.columns()).isEmpty();
    assertThat(template.googleSql()).isEqualTo("{col} IN ('G', \"it's\")");
    SpannerExpression written = template.withColumn("Order");
    assertThat(written.usesPlaceholder()).isFalse();
    assertThat(written.columns()).containsExactly("Order");
    assertThat(written.googleSql()).isEqualTo("`Order` IN ('G', \"it's\")");
    assertThat(written.in(PG)).contains("\"Order\" IN ('G', 'it''s')");
  }

  @Test
  void aCheckSaysWhichColumnsItReadsByTheirSpannerNames() {
    Translation t = ExpressionTranslator.check(GOOGLE_STANDARD_SQL, "((\"Group\" > 0) AND (x IS NOT NULL))", COLUMNS);
    assertThat(t.value().columns()).containsExactlyInAnyOrder("Group", "x");
  }
}
