package dev.pg2spanner.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.Hashing;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HashShardTest {

  private static final SpannerDialect GOOGLE = SpannerDialect.GOOGLE_STANDARD_SQL;
  private static final SpannerDialect PG = SpannerDialect.POSTGRESQL;

  private static final Map<String, SpannerType> TYPES = Map.of("at", SpannerType.TIMESTAMP, "code",
      SpannerType.string(4), "id", SpannerType.INT64, "Order", SpannerType.INT64, "b", SpannerType.BYTES_MAX,
      "d", SpannerType.DATE, "ok", SpannerType.BOOL);

  @Test
  void printsTheExpressionInEachDialect() {
    HashShard one = HashShard.over(List.of("id"), 16, TYPES::get);
    assertThat(one.expression(GOOGLE)).isEqualTo("MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)");
    assertThat(one.expression(PG)).isEqualTo("mod(abs(spanner.farm_fingerprint(id::text)), 16)");
    HashShard three = HashShard.over(List.of("at", "code", "Order"), 4, TYPES::get);
    assertThat(three.expression(GOOGLE)).isEqualTo("MOD(ABS(FARM_FINGERPRINT(CONCAT(CAST(UNIX_MICROS(`at`) AS STRING), "
        + "'|', code, '|', CAST(`Order` AS STRING)))), 4)");
    assertThat(three.expression(PG)).isEqualTo("mod(abs(spanner.farm_fingerprint(extract(epoch from at)::text || "
        + "'|' || code || '|' || \"Order\"::text)), 4)");
    assertThat(HashShard.over(List.of("b"), 2, TYPES::get).expression(GOOGLE))
        .isEqualTo("MOD(ABS(FARM_FINGERPRINT(TO_BASE64(b))), 2)");
  }

  @Test
  void computesTheShardSpannerStores() {
    // FARM_FINGERPRINT('42') = 623910487284905736 on the emulator; ABS(...) MOD 16 = 8.
    assertThat(HashShard.over(List.of("id"), 16, TYPES::get).shard(List.of(42L))).isEqualTo(8L);
    HashShard all = HashShard.over(List.of("code", "id", "ok", "d", "b", "at"), 12, TYPES::get);
    long expected = Math.abs(Hashing.farmHashFingerprint64().hashString(
        "näme|-7|true|0999-01-02|AP8=|1700000000123456", StandardCharsets.UTF_8).asLong()) % 12;
    assertThat(all.shard(List.of("näme", -7L, true, LocalDate.of(999, 1, 2), new byte[] {0, (byte) 0xff},
        Instant.ofEpochSecond(1_700_000_000L, 123_456_789)))).isEqualTo(expected);
    assertThat(all.shard(Arrays.asList("a", null, true, null, null, null))).isNull();
  }

  @Test
  void refusesAValueOfAnotherTypeAndSaysWhichInputsJavaCannotReproduce() {
    HashShard id = HashShard.over(List.of("id"), 16, TYPES::get);
    assertThatThrownBy(() -> id.shard(List.of("42"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id as INT64");
    HashShard at = HashShard.over(List.of("at"), 16, TYPES::get);
    assertThat(at.firstNotComputable(GOOGLE)).isEmpty();
    assertThat(at.firstNotComputable(PG)).contains(at.inputs().get(0));
    assertThat(HashShard.over(List.of("x"), 4, c -> SpannerType.FLOAT64).firstNotComputable(GOOGLE)).isPresent();
  }

  @Test
  void isTakenFromATablesHashShardStrategyWithTheTypesOfItsDialect() {
    TablePlan t = new TablePlan("public.t", false, "t", null, 0, List.of(
        new ColumnPlan(null, null, "shard_id", "bigint", true, ValueConversion.SYNTHETIC, null, "x"),
        new ColumnPlan("at", "timestamp with time zone", "at", "timestamptz", true, ValueConversion.TIMESTAMP, null,
            null)), List.of(KeyPart.asc("shard_id"), KeyPart.asc("at")),
        KeyStrategy.hashShard("r", "shard_id", 8, List.of("at")), null, null, null, null, null);
    assertThat(HashShard.of(t, PG).orElseThrow().expression(PG))
        .isEqualTo("mod(abs(spanner.farm_fingerprint(extract(epoch from at)::text)), 8)");
    // Not this dialect's type text: no shard is guessed (the validator names the type).
    assertThat(HashShard.of(t, GOOGLE)).isEmpty();
    TablePlan kept = new TablePlan("public.t", false, "t", null, 0, t.columns(), t.primaryKey(),
        KeyStrategy.keep("k"), null, null, null, null, null);
    assertThat(HashShard.of(kept, PG)).isEmpty();
  }
}
