package dev.pg2spanner.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Value;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerifierTest {

  private static ColumnPlan loaded(String name, String type, ValueConversion conversion) {
    return new ColumnPlan(name, "x", name, type, false, conversion, null, null);
  }

  private static TablePlan table(String target, List<ColumnPlan> columns, List<String> key, KeyStrategy strategy) {
    return new TablePlan("public." + target, false, target, null, 0, columns,
        key.stream().map(KeyPart::asc).toList(), strategy, null, null, null, null, null);
  }

  @Test
  void comparesLoadedColumnsOnlyAndKeysByTheLoadedKeyColumns() {
    ColumnPlan shard = new ColumnPlan(null, null, "shard_id", "INT64", true, ValueConversion.SYNTHETIC, null,
        "MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 4)");
    TablePlan sharded = table("orders", List.of(shard, loaded("id", "INT64", ValueConversion.INT64),
            loaded("note", "STRING(MAX)", ValueConversion.STRING)), List.of("shard_id", "id"),
        KeyStrategy.hashShard("r", "shard_id", 4, List.of("id")));
    assertThat(Verifier.loadedColumns(sharded)).extracting(ColumnPlan::target).containsExactly("id", "note");
    assertThat(RowKey.forVerify(sharded).columns()).containsExactly("id");
    assertThat(RowKey.forVerify(sharded).text(List.of(Value.int64(5)))).isEqualTo("5");

    ColumnPlan rowId = new ColumnPlan(null, null, "row_id", "STRING(36)", true, ValueConversion.SYNTHETIC,
        "GENERATE_UUID()", null);
    TablePlan keyless = table("logs", List.of(rowId, loaded("at", "TIMESTAMP", ValueConversion.TIMESTAMP),
        loaded("msg", "STRING(MAX)", ValueConversion.STRING)), List.of("row_id"),
        KeyStrategy.synthetic("no key"));
    assertThat(RowKey.forVerify(keyless).columns()).containsExactly("at", "msg");
    assertThat(RowKey.forVerify(keyless).text(List.of(Value.timestamp(null), Value.string("m"))))
        .isEqualTo("NULL, 'm'");

    TablePlan uuid = table("users", List.of(rowId, loaded("legacy_id", "INT64", ValueConversion.INT64),
        loaded("name", "STRING(MAX)", ValueConversion.STRING)), List.of("row_id"),
        KeyStrategy.uuid("r", "legacy_id"));
    assertThat(RowKey.forVerify(uuid).columns()).containsExactly("legacy_id");
  }

  @Test
  void targetReadsReturnTheWholeKeyThenTheLoadedColumnsAndAreSizedByTheRowEstimate() {
    ColumnPlan shard = new ColumnPlan(null, null, "shard_id", "INT64", true, ValueConversion.SYNTHETIC, null,
        "MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 4)");
    TablePlan sharded = new TablePlan("public.orders", false, "orders", 1_000_000.0, 1_000_000_000L,
        List.of(shard, loaded("note", "STRING(MAX)", ValueConversion.STRING), loaded("id", "INT64",
            ValueConversion.INT64)), List.of(KeyPart.asc("shard_id"), KeyPart.asc("id")),
        KeyStrategy.keep("k"), null, null, null, null, null);
    // The shard column is not compared, but it is part of the Spanner key the ranges are cut on.
    assertThat(TargetRanges.readColumns(sharded, List.of("note", "id"))).containsExactly("shard_id", "id", "note");
    // 1,000 bytes a row: about 4 MiB a read.
    assertThat(TargetRanges.rowsPerRange(sharded)).isEqualTo(4_194);

    TablePlan unknown = table("logs", List.of(loaded("msg", "STRING(MAX)", ValueConversion.STRING)), List.of(),
        KeyStrategy.keep("k"));
    assertThat(TargetRanges.rowsPerRange(unknown)).isEqualTo(TargetRanges.MAX_ROWS_PER_RANGE);
    assertThat(TargetRanges.readColumns(unknown, List.of())).containsExactly("msg");
    TablePlan wide = new TablePlan("public.blobs", false, "blobs", 10.0, 100_000_000L,
        List.of(loaded("id", "INT64", ValueConversion.INT64)), List.of(KeyPart.asc("id")), KeyStrategy.keep("k"),
        null, null, null, null, null);
    assertThat(TargetRanges.rowsPerRange(wide)).isEqualTo(TargetRanges.MIN_ROWS_PER_RANGE);
  }

  @Test
  void firstPassBucketsPointAtTheDifferingKeysAndTheSecondPassNamesThem() {
    TableScan source = TableScan.firstPass();
    TableScan target = TableScan.firstPass();
    for (int i = 0; i < 20_000; i++) {
      List<Value> row = List.of(Value.int64(i), Value.string("v" + i));
      source.accept(String.valueOf(i), row);
      if (i != 77) {
        target.accept(String.valueOf(i), i == 500 ? List.of(Value.int64(i), Value.string("changed")) : row);
      }
    }
    assertThat(source.total().sameAs(target.total())).isFalse();
    BitSet buckets = TableScan.differingBuckets(source, target, Verifier.MAX_DIFFERING_KEYS);
    assertThat(buckets.stream().toArray())
        .containsExactlyInAnyOrder(distinct(TableScan.bucketOf("77"), TableScan.bucketOf("500")));
    assertThat(TableScan.differingBuckets(source, target, 1).cardinality()).isEqualTo(1);

    TableScan second = TableScan.secondPass(buckets);
    for (int i = 0; i < 20_000; i++) {
      second.accept(String.valueOf(i), List.of(Value.int64(i), Value.string("v" + i)));
    }
    // Only the keys of the drilled buckets are kept: a few out of 20,000.
    assertThat(second.keys()).containsKeys("77", "500").hasSizeLessThan(20);
    assertThat(second.total().sameAs(source.total())).isTrue();
  }

  @Test
  void rendersAnAlignedTableWithTheDifferingKeysUnderEachOther() {
    String text = Verifier.render(List.of(
        new TableVerification("customers", 1200, 1200, "ab", "ab", List.of()),
        new TableVerification("billing.invoices", 3, 3, "aa", "bb",
            List.of("different: 2", "missing in target: 3", "extra in target: 999"))));
    assertThat(text).isEqualTo("""
        table            | source rows | target rows | checksum  | first differing keys
        ---------------- | ----------- | ----------- | --------- | --------------------
        customers        |       1,200 |       1,200 | equal     |
        billing.invoices |           3 |           3 | DIFFERENT | different: 2
                         |             |             |           | missing in target: 3
                         |             |             |           | extra in target: 999
        1 of 2 table(s) differ.
        """);
    assertThat(new TableVerification("t", 1, 2, "a", "a", List.of()).matches()).isFalse();
  }

  private static int[] distinct(int a, int b) {
    return a == b ? new int[] {a} : new int[] {a, b};
  }
}
