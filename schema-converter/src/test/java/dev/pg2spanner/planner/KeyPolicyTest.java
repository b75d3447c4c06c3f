package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.UUID;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.serial;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.hotspot.IdLayout;
import dev.pg2spanner.hotspot.Monotonicity;
import dev.pg2spanner.hotspot.WriteRate;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyStrategy.Kind;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.planner.KeyDecision.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The key policy on its own: evidence in, decision out, nothing planned. The whole design is in KeyDesignerTest. */
class KeyPolicyTest {

  private static final double THRESHOLD = 1.0;
  private static final Duration TWO_DAYS = Duration.ofDays(2);
  /** Exactly the threshold (1 insert/s) over a trusted window. */
  private static final WriteRate AT_THRESHOLD = new WriteRate(TWO_DAYS.toSeconds(), TWO_DAYS);
  /** One insert fewer over the same window: just below the threshold. */
  private static final WriteRate JUST_BELOW = new WriteRate(TWO_DAYS.toSeconds() - 1, TWO_DAYS);
  private static final WriteRate UNKNOWN = new WriteRate(null, null);

  private static final ColumnPlan INT_KEY = new ColumnPlan("id", "bigint", "id", "INT64", true,
      ValueConversion.INT64, null, null);
  private static final PgColumn SERIAL = serial("id", "public", "t_id_seq");

  private static Monotonicity mono(Monotonicity.Cause cause) {
    return new Monotonicity("id", cause, false, Map.of(), "The values grow.");
  }

  /** Evidence for public.t keyed by a sequence-fed INT64 column, to be varied one fact at a time. */
  private static final class Facts {
    List<String> key = List.of("id");
    ColumnPlan lead = INT_KEY;
    PgColumn leadSource = SERIAL;
    Kind requested;
    Monotonicity monotonicity = mono(Monotonicity.Cause.SEQUENCE);
    WriteRate rate = AT_THRESHOLD;
    String swapColumn;
    String fullestKey;
    double threshold = THRESHOLD;

    KeyDecision decide() {
      return KeyPolicy.decide(new KeyEvidence("public.t", key, lead, leadSource, requested, monotonicity, rate,
          swapColumn, fullestKey, threshold, 3));
    }
  }

  @Test
  void aWriteRateExactlyAtTheLowWriteThresholdIsNotLowWrite() {
    Facts f = new Facts();
    f.rate = AT_THRESHOLD;
    assertThat(f.rate.insertsPerSecond()).isEqualTo(THRESHOLD);
    assertThat(f.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.BIT_REVERSED, Reason.SEQUENCE);

    f.rate = JUST_BELOW;
    assertThat(f.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.KEEP, Reason.LOW_WRITE);
  }

  @Test
  void aLowRateCountsOnlyOverATrustedWindowAndNeverWithAZeroThreshold() {
    Facts f = new Facts();
    f.rate = new WriteRate(10L, WriteRate.MIN_TRUSTED_WINDOW.minusSeconds(1));
    assertThat(f.decide().kind()).isEqualTo(Kind.BIT_REVERSED);
    f.rate = new WriteRate(10L, WriteRate.MIN_TRUSTED_WINDOW);
    assertThat(f.decide().reason()).isEqualTo(Reason.LOW_WRITE);
    f.threshold = 0;
    assertThat(f.decide().kind()).isEqualTo(Kind.BIT_REVERSED);
  }

  @Test
  void orderAloneChangesAKeyOnlyOnATrustedRateAtOrAboveTheThreshold() {
    Facts f = new Facts();
    f.lead = new ColumnPlan("code", "text", "code", "STRING(MAX)", true, ValueConversion.STRING, null, null);
    f.leadSource = column("code", TEXT);
    f.monotonicity = mono(Monotonicity.Cause.TIME_PREFIXED_TEXT);

    f.rate = AT_THRESHOLD;
    assertThat(f.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.HASH_SHARD, Reason.MONOTONIC);
    f.rate = JUST_BELOW;
    assertThat(f.decide().reason()).isEqualTo(Reason.ORDER_ONLY);
    f.rate = UNKNOWN;
    KeyDecision unknown = f.decide();
    assertThat(unknown.reason()).isEqualTo(Reason.ORDER_ONLY);
    assertThat(unknown.optIn()).isEqualTo(Kind.HASH_SHARD);
    assertThat(unknown.findingEvidence()).containsEntry("optIn", "hash-shard").doesNotContainKey("requested");
    f.swapColumn = "tenant";
    assertThat(f.decide().optIn()).isEqualTo(Kind.SWAP);
  }

