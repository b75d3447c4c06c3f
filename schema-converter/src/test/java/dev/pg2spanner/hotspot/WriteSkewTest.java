package dev.pg2spanner.hotspot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WriteSkewTest {

  private static final int K = WriteSkew.rangesFor(3);

  private static List<Long> sequence(int n) {
    List<Long> keys = new ArrayList<>();
    for (long i = 1; i <= n; i++) {
      keys.add(i);
    }
    return keys;
  }

  @Test
  void aSequenceSendsEveryBurstToOneRange() {
    assertThat(WriteSkew.concentration(sequence(10_000), K)).isGreaterThan(0.85);
  }

  @Test
  void aDescendingSequenceIsJustAsHot() {
    List<Long> keys = sequence(10_000);
    java.util.Collections.reverse(keys);
    assertThat(WriteSkew.concentration(keys, K)).isGreaterThan(0.85);
  }

  @Test
  void bitReversedIdsSpreadCloseToOneOverK() {
    List<Long> keys = sequence(10_000).stream().map(WriteSkew::bitReversedPositive).toList();
    double share = WriteSkew.concentration(keys, K);
    // Consecutive ids bit-reversed are spread even more evenly than random keys (a low-discrepancy sequence).
    assertThat(share).isLessThan(2.0 / K);
  }

  @Test
  void randomKeysSpreadCloseToOneOverK() {
    Random random = new Random(7);
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      keys.add(random.nextLong());
    }
    assertThat(WriteSkew.concentration(keys, K)).isLessThan(2.0 / K);
  }

  @Test
  void tooFewKeysClaimNothing() {
    assertThat(WriteSkew.concentration(sequence(30), K)).isEqualTo(1.0);
  }

  @Test
  void hashShardsBoundTheSkewByTheShardCount() {
    int shards = 8;
    List<WriteSkew.Pair> keys = sequence(10_000).stream()
        .map(id -> WriteSkew.Pair.of(Math.floorMod(WriteSkew.mix(id), shards), id)).toList();
    double share = WriteSkew.concentration(keys, K);
    assertThat(share).isLessThan(2.0 / shards).isGreaterThan(0.5 / shards);
  }

  @Test
  void aDistributedLeadingColumnSpreadsATimestampKey() {
    List<WriteSkew.Pair> keys = new ArrayList<>();
    for (long t = 0; t < 10_000; t++) {
      keys.add(WriteSkew.Pair.of(WriteSkew.mix(t % 500), t));
    }
    assertThat(WriteSkew.concentration(keys, K)).isLessThan(2.0 / K);
  }
}
