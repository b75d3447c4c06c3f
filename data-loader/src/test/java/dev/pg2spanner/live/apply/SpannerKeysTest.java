package dev.pg2spanner.live.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Value;
import com.google.common.hash.Hashing;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SpannerKeysTest {

  private static TablePlan table(String shardExpression, List<ColumnPlan> loaded, List<String> key) {
    List<ColumnPlan> columns = new java.util.ArrayList<>();
    columns.add(new ColumnPlan(null, null, "shard_id", "INT64", true, ValueConversion.SYNTHETIC, null,
        shardExpression));
    columns.addAll(loaded);
    List<KeyPart> parts = new java.util.ArrayList<>(List.of(KeyPart.asc("shard_id")));
    key.forEach(k -> parts.add(KeyPart.asc(k)));
    return new TablePlan("public.t", false, "t", null, 0, columns, parts, KeyStrategy.keep("test"), null, null,
        null, null, null);
  }

  private static ColumnPlan column(String name, String type, ValueConversion conversion) {
    return new ColumnPlan(name, "x", name, type, true, conversion, null, null);
  }

  @Test
  void theShardOfAnIntegerKeyIsSpannersFarmFingerprintOfItsText() {
    // FARM_FINGERPRINT('42') = 623910487284905736 on the emulator; ABS(...) MOD 16 = 8.
    assertThat(Hashing.farmHashFingerprint64().hashString("42", StandardCharsets.UTF_8).asLong())
        .isEqualTo(623910487284905736L);
    SpannerKeys keys = SpannerKeys.of(sharded("MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)",
        List.of(column("id", "INT64", ValueConversion.INT64)), List.of("id")));
    assertThat(keys.computesShard()).isTrue();
    assertThat(keys.inputColumns()).containsExactly("id");
    assertThat(keys.key(Map.of("id", Value.int64(42))::get)).isEqualTo(Key.of(8L, 42L));
    // A value of another type than the plan's names the table and the column.
    assertThatThrownBy(() -> keys.key(Map.of("id", Value.string("42"))::get))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("the shard of t: ")
        .hasMessageContaining("id as INT64");
  }

  @Test
  void severalHashedColumnsAreJoinedAsThePlannerWritesThem() {
    TablePlan t = sharded("MOD(ABS(FARM_FINGERPRINT(CONCAT(`order`, '|', CAST(UNIX_MICROS(at) AS STRING), '|', "
        + "TO_BASE64(b)))), 12)", List.of(column("order", "STRING(MAX)", ValueConversion.STRING),
        column("at", "TIMESTAMP", ValueConversion.TIMESTAMP), column("b", "BYTES(MAX)", ValueConversion.BYTES)),
        List.of("order", "at", "b"), 12);
    SpannerKeys keys = SpannerKeys.of(t);
    Timestamp at = Timestamp.ofTimeMicroseconds(1_700_000_000_123_456L);
    Value bytes = Value.bytes(com.google.cloud.ByteArray.copyFrom(new byte[] {0, (byte) 0xff}));
    long expected = Math.abs(Hashing.farmHashFingerprint64().hashString("näme|1700000000123456|AP8=",
        StandardCharsets.UTF_8).asLong()) % 12;
    Key key = keys.key(Map.of("order", Value.string("näme"), "at", Value.timestamp(at), "b", bytes)::get);
    assertThat(key).isEqualTo(Key.newBuilder().append(expected).append("näme").append(at)
        .append(bytes.getBytes()).build());
  }

  @Test
  void aKeyPartNobodyCanComputeIsRefusedNamingIt() {
    TablePlan t = table("MOD(id, 16)", List.of(column("id", "INT64", ValueConversion.INT64)), List.of("id"));
    assertThatThrownBy(() -> SpannerKeys.of(t)).isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
      assertThat(e.code()).isEqualTo(ExitCode.PLAN_INVALID);
      assertThat(e.getMessage()).startsWith("key column t.shard_id is computed by MOD(id, 16)")
          .contains("without --live");
    });
    TablePlan unknownColumn = table("MOD(ABS(FARM_FINGERPRINT(CAST(nope AS STRING))), 4)",
        List.of(column("id", "INT64", ValueConversion.INT64)), List.of("id"));
    assertThatThrownBy(() -> SpannerKeys.of(unknownColumn)).isInstanceOf(Pg2SpannerException.class);
    // The text is never read: a shard-like generated key part that is not the hash-shard strategy's shard column
    // is refused in GoogleSQL too (before, a hand-edited GoogleSQL plan's expression was parsed by regex).
    TablePlan notTheStrategys = table("MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)",
        List.of(column("id", "INT64", ValueConversion.INT64)), List.of("id"));
    assertThatThrownBy(() -> SpannerKeys.of(notTheStrategys)).isInstanceOfSatisfying(Pg2SpannerException.class,
        e -> assertThat(e.getMessage()).contains("t.shard_id").contains("keyStrategy.shardColumn"));
    // A strategy that hashes a column the table lacks.
    TablePlan t2 = sharded("MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)",
        List.of(column("id", "INT64", ValueConversion.INT64)), List.of("id"));
    TablePlan missing = new TablePlan(t2.source(), false, t2.target(), null, 0, t2.columns(), t2.primaryKey(),
        KeyStrategy.hashShard("test", "shard_id", 16, List.of("nope")), null, null, null, null, null);
    assertThatThrownBy(() -> SpannerKeys.of(missing)).isInstanceOf(Pg2SpannerException.class);
  }

  /** A hash-sharded table as the planner writes it in {@code dialect}: the strategy names the hashed columns. */
  private static TablePlan sharded(String shardExpression, List<ColumnPlan> loaded, List<String> key) {
    return sharded(shardExpression, loaded, key, 16);
  }

  private static TablePlan sharded(String shardExpression, List<ColumnPlan> loaded, List<String> key, int shards) {
    TablePlan t = table(shardExpression, loaded, key);
    return new TablePlan(t.source(), false, t.target(), null, 0, t.columns(), t.primaryKey(),
        KeyStrategy.hashShard("test", "shard_id", shards, key), null, null, null, null, null);
  }

  @Test
  void theShardIsComputedFromThePlansTypedStrategyTheSameWayInBothDialects() {
    // The same key value gets the same shard: GoogleSQL's CAST(id AS STRING) and the PostgreSQL dialect's id::text
    // hash the same text.
    SpannerKeys google = SpannerKeys.of(sharded("MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)",
        List.of(column("id", "INT64", ValueConversion.INT64)), List.of("id")), SpannerDialect.GOOGLE_STANDARD_SQL);
    SpannerKeys postgres = SpannerKeys.of(sharded("mod(abs(spanner.farm_fingerprint(id::text)), 16)",
        List.of(column("id", "bigint", ValueConversion.INT64)), List.of("id")), SpannerDialect.POSTGRESQL);
    assertThat(postgres.computesShard()).isTrue();
    assertThat(postgres.inputColumns()).containsExactly("id");
    assertThat(postgres.key(Map.of("id", Value.int64(42))::get)).isEqualTo(Key.of(8L, 42L))
        .isEqualTo(google.key(Map.of("id", Value.int64(42))::get));
    // Several columns are joined by '|' in both.
    SpannerKeys two = SpannerKeys.of(sharded("mod(abs(spanner.farm_fingerprint(code || '|' || n::text)), 16)",
        List.of(column("code", "varchar(20)", ValueConversion.STRING), column("n", "bigint", ValueConversion.INT64)),
        List.of("code", "n")), SpannerDialect.POSTGRESQL);
    long expected = Math.abs(Hashing.farmHashFingerprint64().hashString("a|7", StandardCharsets.UTF_8).asLong()) % 16;
    assertThat(two.key(Map.of("code", Value.string("a"), "n", Value.int64(7))::get))
        .isEqualTo(Key.of(expected, "a", 7L));
  }

  @Test
  void aPostgresShardOverATypeWhoseTextIsNotComputedIsRefusedNamingTheWayOn() {
    TablePlan t = sharded("mod(abs(spanner.farm_fingerprint(extract(epoch from at)::text)), 16)",
        List.of(column("at", "timestamptz", ValueConversion.TIMESTAMP)), List.of("at"));
    assertThatThrownBy(() -> SpannerKeys.of(t, SpannerDialect.POSTGRESQL))
        .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
          assertThat(e.code()).isEqualTo(ExitCode.PLAN_INVALID);
          assertThat(e.getMessage()).contains("t.shard_id hashes at (timestamptz)").contains("PostgreSQL dialect")
              .contains("another key strategy").contains("without --live");
        });
    // A generated key part that is not the strategy's shard column is not guessed at in this dialect.
    TablePlan edited = table("mod(abs(spanner.farm_fingerprint(id::text)), 16)",
        List.of(column("id", "bigint", ValueConversion.INT64)), List.of("id"));
    assertThatThrownBy(() -> SpannerKeys.of(edited, SpannerDialect.POSTGRESQL))
        .isInstanceOf(Pg2SpannerException.class).hasMessageContaining("without --live");
  }

  @Test
  void plainKeysNeedNoShard() {
    TablePlan t = new TablePlan("public.t", false, "t", null, 0, List.of(column("a", "STRING(MAX)",
        ValueConversion.STRING), column("b", "INT64", ValueConversion.INT64)), List.of(KeyPart.asc("b"),
        KeyPart.asc("a")), KeyStrategy.keep("k"), null, null, null, null, null);
    SpannerKeys keys = SpannerKeys.of(t);
    assertThat(keys.computesShard()).isFalse();
    assertThat(keys.key(Map.of("a", Value.string("x"), "b", Value.int64(3))::get)).isEqualTo(Key.of(3L, "x"));
  }
}
