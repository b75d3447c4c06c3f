package dev.pg2spanner.load.convert;

import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableConverterTest {

  private static ColumnPlan col(String source, String target, String type, ValueConversion conversion) {
    return new ColumnPlan(source, "x", target, type, false, conversion, null, null);
  }

  private static TablePlan table(List<ColumnPlan> columns, List<String> key, KeyStrategy.Kind kind) {
    return new TablePlan("s.t", false, "T", null, 0, columns, key.stream().map(KeyPart::asc).toList(),
        kind == KeyStrategy.Kind.SYNTHETIC ? KeyStrategy.synthetic("test") : KeyStrategy.keep("test"), null, null,
        null, null, null);
  }

  private static Piece piece(long first, Long end) {
    return new Piece("T#1", "T", "s.t", "my \"schema\"", "Part 1", true, first, end, 0, 0);
  }

  @Test
  void selectListReadsEachConversionThroughItsExactPath() {
    TableConverter converter = TableConverter.compile(table(List.of(
        col("Id", "id", "INT64", ValueConversion.INT64),
        col("f4", "f4", "FLOAT32", ValueConversion.FLOAT32),
        col("f8", "f8", "ARRAY<FLOAT64>", ValueConversion.FLOAT64),
        col("m", "m", "NUMERIC", ValueConversion.MONEY_NUMERIC),
        col("tz", "tz", "TIMESTAMP", ValueConversion.TIMESTAMP),
        col("ts", "ts", "TIMESTAMP", ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC),
        col("c", "c", "STRING(4)", ValueConversion.STRING),
        new ColumnPlan("g", "int", "g", "INT64", false, ValueConversion.INT64, null, "id + 1")),
        List.of("id"), KeyStrategy.Kind.KEEP), GOOGLE_STANDARD_SQL);
    assertThat(converter.selectSql(piece(8, 16L))).isEqualTo("SELECT \"Id\", \"f4\"::float8::text, "
        + "\"f8\"::float8[], \"m\"::numeric::text, (\"tz\" AT TIME ZONE 'UTC')::text, \"ts\"::text, \"c\", "
        + "ctid::text FROM ONLY \"my \"\"schema\"\"\".\"Part 1\" WHERE ctid >= '(8,0)'::tid AND ctid < '(16,0)'::tid");
    assertThat(converter.loadedColumns()).containsExactly("id", "f4", "f8", "m", "tz", "ts", "c");
  }

  @Test
  void boundsThatRestrictNothingAreLeftOut() {
    TableConverter converter = TableConverter.compile(table(List.of(col("id", "id", "INT64",
        ValueConversion.INT64)), List.of("id"), KeyStrategy.Kind.KEEP), GOOGLE_STANDARD_SQL);
    assertThat(converter.selectSql(piece(0, null))).endsWith("FROM ONLY \"my \"\"schema\"\"\".\"Part 1\"");
    assertThat(converter.selectSql(piece(0, 4L))).endsWith(" WHERE ctid < '(4,0)'::tid");
    assertThat(converter.selectSql(piece(4, null))).endsWith(" WHERE ctid >= '(4,0)'::tid");
  }

  @Test
  void syntheticKeyIsWrittenFromRelationAndCtidButShardAndDefaultColumnsAreNot() {
    TableConverter converter = TableConverter.compile(table(List.of(
        new ColumnPlan(null, null, "synthetic_id", "STRING(36)", true, ValueConversion.SYNTHETIC, "GENERATE_UUID()",
            null),
        new ColumnPlan(null, null, "added", "STRING(MAX)", false, ValueConversion.SYNTHETIC, "'x'", null),
        col("v", "v", "STRING(MAX)", ValueConversion.TEXT_OUTPUT)),
        List.of("synthetic_id"), KeyStrategy.Kind.SYNTHETIC), GOOGLE_STANDARD_SQL);
    assertThat(converter.loadedColumns()).containsExactly("v", "synthetic_id");
    assertThat(converter.selectSql(piece(0, null)))
        .isEqualTo("SELECT \"v\", ctid::text, 'my \"schema\".Part 1'::text FROM ONLY \"my \"\"schema\"\"\".\"Part 1\"");
  }

  @Test
  void syntheticKeyOfAnUngeneratableTypeIsAPlanError() {
    assertThatThrownBy(() -> TableConverter.compile(table(List.of(
        new ColumnPlan(null, null, "k", "DATE", true, ValueConversion.SYNTHETIC, "CURRENT_DATE()", null),
        col("v", "v", "INT64", ValueConversion.INT64)), List.of("k"), KeyStrategy.Kind.SYNTHETIC), GOOGLE_STANDARD_SQL))
        .isInstanceOf(Pg2SpannerException.class).hasMessageContaining("T.k is DATE");
  }

  @Test
  void int2vectorAndOidvectorLoadAsIntegerArraysFromTheirSpaceSeparatedText() throws Exception {
    // PostgreSQL lists both as arrays (typcategory A), but prints them without braces: '1 2', and '' when empty.
    TableConverter converter = TableConverter.compile(table(List.of(
        col("id", "id", "INT64", ValueConversion.INT64),
        new ColumnPlan("v", "int2vector", "v", "ARRAY<INT64>", false, ValueConversion.INT64, null, null),
        new ColumnPlan("o", "oidvector", "o", "ARRAY<INT64>", false, ValueConversion.INT64, null, null),
        new ColumnPlan("a", "integer[]", "a", "ARRAY<INT64>", false, ValueConversion.INT64, null, null)),
        List.of("id"), KeyStrategy.Kind.KEEP), GOOGLE_STANDARD_SQL);
    assertThat(converter.parseColumn(1, "1 2")).isEqualTo(com.google.cloud.spanner.Value.int64Array(List.of(1L, 2L)));
    assertThat(converter.parseColumn(1, "")).isEqualTo(com.google.cloud.spanner.Value.int64Array(List.of()));
    assertThat(converter.parseColumn(2, "4294967295")).isEqualTo(
        com.google.cloud.spanner.Value.int64Array(List.of(4294967295L)));
    // A real array keeps its own form.
    assertThat(converter.parseColumn(3, "{1,NULL}")).isEqualTo(com.google.cloud.spanner.Value.int64Array(
        java.util.Arrays.asList(1L, null)));
    assertThatThrownBy(() -> converter.parseColumn(3, "1 2")).isInstanceOf(ValueRejection.class);
  }

  @Test
  void aKeyOverEightKibIsRejectedByTheLoaderItselfForAPlanEditedToKeepIt() {
    // plan gives such a table a synthetic key (KeyBytes); a person may edit the key back, and the emulator would take it.
    TableConverter converter = TableConverter.compile(table(List.of(
        col("code", "code", "STRING(MAX)", ValueConversion.STRING),
        col("note", "note", "STRING(MAX)", ValueConversion.STRING)), List.of("code"), KeyStrategy.Kind.KEEP),
            GOOGLE_STANDARD_SQL);
    boolean[] sent = {true, true};
    assertThat(converter.convertText(new String[] {"k".repeat(8192), "n"}, sent, "s.t", "0/1", null))
        .isInstanceOf(TableConverter.Converted.class);
    assertThat(converter.convertText(new String[] {"l".repeat(8193), "n"}, sent, "s.t", "0/2", null))
        .isInstanceOfSatisfying(TableConverter.Rejected.class, r -> assertThat(r.row().reason())
            .isEqualTo("the primary key is 8193 bytes; Spanner allows at most 8192 bytes per key"));
  }
}