  @Test
  void theOrderOfThePolicySwapBeforeBitReversedAndNoRoomBeforeHashShard() {
    Facts f = new Facts();
    f.key = List.of("id", "tenant");
    f.swapColumn = "tenant";
    assertThat(f.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.SWAP, Reason.WELL_DISTRIBUTED_COLUMN);

    Facts temporal = new Facts();
    temporal.monotonicity = mono(Monotonicity.Cause.TEMPORAL);
    assertThat(temporal.decide().reason()).isEqualTo(Reason.MONOTONIC);
    assertThat(temporal.decide().temporal()).isTrue();
    temporal.fullestKey = "public_t";
    assertThat(temporal.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.KEEP, Reason.NO_ROOM_FOR_SHARD);

    Facts uuid = new Facts();
    uuid.lead = new ColumnPlan("id", "uuid", "id", "STRING(36)", true, ValueConversion.UUID_TEXT, null, null);
    uuid.leadSource = column("id", UUID);
    uuid.monotonicity = mono(Monotonicity.Cause.TIME_ORDERED_UUID);
    assertThat(uuid.decide()).extracting(KeyDecision::kind, KeyDecision::reason, KeyDecision::remapsIntegerKey)
        .containsExactly(Kind.UUID, Reason.TIME_ORDERED_UUID, false);
  }

  private static Monotonicity timeEncoded(IdLayout layout) {
    return new Monotonicity("id", Monotonicity.Cause.TIME_ENCODED_ID, false, Map.of(), "The ids encode times.",
        layout);
  }

  @Test
  void idsTheApplicationMakesAreBitReversedWhenTheyAre64BitAndShardedWhenTheyAreText() {
    Facts snowflake = new Facts();
    snowflake.leadSource = column("id", BIGINT); // no sequence: the application makes the ids
    snowflake.monotonicity = timeEncoded(IdLayout.TWITTER_SNOWFLAKE);
    assertThat(snowflake.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.BIT_REVERSED, Reason.APPLICATION_IDS);
    // Strong evidence, unlike order alone: changed while the insert rate is unknown, kept on a trusted low rate.
    snowflake.rate = UNKNOWN;
    assertThat(snowflake.decide().kind()).isEqualTo(Kind.BIT_REVERSED);
    snowflake.rate = JUST_BELOW;
    assertThat(snowflake.decide().reason()).isEqualTo(Reason.LOW_WRITE);

    // Order numbers that start with the date are read by people: sharded, not bit-reversed.
    Facts dated = new Facts();
    dated.leadSource = column("id", BIGINT);
    dated.monotonicity = timeEncoded(IdLayout.DATE_PREFIX);
    assertThat(dated.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.HASH_SHARD, Reason.MONOTONIC);

    Facts ulid = new Facts();
    ulid.lead = new ColumnPlan("id", "text", "id", "STRING(MAX)", true, ValueConversion.STRING, null, null);
    ulid.leadSource = column("id", TEXT);
    ulid.monotonicity = timeEncoded(IdLayout.ULID);
    assertThat(ulid.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.HASH_SHARD, Reason.MONOTONIC);
    ulid.requested = Kind.BIT_REVERSED;
    assertThatThrownBy(ulid::decide).isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("choose hash-shard");

    // Requested on 64-bit application ids, bit-reversed applies; on ids with no evidence it is refused as before.
    snowflake.rate = AT_THRESHOLD;
    snowflake.requested = Kind.BIT_REVERSED;
    assertThat(snowflake.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.BIT_REVERSED, Reason.REQUESTED);
    snowflake.monotonicity = null;
    assertThatThrownBy(snowflake::decide).isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("with no sequence default");
  }

