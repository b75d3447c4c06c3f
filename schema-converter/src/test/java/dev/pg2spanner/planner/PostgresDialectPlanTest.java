package dev.pg2spanner.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresDialectPlanTest {

  @Test
  void readsBackEveryShardExpressionTheKeyDesignerWrites() {
    assertThat(PostgresDialectPlan.shardOf("MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)"))
        .isEqualTo(new PostgresDialectPlan.Shard(List.of("id"), 16));
    assertThat(PostgresDialectPlan.shardOf("MOD(ABS(FARM_FINGERPRINT(CAST(UNIX_MICROS(rental_date) AS STRING))), 12)"))
        .isEqualTo(new PostgresDialectPlan.Shard(List.of("rental_date"), 12));
    assertThat(PostgresDialectPlan.shardOf("MOD(ABS(FARM_FINGERPRINT(CONCAT(CAST(UNIX_MICROS(`at`) AS STRING), '|', "
        + "code, '|', TO_BASE64(b)))), 4)")).isEqualTo(new PostgresDialectPlan.Shard(List.of("at", "code", "b"), 4));
    assertThat(PostgresDialectPlan.shardOf("MOD(x, 4)")).isNull();
    assertThat(PostgresDialectPlan.shardOf("MOD(ABS(FARM_FINGERPRINT(CAST(a + b AS STRING))), 4)")).isNull();
  }

  @Test
  void shardExpressionsHashEachTypeAsDeterministicText() {
    Map<String, SpannerType> types = Map.of("at", SpannerType.TIMESTAMP, "code", SpannerType.string(4),
        "id", SpannerType.INT64, "Order", SpannerType.INT64);
    assertThat(PostgresDialectPlan.shardExpression(List.of("id"), 8, types))
        .isEqualTo("mod(abs(spanner.farm_fingerprint(id::text)), 8)");
    assertThat(PostgresDialectPlan.shardExpression(List.of("at", "code", "Order"), 4, types))
        .isEqualTo("mod(abs(spanner.farm_fingerprint(extract(epoch from at)::text || '|' || code || '|' || "
            + "\"Order\"::text)), 4)");
  }

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
