package dev.pg2spanner.load.convert;

import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.RowHash;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.canonical.Canonical;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 30: the content hash of a keyless table's row, as the loader and the live applier write it. */
class RowHashTest {

  private static final String HASH = "pg2spanner_row_hash";

  /** A keyless table (kind text, n bigint, note text) with a synthetic key and a row hash over {@code hashed}. */
  private static TablePlan keyless(List<String> hashed) {
    return new TablePlan("s.events", false, "events", null, 0, List.of(
        new ColumnPlan(null, null, "row_id", "STRING(36)", true, ValueConversion.SYNTHETIC, "GENERATE_UUID()", null),
        new ColumnPlan("kind", "text", "kind", "STRING(MAX)", true, ValueConversion.STRING, null, null),
        new ColumnPlan("n", "bigint", "n", "INT64", true, ValueConversion.INT64, null, null),
        new ColumnPlan("note", "text", "note", "STRING(MAX)", false, ValueConversion.STRING, null, null),
        new ColumnPlan(null, null, HASH, "INT64", false, ValueConversion.SYNTHETIC, null, null)),
        List.of(KeyPart.asc("row_id")), KeyStrategy.synthetic("test"), null,
        List.of(new IndexPlan(null, "ix_events_row_hash", List.of(KeyPart.asc(HASH)), false, false, List.of(), null)),
        List.of(), List.of(), List.of(), List.of(), new RowHash(HASH, "ix_events_row_hash", hashed));
  }

  private static Mutation converted(TableConverter converter, String location, boolean[] sent, String... texts) {
    TableConverter.Result result = converter.convertText(texts, sent, "s.events", location, null);
    assertThat(result).isInstanceOf(TableConverter.Converted.class);
    return ((TableConverter.Converted) result).row().mutation();
  }

  private static final boolean[] WHOLE = {true, true, true};

  @Test
  void theHashIsTheFirst64BitsOfSha256OverTheLengthPrefixedCanonicalTexts() throws Exception {
    List<Value> row = List.of(Value.string("it's"), Value.int64(42), Value.string(null));
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update(ByteBuffer.allocate(4).putInt(3).array());
    for (String canonical : List.of("'it''s'", "42", "NULL")) {
      byte[] text = canonical.getBytes(StandardCharsets.UTF_8);
      sha.update(ByteBuffer.allocate(4).putInt(text.length).array());
      sha.update(text);
    }
    long expected = ByteBuffer.wrap(sha.digest()).getLong();
    assertThat(Canonical.rowHash64(row)).isEqualTo(expected);
    // Stable across runs and releases: a plan's loaded rows and a later run's lookups must agree.
    assertThat(Canonical.rowHash64(row)).isEqualTo(Canonical.rowHash64(List.of(Value.string("it's"),
        Value.int64(42), Value.string(null))));
  }

  @Test
  void nullAndEmptyTextColumnOrderAndColumnBoundariesAllChangeTheHash() {
    assertThat(Canonical.rowHash64(List.of(Value.string(null), Value.string("x"))))
        .isNotEqualTo(Canonical.rowHash64(List.of(Value.string(""), Value.string("x"))));
    assertThat(Canonical.rowHash64(List.of(Value.string("a"), Value.string("b"))))
        .isNotEqualTo(Canonical.rowHash64(List.of(Value.string("b"), Value.string("a"))));
    assertThat(Canonical.rowHash64(List.of(Value.string("ab"), Value.string("c"))))
        .isNotEqualTo(Canonical.rowHash64(List.of(Value.string("a"), Value.string("bc"))));
    assertThat(Canonical.rowHash64(List.of(Value.string("a"))))
        .isNotEqualTo(Canonical.rowHash64(List.of(Value.string("a"), Value.string(null))));
  }

  @Test
  void everyWholeRowCarriesTheHashOfItsConvertedValuesInTheRecordedOrder() {
    // The recorded order (note, kind, n) is the hash's, whatever the column order in the plan.
    TableConverter converter = TableConverter.compile(keyless(List.of("note", "kind", "n")), GOOGLE_STANDARD_SQL);
    assertThat(converter.rowHashColumn()).isEqualTo(HASH);
    assertThat(converter.loadedColumns()).doesNotContain(HASH);
    Mutation one = converted(converter, "0/1#1", WHOLE, "k", "7", null);
    Mutation duplicate = converted(converter, "0/1#2", WHOLE, "k", "7", null);
    Mutation empty = converted(converter, "0/1#3", WHOLE, "k", "7", "");
    long expected = Canonical.rowHash64(List.of(Value.string(null), Value.string("k"), Value.int64(7)));
    assertThat(one.asMap().get(HASH)).isEqualTo(Value.int64(expected));
    // Duplicates share the hash (and differ in their synthetic keys); NULL and '' do not.
    assertThat(duplicate.asMap().get(HASH)).isEqualTo(one.asMap().get(HASH));
    assertThat(duplicate.asMap().get("row_id")).isNotEqualTo(one.asMap().get("row_id"));
    assertThat(empty.asMap().get(HASH)).isNotEqualTo(one.asMap().get(HASH));
  }

  @Test
  void aRowWrittenInPartGetsANullHashNotAWrongOne() {
    TableConverter converter = TableConverter.compile(keyless(List.of("kind", "n", "note")), GOOGLE_STANDARD_SQL);
    // An unchanged TOASTed note: not sent, so the update writes kind and n, and NULL for the hash.
    Mutation partial = converted(converter, "0/2#1", new boolean[] {true, true, false}, "k", "7", null);
    assertThat(partial.getOperation()).isEqualTo(Mutation.Op.UPDATE);
    assertThat(partial.asMap()).doesNotContainKey("note");
    assertThat(partial.asMap().get(HASH)).isEqualTo(Value.int64(null));
  }

  @Test
  void aRowHashNamingAColumnTheTableDoesNotLoadIsNotWritten() {
    // A hand-edited plan (the validator refuses it before migrate): no hash of other columns, and no crash.
    TableConverter converter = TableConverter.compile(keyless(List.of("kind", "gone")), GOOGLE_STANDARD_SQL);
    assertThat(converter.rowHashColumn()).isNull();
    assertThat(converted(converter, "0/4#1", WHOLE, "k", "7", "x").asMap()).doesNotContainKey(HASH);
  }

  @Test
  void aTableWithoutARowHashWritesNone() {
    TableConverter converter = TableConverter.compile(keyless(List.of("kind")).withRowHash(null), GOOGLE_STANDARD_SQL);
    assertThat(converter.rowHashColumn()).isNull();
    assertThat(converted(converter, "0/3#1", WHOLE, "k", "7", "x").asMap()).doesNotContainKey(HASH);
  }
}
