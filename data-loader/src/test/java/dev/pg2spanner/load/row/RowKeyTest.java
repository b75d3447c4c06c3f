package dev.pg2spanner.load.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowKeyTest {

  private static ColumnPlan loaded(String name, String type, ValueConversion conversion) {
    return new ColumnPlan(name, "x", name, type, true, conversion, null, null);
  }

  private static TablePlan table(List<ColumnPlan> columns, List<String> key, KeyStrategy strategy) {
    return new TablePlan("public.t", false, "t", null, 0, columns, key.stream().map(KeyPart::asc).toList(),
        strategy, null, null, null, null, null);
  }

  private static final ColumnPlan ROW_ID = new ColumnPlan(null, null, "row_id", "STRING(36)", true,
      ValueConversion.SYNTHETIC, "GENERATE_UUID()", null);

  @Test
  void aOneColumnKeyHoldingACommaNeverPrintsLikeATwoColumnKey() {
    TablePlan one = table(List.of(loaded("code", "STRING(MAX)", ValueConversion.STRING)), List.of("code"),
        KeyStrategy.keep("k"));
    TablePlan two = table(List.of(loaded("a", "STRING(MAX)", ValueConversion.STRING),
        loaded("b", "STRING(MAX)", ValueConversion.STRING)), List.of("a", "b"), KeyStrategy.keep("k"));
    String single = RowKey.of(one).text(List.of(Value.string("a, b")));
    String pair = RowKey.of(two).text(List.of(Value.string("a"), Value.string("b")));
    assertThat(single).isEqualTo("'a, b'");
    assertThat(pair).isEqualTo("'a', 'b'");
    assertThat(single).isNotEqualTo(pair);
    // The text of the values a mutation writes is the same text.
    Mutation m = Mutation.newInsertOrUpdateBuilder("t").set("a").to("a").set("b").to("b").build();
    assertThat(RowKey.of(two).text(m)).isEqualTo(pair);
  }

  @Test
  void aHashShardColumnComputedBySpannerIsNotPartOfTheName() {
    ColumnPlan shard = new ColumnPlan(null, null, "shard_id", "INT64", true, ValueConversion.SYNTHETIC, null,
        "MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 4)");
    TablePlan sharded = table(List.of(shard, loaded("id", "INT64", ValueConversion.INT64)),
        List.of("shard_id", "id"), KeyStrategy.keep("k"));
    RowKey key = RowKey.of(sharded);
    assertThat(key.kind()).isEqualTo(RowKey.Kind.PRIMARY_KEY);
    assertThat(key.columns()).containsExactly("id");
    assertThat(RowKey.forVerify(sharded).columns()).containsExactly("id");
  }

  @Test
  void aSyntheticKeyNamesTheRowForTheLoaderButVerifyComparesByContent() {
    TablePlan keyless = table(List.of(ROW_ID, loaded("at", "TIMESTAMP", ValueConversion.TIMESTAMP),
        loaded("msg", "STRING(MAX)", ValueConversion.STRING)), List.of("row_id"),
        KeyStrategy.synthetic("no key"));
    assertThat(RowKey.syntheticKeyColumn(keyless)).isEqualTo("row_id");
    assertThat(RowKey.of(keyless).kind()).isEqualTo(RowKey.Kind.SYNTHETIC);
    assertThat(RowKey.of(keyless).columns()).containsExactly("row_id");
    // Beam's failed writes carry the synthetic key the loader wrote, so both name the row alike.
    Mutation written = Mutation.newInsertOrUpdateBuilder("t").set("at").to((com.google.cloud.Timestamp) null)
        .set("msg").to("m").set("row_id").to("3f1c0c9e-0000-5000-8000-000000000001").build();
    assertThat(RowKey.of(keyless).text(written)).isEqualTo("'3f1c0c9e-0000-5000-8000-000000000001'");
    assertThat(RowKey.forVerify(keyless).kind()).isEqualTo(RowKey.Kind.WHOLE_ROW);
    assertThat(RowKey.forVerify(keyless).columns()).containsExactly("at", "msg");
  }

  @Test
  void aUuidKeyThatIsNotSourceDataIsNamedByTheKeptColumn() {
    ColumnPlan newKey = new ColumnPlan(null, null, "id", "STRING(36)", true, ValueConversion.SYNTHETIC,
        "GENERATE_UUID()", "GENERATE_UUID()");
    TablePlan users = table(List.of(newKey, loaded("legacy_id", "INT64", ValueConversion.INT64),
        loaded("name", "STRING(MAX)", ValueConversion.STRING)), List.of("id"),
        KeyStrategy.uuid("r", "legacy_id"));
    assertThat(RowKey.of(users).kind()).isEqualTo(RowKey.Kind.KEPT_KEY);
    assertThat(RowKey.of(users).columns()).containsExactly("legacy_id");
  }

  @Test
  void theNumberOfValuesMustMatchTheKey() {
    TablePlan t = table(List.of(loaded("id", "INT64", ValueConversion.INT64)), List.of("id"),
        KeyStrategy.keep("k"));
    assertThatThrownBy(() -> RowKey.of(t).text(List.of(Value.int64(1), Value.int64(2))))
        .hasMessageContaining("has 1 columns [id], not 2");
    assertThat(RowKey.location("(3,7)")).isEqualTo("ctid (3,7)");
  }
}
