package dev.pg2spanner.planner;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PostgresExpressionsTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "done >= 0 AND done <= 100|done >= 0 AND done <= 100",
      "`Group` > 0|\"Group\" > 0",
      "CustomerName IS NOT NULL|\"CustomerName\" IS NOT NULL",
      "`select` NOT IN ('a', 'b')|\"select\" NOT IN ('a', 'b')",
      "feeling IN ('happy', \"it's ok\", 'sad')|feeling IN ('happy', 'it''s ok', 'sad')",
      "GENERATE_UUID()|spanner.generate_uuid()",
      "CURRENT_TIMESTAMP()|CURRENT_TIMESTAMP",
      "NUMERIC '12.50'|'12.50'::numeric",
      "DATE '2024-01-31'|'2024-01-31'::date",
      "TIMESTAMP '2024-01-31 10:00:00+00'|'2024-01-31 10:00:00+00'::timestamptz",
      "b'\\x00\\xff'|'\\x00ff'::bytea",
      "['a', 'b']|ARRAY['a', 'b']",
      "[1, -2]|ARRAY[1, -2]",
      "CHAR_LENGTH(code) <= 4|length(code) <= 4",
      "NOT (x BETWEEN 1 AND 2)|NOT (x BETWEEN 1 AND 2)",
      "price * 2 > cost + 1.5|price * 2 > cost + 1.5",
      "TRUE|TRUE"})
  void respellsWhatThePlannerWrites(String googleSql, String postgres) {
    assertThat(PostgresExpressions.respell(googleSql)).contains(postgres);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"CURRENT_DATE('UTC')", "JSON '{}'", "REGEXP_CONTAINS(a, 'x')", "'line\\nbreak'", "[]", "a[OFFSET(0)]",
      "x = `unterminated"})
  void refusesWhatItDoesNotKnow(String googleSql) {
    assertThat(PostgresExpressions.respell(googleSql)).isEmpty();
  }

  @Test
  void backslashesAreEscapesInGoogleSqlAndPlainInPostgres() {
    assertThat(PostgresExpressions.respell("'back\\\\slash'")).contains("'back\\slash'");
  }

  @Test
  void nullIsNoExpression() {
    assertThat(PostgresExpressions.respell(null)).isEmpty();
  }
}
