package dev.pg2spanner.planner;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PostgresDialectPlanTest {

  @Test
  void proseNamesTypesAsTheDialectSpellsThem() {
    assertThat(PostgresDialectPlan.respellProse("The plan keeps id as INT64; tags → ARRAY<STRING(MAX)>, code "
        + "STRING(36), doc JSON, at TIMESTAMP. NUMERIC_TEXT and TIMESTAMP_WALL_CLOCK_AS_UTC are conversions."))
        .isEqualTo("The plan keeps id as bigint; tags → varchar[], code varchar(36), doc jsonb, at timestamptz. "
            + "NUMERIC_TEXT and TIMESTAMP_WALL_CLOCK_AS_UTC are conversions.");
    // Found planning a date column with infinity in the PostgreSQL dialect: the advice named a conversion that does
    // not exist ("with conversion timestamptz").
    assertThat(PostgresDialectPlan.respellProse("edit the plan back to TIMESTAMP with conversion TIMESTAMP: the rows"))
        .isEqualTo("edit the plan back to timestamptz with conversion TIMESTAMP: the rows");
    assertThat(PostgresDialectPlan.respellProse("recreate it with CREATE VIEW ... (GoogleSQL syntax)."))
        .isEqualTo("recreate it with CREATE VIEW ... (in the PostgreSQL dialect).");
  }
}
