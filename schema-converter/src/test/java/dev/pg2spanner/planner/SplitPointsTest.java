package dev.pg2spanner.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SplitPointsTest {

  private static final long BIG = SplitPoints.MIN_TABLE_BYTES;

  private static TablePlan table(long bytes, ColumnPlan key, KeyStrategy strategy, Interleave interleave,
      ColumnPlan... more) {
    List<ColumnPlan> columns = new ArrayList<>(List.of(more));
    columns.add(0, key);
    return new TablePlan("public.t", false, "t", 1e7, bytes, columns, List.of(KeyPart.asc(key.target())), strategy,
        interleave, List.of(), List.of(), List.of(), List.of());
  }

  private static ColumnPlan int64(String name) {
    return new ColumnPlan(name, "bigint", name, "INT64", true, ValueConversion.INT64, null, null);
  }

  private static KeySample ids(String column, long from, long to) {
    List<List<Object>> rows = new ArrayList<>();
    for (long v = from; v <= to; v++) {
      rows.add(List.of(v));
    }
    return new KeySample("public.t", List.of(column), rows, false);
  }

  @Test
  void aBigKeptOrBitReversedTableIsSplitAtQuantilesOfItsLoadedIds() {
    TablePlan t = table(BIG, int64("id"), KeyStrategy.bitReversed("r", "s"), null);
    List<List<String>> points = SplitPoints.propose(t, ids("id", 1, 10_000), 3);
    // 10 per node: 30 points, ascending, inside the sampled range, each a one-part key prefix.
    assertThat(points).hasSize(30);
    List<Long> values = points.stream().map(p -> Long.parseLong(p.get(0))).toList();
    assertThat(values).isSorted().doesNotHaveDuplicates().allMatch(v -> v > 1 && v < 10_000);
    assertThat(values.get(0)).isBetween(300L, 340L);
    assertThat(values.get(29)).isBetween(9_650L, 9_700L);
  }

  @Test
  void aHashShardedTableIsSplitAtShardBoundaries() {
    ColumnPlan shard = new ColumnPlan(null, null, "shard_id", "INT64", true, ValueConversion.SYNTHETIC, null,
        "MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 12)");
    TablePlan t = table(BIG, shard, KeyStrategy.hashShard("r", "shard_id", 12, List.of("id")), null, int64("id"));
    assertThat(SplitPoints.propose(t, KeySample.empty("public.t"), 3)).extracting(p -> p.get(0))
        .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11");
  }

  @Test
  void aRandomUuidKeyIsSplitAtEvenHexPrefixes() {
    ColumnPlan rowId = new ColumnPlan(null, null, "row_id", "STRING(36)", true, ValueConversion.SYNTHETIC, null,
        null);
    TablePlan t = table(BIG, rowId, KeyStrategy.synthetic("r"),
        null);
    List<List<String>> points = SplitPoints.propose(t, KeySample.empty("public.t"), 2);
    assertThat(points).hasSize(20);
    assertThat(points.get(0)).containsExactly("0c30c30c");
    assertThat(points.stream().map(p -> p.get(0)).toList()).isSorted().allMatch(p -> p.matches("[0-9a-f]{8}"));
  }

  @Test
  void smallTablesOneNodeChildrenAndUnsplittableKeysGetNone() {
    KeyStrategy keep = KeyStrategy.keep("natural");
    KeySample sample = ids("id", 1, 1000);
    assertThat(SplitPoints.propose(table(BIG - 1, int64("id"), keep, null), sample, 3)).isEmpty();
    assertThat(SplitPoints.propose(table(BIG, int64("id"), keep, null), sample, 1)).isEmpty();
    assertThat(SplitPoints.propose(table(BIG, int64("id"), keep, new Interleave("p", Interleave.OnDelete.CASCADE,
        "fk")), sample, 3)).isEmpty();
    ColumnPlan at = new ColumnPlan("at", "timestamptz", "at", "TIMESTAMP", true, ValueConversion.TIMESTAMP, null,
        null);
    assertThat(SplitPoints.propose(table(BIG, at, keep, null), sample, 3)).isEmpty();
    // Fewer distinct sampled values than points: one point between each pair at most.
    assertThat(SplitPoints.propose(table(BIG, int64("id"), keep, null), ids("id", 1, 4), 3)).hasSizeLessThan(4);
  }
}