  @Test
  void aKeyThatShowsNoGrowthIsKeptUnlessAnotherStrategyIsRequested() {
    Facts f = new Facts();
    f.monotonicity = null;
    f.leadSource = column("id", BIGINT);
    assertThat(f.decide().reason()).isEqualTo(Reason.NOT_MONOTONIC);
    f.requested = Kind.KEEP;
    assertThat(f.decide().reason()).isEqualTo(Reason.NOT_MONOTONIC);
    f.requested = Kind.HASH_SHARD;
    assertThat(f.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.HASH_SHARD, Reason.REQUESTED);
  }

  @Test
  void aRequestedStrategyOverridesThePolicy() {
    Facts f = new Facts();
    f.rate = JUST_BELOW; // the policy alone keeps it (low write)
    f.requested = Kind.HASH_SHARD;
    KeyDecision decision = f.decide();
    assertThat(decision).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.HASH_SHARD, Reason.REQUESTED);
    assertThat(decision.findingEvidence()).containsEntry("requested", "hash-shard").containsEntry("cause", "SEQUENCE")
        .doesNotContainKey("optIn");

    f.rate = AT_THRESHOLD; // the policy alone changes it (bit-reversed)
    f.requested = Kind.KEEP;
    assertThat(f.decide()).extracting(KeyDecision::kind, KeyDecision::reason)
        .containsExactly(Kind.KEEP, Reason.REQUESTED);

    f.requested = Kind.UUID;
    assertThat(f.decide()).extracting(KeyDecision::kind, KeyDecision::remapsIntegerKey)
        .containsExactly(Kind.UUID, true);
  }

  @Test
  void aRequestThatCannotApplyIsRefusedWithWhatToChooseInstead() {
    Facts swap = new Facts();
    swap.requested = Kind.SWAP;
    assertThatThrownBy(swap::decide).isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("public.t=swap").hasMessageContaining("choose hash-shard");

    Facts full = new Facts();
    full.requested = Kind.HASH_SHARD;
    full.key = List.of("id", "a");
    full.fullestKey = "public_t_child";
    assertThatThrownBy(full::decide).isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("the key of public_t_child").hasMessageContaining("choose swap or keep");

    Facts wide = new Facts();
    wide.requested = Kind.UUID;
    wide.key = List.of("id", "a");
    assertThatThrownBy(wide::decide).hasMessageContaining("the key is (id, a)");

    Facts remapped = new Facts();
    remapped.lead = new ColumnPlan("id", "bigint", "id", "STRING(36)", true, ValueConversion.KEY_UUID, null, null,
        "6ba7b811-9dad-11d1-80b4-00c04fd430c8");
    remapped.requested = Kind.BIT_REVERSED;
    assertThatThrownBy(remapped::decide).hasMessageContaining("drop this request");
    remapped.requested = Kind.KEEP;
    assertThat(remapped.decide().reason()).isEqualTo(Reason.REMAPPED_REFERENCE);
  }

  @Test
  void aSkewSampleOfExactlyTheMinimumSizeGivesAForecast() {
    List<Object> keys = new ArrayList<>();
    for (long i = 0; i < WriteSkewForecast.MIN_SAMPLE - 1; i++) {
      keys.add(i);
    }
    assertThat(WriteSkewForecast.of(keys, keys, 3)).isEmpty();
    keys.add((long) keys.size());
    WriteSkewForecast forecast = WriteSkewForecast.of(keys, keys, 3).orElseThrow();
    assertThat(forecast.sampledKeys()).isEqualTo(WriteSkewForecast.MIN_SAMPLE);
    assertThat(forecast.evidence()).containsOnlyKeys("ranges", "sampledKeys", "sourceKey", "plannedKey")
        .containsEntry("sampledKeys", WriteSkewForecast.MIN_SAMPLE);
    assertThat(forecast.sentence()).contains("from 40 sampled keys");
  }

  @Test
  void synthesisIsNeverRequestable() {
    Facts f = new Facts();
    f.requested = Kind.SYNTHETIC;
    assertThatThrownBy(f::decide).isInstanceOf(IllegalStateException.class);
  }
}
