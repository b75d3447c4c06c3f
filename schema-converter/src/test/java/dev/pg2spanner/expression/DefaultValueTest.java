package dev.pg2spanner.expression;

import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Defaults exactly as PostgreSQL 15's pg_get_expr prints them (captured from a real server). */
class DefaultValueTest {

  private static final PgType TEXT = PgType.builtin("text", "text");
  private static final PgType TIMESTAMPTZ = PgType.builtin("timestamptz", "timestamp with time zone");
  private static final PgType TIMESTAMP = PgType.builtin("timestamp", "timestamp without time zone");

  private static Translation translate(String pg, String target) {
    return ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, pg, TEXT, SpannerType.parse(target));
  }

  @ParameterizedTest(name = "{0} as {1} -> {2}")
  @CsvSource(delimiter = '|', quoteCharacter = '^', value = {
      "'abc'::text                                 | STRING(MAX) | 'abc'",
      "'it''s \\ x'::character varying             | STRING(10)  | \"it's \\\\ x\"",
      "'ab'::bpchar                                | STRING(3)   | 'ab'",
      "42                                          | INT64       | 42",
      "'-1'::integer                               | INT64       | -1",
      "'5000000000'::bigint                        | INT64       | 5000000000",
      "1.5                                         | NUMERIC     | NUMERIC '1.5'",
      "'-1.5'::numeric                             | NUMERIC     | NUMERIC '-1.5'",
      "0                                           | NUMERIC     | NUMERIC '0'",
      "1.5                                         | FLOAT64     | 1.5",
      "'-2.5'::numeric                             | FLOAT64     | -2.5",
      "true                                        | BOOL        | TRUE",
      "false                                       | BOOL        | FALSE",
      "'2020-01-01'::date                          | DATE        | DATE '2020-01-01'",
      "'2020-01-01 08:00:00+00'::timestamp with time zone | TIMESTAMP | TIMESTAMP '2020-01-01 08:00:00+00'",
      "'2020-01-01 05:30:00+05:30'::timestamp with time zone | TIMESTAMP | TIMESTAMP '2020-01-01 05:30:00+05:30'",
      "'{}'::text[]                                | ARRAY<STRING(MAX)> | []",
      "ARRAY['a'::text, 'b'::text]                 | ARRAY<STRING(MAX)> | ['a', 'b']",
      "'{1,2}'::integer[]                          | ARRAY<INT64> | [1, 2]",
      "'{a,\"b c\",NULL}'::text[]                  | ARRAY<STRING(MAX)> | ['a', 'b c', NULL]",
      "'{\"a\": 1, \"b\": \"x\\\"y\"}'::jsonb      | JSON        | JSON '{\"a\": 1, \"b\": \"x\\\\\"y\"}'",
      "'{\"a\":1}'::json                           | JSON        | JSON '{\"a\":1}'",
      "'\\x0102ff'::bytea                          | BYTES(MAX)  | b'\\x01\\x02\\xff'",
      "gen_random_uuid()                           | STRING(36)  | GENERATE_UUID()",
      "uuid_generate_v4()                          | STRING(MAX) | GENERATE_UUID()",
      "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid | STRING(36) | 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
      "statement_timestamp()                       | TIMESTAMP   | CURRENT_TIMESTAMP()",
  })
  void translatesConstantsAndFunctions(String pg, String target, String expected) {
    Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, pg, TIMESTAMPTZ, SpannerType.parse(target));
    assertThat(t.translated()).as(t.reason()).isTrue();
    assertThat(t.expression()).isEqualTo(expected);
  }

  @Test
  void currentTimeFunctionsBecomeCurrentTimestampWithANoteOnTheDifference() {
    for (String pg : List.of("now()", "CURRENT_TIMESTAMP", "transaction_timestamp()", "CURRENT_TIMESTAMP(3)")) {
      Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, pg, TIMESTAMPTZ, SpannerType.TIMESTAMP);
      assertThat(t.expression()).as(pg).isEqualTo("CURRENT_TIMESTAMP()");
      assertThat(t.reason()).as(pg).contains("transaction").contains("per statement");
    }
    Translation clock = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL,
        "clock_timestamp()", TIMESTAMPTZ, SpannerType.TIMESTAMP);
    assertThat(clock.expression()).isEqualTo("CURRENT_TIMESTAMP()");
    assertThat(clock.reason()).contains("row to row");
  }

  @Test
  void nowOnATimestampWithoutTimeZoneNotesTheWallClock() {
    Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL,
        "LOCALTIMESTAMP", TIMESTAMP, SpannerType.TIMESTAMP);
    assertThat(t.expression()).isEqualTo("CURRENT_TIMESTAMP()");
    assertThat(t.reason()).contains("wall-clock").contains("UTC");
  }

  @Test
  void currentDateIsTakenInUtcBecauseSpannersDefaultZoneIsLosAngeles() {
    Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL,
        "CURRENT_DATE", PgType.builtin("date", "date"),
        SpannerType.DATE);
    assertThat(t.expression()).isEqualTo("CURRENT_DATE('UTC')");
    assertThat(t.reason()).contains("UTC");
  }

  @Test
  void aZoneLessTimestampIsReadAsUtc() {
    Translation t = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL,
        "'2020-01-01 10:00:00'::timestamp without time zone",
        TIMESTAMP, SpannerType.TIMESTAMP);
    assertThat(t.expression()).isEqualTo("TIMESTAMP '2020-01-01 10:00:00+00'");
    assertThat(t.reason()).contains("UTC");
  }

  @Test
  void anEnumDefaultIsItsLabel() {
    PgType mood = new PgType("public", "mood", "mood", null, null, null, false, 0, PgType.Kind.ENUM, null, List.of(),
        false, List.of("happy", "sad"));
    assertThat(ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL,
        "'happy'::mood", mood, SpannerType.STRING_MAX).expression())
        .isEqualTo("'happy'");
    // A cast to some other user type is not trusted.
    assertThat(ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL,
        "'happy'::feeling", mood, SpannerType.STRING_MAX).translated())
        .isFalse();
  }

  @Test
  void nullAndBlankMeanNoDefault() {
    assertThat(translate("NULL::text", "STRING(MAX)").isNone()).isTrue();
    assertThat(translate("NULL", "INT64").isNone()).isTrue();
    assertThat(translate(null, "INT64").isNone()).isTrue();
    assertThat(translate("NULL", "INT64").translated()).isFalse();
  }

  @Test
  void sequenceDefaultsAreLeftToTheKeyStrategy() {
    Translation t = translate("nextval('orders_id_seq'::regclass)", "INT64");
    assertThat(t.translated()).isFalse();
    assertThat(t.isNone()).isFalse();
    assertThat(t.reason()).isEqualTo("sequence default: handled by the key strategy");
  }

  @ParameterizedTest(name = "{0} as {1}: {2}")
  @CsvSource(delimiter = '|', quoteCharacter = '^', value = {
      "lower('X'::text)                  | STRING(MAX) | calls lower()",
      "(now() + '1 day'::interval)       | TIMESTAMP   | operators",
      "my_next_id()                      | INT64       | calls my_next_id()",
      "gen_random_uuid()                 | BYTES(16)   | GENERATE_UUID() returns a STRING",
      "gen_random_uuid()                 | STRING(20)  | STRING(20)",
      "now()                             | DATE        | the column is DATE",
      "'abc'::text                       | INT64       | does not fit the Spanner type INT64",
      "1.5                               | INT64       | is not an INT64 value",
      "'99999999999999999999'::bigint    | INT64       | is not an INT64 value",
      "'0.0000000001'::numeric           | NUMERIC     | does not fit Spanner NUMERIC",
      "'NaN'::numeric                    | NUMERIC     | NaN",
      "'infinity'::date                  | DATE        | outside Spanner's DATE range",
      "'2020-01-01 BC'::date             | DATE        | outside Spanner's DATE range",
      "'infinity'::timestamp with time zone | TIMESTAMP | outside Spanner's TIMESTAMP range",
      "'{{1,2},{3,4}}'::integer[]        | ARRAY<INT64> | multi-dimensional",
      "CURRENT_USER                      | STRING(MAX) | CURRENT_USER",
      "E'a\\\\b'                         | STRING(MAX) | special string literal",
      "(id * 2)                          | INT64       | operators",
      "'abc'::text                       | ARRAY<STRING(MAX)> | not an array value",
  })
  void refusesWhatItCannotTranslateAndSaysWhy(String pg, String target, String reason) {
    Translation t = translate(pg, target);
    assertThat(t.translated()).as(t.expression()).isFalse();
    assertThat(t.isNone()).isFalse();
    assertThat(t.reason()).contains(reason).startsWith("the default " + pg);
  }

  @Test
  void aNumericConstantIsHeldToTheDigitsOfThePlansDialect() {
    PgType numeric = PgType.builtin("numeric", "numeric");
    String wide = "'123456789012345678901234567890.5'::numeric"; // 30 integer digits
    String fine = "0.0000000001"; // 10 fractional digits

    Translation google = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, wide, numeric, SpannerType.NUMERIC);
    assertThat(google.translated()).isFalse();
    assertThat(google.reason()).contains("does not fit Spanner NUMERIC (29 integer and 9 fractional digits)");
    assertThat(ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, fine, numeric, SpannerType.NUMERIC)
        .translated()).isFalse();

    Translation postgres = ExpressionTranslator.defaultValue(SpannerDialect.POSTGRESQL, wide, numeric,
        SpannerType.NUMERIC);
    assertThat(postgres.in(SpannerDialect.POSTGRESQL)).hasValueSatisfying(
        v -> assertThat(v).contains("123456789012345678901234567890.5"));
    assertThat(ExpressionTranslator.defaultValue(SpannerDialect.POSTGRESQL, fine, numeric, SpannerType.NUMERIC)
        .in(SpannerDialect.POSTGRESQL)).hasValueSatisfying(v -> assertThat(v).contains("0.0000000001"));
  }
}
