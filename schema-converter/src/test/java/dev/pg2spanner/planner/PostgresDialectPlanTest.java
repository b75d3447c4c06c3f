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
    assertThat(PostgresDialectPlan.respellProse("recreate it with CREATE VIEW ... (GoogleSQL syntax)."))
        .isEqualTo("recreate it with CREATE VIEW ... (in the PostgreSQL dialect).");
  }
}
