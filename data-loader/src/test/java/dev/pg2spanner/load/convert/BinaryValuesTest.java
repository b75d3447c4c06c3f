package dev.pg2spanner.load.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.plan.ValueConversion;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: the binary COPY decoders against PostgreSQL's binary formats, built here byte by byte; that the binary
 * and text paths give the same values for real rows is CopyReaderIT's (with a live server).
 */
class BinaryValuesTest {

  private static final Piece PIECE = new Piece("t#0", "t", "public.t", "public", "t", false, 0, null, 0, 0);
  private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;

  @Test
  void numericDigitGroupsScaleAndSign() throws IOException {
    // 1.50: one group before the point, one after; display scale 2.
    assertThat(BinaryValues.numeric(numeric(0, 0x0000, 2, 1, 5000), 0, 12)).isEqualTo(new BigDecimal("1.50"));
    assertThat(BinaryValues.numericText(numeric(0, 0x0000, 2, 1, 5000), 0, 12)).isEqualTo("1.50");
    // -0.0001: weight -1 (first group is 10^-4), display scale 4.
    assertThat(BinaryValues.numericText(numeric(-1, 0x4000, 4, 1), 0, 10)).isEqualTo("-0.0001");
    // 100000000: trailing zero groups are not sent (weight 2, one group).
    assertThat(BinaryValues.numericText(numeric(2, 0x0000, 0, 1), 0, 10)).isEqualTo("100000000");
    // zero with a display scale: no groups.
    assertThat(BinaryValues.numericText(numeric(0, 0x0000, 3), 0, 8)).isEqualTo("0.000");
    // more than four groups: 123456789012345678901234567.891
    byte[] big = numeric(6, 0x0000, 3, 123, 4567, 8901, 2345, 6789, 123, 4567, 8910);
    assertThat(BinaryValues.numericText(big, 0, big.length)).isEqualTo("123456789012345678901234567.891");
    assertThat(BinaryValues.numeric(numeric(0, 0xC000, 0), 0, 8)).isNull();
    assertThat(BinaryValues.numericText(numeric(0, 0xC000, 0), 0, 8)).isEqualTo("NaN");
    assertThat(BinaryValues.numericText(numeric(0, 0xD000, 0), 0, 8)).isEqualTo("Infinity");
    assertThat(BinaryValues.numericText(numeric(0, 0xF000, 0), 0, 8)).isEqualTo("-Infinity");
    assertThatThrownBy(() -> BinaryValues.numeric(numeric(0, 0x0000, 0, 1), 0, 12))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("pg2spanner bug");
  }

  @Test
  void numericsThatFitAreWhatTheTextParserGivesAndTheRestReachIt() throws Exception {
    for (String text : new String[] {"1.50", "0.000", "-0.0001", "100000000", "99999999999999999999999999999.999999999",
        "0.000000001"}) {
      assertThat(ValueParsers.fittingNumeric(new BigDecimal(text))).as(text).isEqualTo(ValueParsers.numeric(text));
    }
    for (String text : new String[] {"0.0000000001", "100000000000000000000000000000"}) {
      assertThat(ValueParsers.fittingNumeric(new BigDecimal(text))).as(text).isNull();
      assertThatThrownBy(() -> ValueParsers.numeric(text)).isInstanceOf(ValueRejection.class);
    }
  }

  @Test
  void datesInsideSpannersRangeAndPostgresTextOutside() throws IOException {
    assertThat(BinaryValues.date(int32(0), 0, 4)).isEqualTo(Date.fromYearMonthDay(2000, 1, 1));
    assertThat(BinaryValues.date(int32(-1), 0, 4)).isEqualTo(Date.fromYearMonthDay(1999, 12, 31));
    int first = (int) (LocalDate.of(1, 1, 1).toEpochDay() - 10_957);
    int last = (int) (LocalDate.of(9999, 12, 31).toEpochDay() - 10_957);
    assertThat(BinaryValues.date(int32(first), 0, 4)).isEqualTo(Date.fromYearMonthDay(1, 1, 1));
    assertThat(BinaryValues.date(int32(last), 0, 4)).isEqualTo(Date.fromYearMonthDay(9999, 12, 31));
    // Outside: null, and the text PostgreSQL prints (checked with psql, DateStyle ISO).
    assertThat(BinaryValues.date(int32(first - 1), 0, 4)).isNull();
    assertThat(BinaryValues.dateText(int32(first - 1), 0, 4)).isEqualTo("0001-12-31 BC");
    assertThat(BinaryValues.dateText(int32(last + 1), 0, 4)).isEqualTo("10000-01-01");
    int caesar = (int) (LocalDate.of(-43, 3, 15).toEpochDay() - 10_957);
    assertThat(BinaryValues.dateText(int32(caesar), 0, 4)).isEqualTo("0044-03-15 BC");
    assertThat(BinaryValues.date(int32(Integer.MAX_VALUE), 0, 4)).isNull();
    assertThat(BinaryValues.dateText(int32(Integer.MAX_VALUE), 0, 4)).isEqualTo("infinity");
    assertThat(BinaryValues.dateText(int32(Integer.MIN_VALUE), 0, 4)).isEqualTo("-infinity");
  }

  @Test
  void timestampsInsideSpannersRangeAndPostgresTextOutside() throws IOException {
    assertThat(BinaryValues.timestamp(int64(0), 0, 8)).isEqualTo(Timestamp.parseTimestamp("2000-01-01T00:00:00Z"));
    // Before PostgreSQL's epoch the microseconds are negative: the fraction must still be positive.
    assertThat(BinaryValues.timestamp(int64(-500_000), 0, 8))
        .isEqualTo(Timestamp.parseTimestamp("1999-12-31T23:59:59.5Z"));
    assertThat(BinaryValues.timestamp(int64(micros("1969-12-31T23:59:59.999999Z")), 0, 8))
        .isEqualTo(Timestamp.parseTimestamp("1969-12-31T23:59:59.999999Z"));
    assertThat(BinaryValues.timestamp(int64(micros("0001-01-01T00:00:00Z")), 0, 8))
        .isEqualTo(Timestamp.MIN_VALUE);
    assertThat(BinaryValues.timestamp(int64(micros("9999-12-31T23:59:59.999999Z")), 0, 8))
        .isEqualTo(Timestamp.parseTimestamp("9999-12-31T23:59:59.999999Z"));
    // Outside: null, and the text PostgreSQL prints (checked with psql in a UTC session).
    long beforeFirst = micros("0001-01-01T00:00:00Z") - 1;
    assertThat(BinaryValues.timestamp(int64(beforeFirst), 0, 8)).isNull();
    assertThat(BinaryValues.timestampText(int64(beforeFirst), 0, 8, false)).isEqualTo("0001-12-31 23:59:59.999999 BC");
    assertThat(BinaryValues.timestampText(int64(micros("-0043-03-15T12:00:00.5Z")), 0, 8, true))
        .isEqualTo("0044-03-15 12:00:00.5+00 BC");
    long afterLast = micros("+10000-01-01T00:00:00Z");
    assertThat(BinaryValues.timestamp(int64(afterLast), 0, 8)).isNull();
    assertThat(BinaryValues.timestampText(int64(afterLast), 0, 8, true)).isEqualTo("10000-01-01 00:00:00+00");
    assertThat(BinaryValues.timestampText(int64(Long.MAX_VALUE), 0, 8, true)).isEqualTo("infinity");
    assertThat(BinaryValues.timestampText(int64(Long.MIN_VALUE), 0, 8, false)).isEqualTo("-infinity");
    // PostgreSQL's latest timestamp, far beyond what adding the epoch offset to its microseconds could hold.
    long latest = micros("+294276-12-31T23:59:59.999999Z");
    assertThat(BinaryValues.timestamp(int64(latest), 0, 8)).isNull();
    assertThat(BinaryValues.timestampText(int64(latest), 0, 8, false)).isEqualTo("294276-12-31 23:59:59.999999");
  }

  @Test
  void fixedWidthValues() throws IOException {
    assertThat(BinaryValues.int64(new byte[] {(byte) 0x80, 0}, 0, 2)).isEqualTo(-32768);
    assertThat(BinaryValues.int64(int32(Integer.MIN_VALUE), 0, 4)).isEqualTo(Integer.MIN_VALUE);
    assertThat(BinaryValues.int64(int64(Long.MAX_VALUE), 0, 8)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> BinaryValues.int64(new byte[3], 0, 3)).isInstanceOf(IllegalStateException.class);
    assertThat(Double.doubleToRawLongBits(BinaryValues.float64(int64(0x7ff0000000000001L), 0, 8)))
        .as("any NaN becomes Java's one NaN, as the text \"NaN\" does").isEqualTo(Double.doubleToRawLongBits(Double.NaN));
    assertThat(Double.doubleToRawLongBits(BinaryValues.float64(int64(Double.doubleToRawLongBits(-0.0)), 0, 8)))
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
    // A real read into FLOAT64 is widened exactly, as the text path widens Float.parseFloat("1.1").
    assertThat(BinaryValues.float64(int32(Float.floatToIntBits(1.1f)), 0, 4)).isEqualTo((double) 1.1f);
    assertThat(BinaryValues.uuid(int64pair(0xA0EEBC999C0B4EF8L, 0xBB6D6BB9BD380A11L), 0, 16))
        .isEqualTo("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    assertThat(BinaryValues.tid(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe, 0, 7}, 0, 6))
        .as("block numbers are unsigned").isEqualTo("(4294967294,7)");
    assertThatThrownBy(() -> BinaryValues.jsonb(new byte[] {2, '{', '}'}, 0, 3))
        .hasMessageContaining("version 2");
    assertThat(BinaryValues.jsonb(new byte[] {1, '{', '}'}, 0, 3)).isEqualTo("{}");
  }

  @Test
  void onlyKnownTypeAndConversionPairsAreReadInBinary() {
    assertThat(BinaryValues.decodes(ValueConversion.INT64, "integer")).isTrue();
    assertThat(BinaryValues.decodes(ValueConversion.INT64, "oid")).as("unsigned on the wire").isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.INT64, "positive_int")).as("a domain").isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.NUMERIC, "numeric(38,9)")).isTrue();
    assertThat(BinaryValues.decodes(ValueConversion.NUMERIC_TEXT, "numeric")).isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.TIMESTAMP, "timestamp(3) with time zone")).isTrue();
    assertThat(BinaryValues.decodes(ValueConversion.TIMESTAMP, "timestamp without time zone")).isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC, "timestamp without time zone"))
        .isTrue();
    assertThat(BinaryValues.decodes(ValueConversion.STRING, "character varying(20)")).isTrue();
    assertThat(BinaryValues.decodes(ValueConversion.STRING, "citext")).isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.FLOAT32, "double precision")).as("would round").isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.INT64, "integer[]")).as("arrays are copied as text").isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.MONEY_NUMERIC, "money")).isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.TEXT_OUTPUT, "inet")).isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.INT64, null)).isFalse();
  }

  @Test
  void aFieldOfAnotherWidthNamesATypeChangedSincePlan() {
    // Seen: a real column retyped to double precision after migrate's drift check and before its snapshot (while it
    // applied the tables) reaches the binary reader as 8-byte fields; the old message only blamed pg2spanner.
    assertThatThrownBy(() -> BinaryValues.float32(new byte[8], 0, 8))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("changed type since plan");
    assertThatThrownBy(() -> BinaryValues.int64(new byte[10], 0, 10))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("changed type since plan");
  }

  @Test
  void columnsWithoutADecoderAreCopiedAsTheirOutputText() {
    // Enums, and ENUM_TEXT edited onto another type (it validates: it writes STRING), arrays, domains: the value's
    // output text as text COPY prints it, never the type's binary form read as text ("\0\0\0*" for the int 42).
    assertThat(BinaryValues.decodes(ValueConversion.ENUM_TEXT, "public.tone")).isFalse();
    assertThat(BinaryValues.decodes(ValueConversion.ENUM_TEXT, "integer")).isFalse();
    assertThat(BinaryValues.outputText("\"e\""))
        .isEqualTo("CASE WHEN num_nulls(\"e\") = 1 THEN NULL ELSE format('%s', \"e\") END");
  }

  @Test
  void tuplesHeaderAndEndMarker() throws IOException {
    CopyTuple tuple = new CopyTuple(2);
    // The header arrives with the first row.
    byte[] first = concat(header(), row(new byte[] {1, 2}, null));
    assertThat(tuple.take(first, PIECE)).isTrue();
    assertThat(tuple.isNull(0)).isFalse();
    assertThat(tuple.length(0)).isEqualTo(2);
    assertThat(tuple.bytes()[tuple.from(0) + 1]).isEqualTo((byte) 2);
    assertThat(tuple.isNull(1)).isTrue();
    assertThat(tuple.take(row(new byte[0], new byte[] {9}), PIECE)).isTrue();
    assertThat(tuple.isNull(0)).as("empty is not NULL").isFalse();
    assertThat(tuple.length(0)).isZero();
    assertThat(tuple.ended()).isFalse();
    assertThat(tuple.take(new byte[] {(byte) 0xff, (byte) 0xff}, PIECE)).isFalse();
    assertThat(tuple.ended()).isTrue();
    assertThatThrownBy(() -> tuple.take(row(null, null), PIECE)).hasMessageContaining("after the end marker");

    // No rows: the header and the end marker in one message.
    CopyTuple empty = new CopyTuple(2);
    assertThat(empty.take(concat(header(), new byte[] {(byte) 0xff, (byte) 0xff}), PIECE)).isFalse();
    assertThat(empty.ended()).isTrue();
    // The header alone.
    CopyTuple alone = new CopyTuple(2);
    assertThat(alone.take(header(), PIECE)).isFalse();
    assertThat(alone.ended()).isFalse();
  }

  @Test
  void malformedTuplesAreRefusedNamingThePiece() throws IOException {
    assertThatThrownBy(() -> new CopyTuple(2).take(row(null, null), PIECE))
        .hasMessageContaining("piece t#0").hasMessageContaining("no binary COPY header");
    assertThatThrownBy(() -> new CopyTuple(2).take(concat(row(null, null), row(null, null)), PIECE))
        .hasMessageContaining("no binary COPY signature");
    CopyTuple three = new CopyTuple(3);
    assertThatThrownBy(() -> three.take(concat(header(), row(null, null)), PIECE))
        .hasMessageContaining("has 2 fields, expected 3");
    CopyTuple two = new CopyTuple(2);
    assertThatThrownBy(() -> two.take(concat(header(), row(new byte[] {1}, null), new byte[] {0}), PIECE))
        .hasMessageContaining("1 bytes after the last field");
    byte[] cut = concat(header(), row(new byte[] {1, 2, 3}, null));
    assertThatThrownBy(() -> new CopyTuple(2).take(java.util.Arrays.copyOf(cut, cut.length - 6), PIECE))
        .hasMessageContaining("piece t#0");
  }

  // ---- PostgreSQL's binary formats, written out -------------------------------------------------------------------

  private static long micros(String instant) {
    Instant i = Instant.parse(instant);
    // Relative to 2000 first: PostgreSQL's latest timestamp in microseconds since 1970 would overflow a long.
    return Math.addExact(Math.multiplyExact(i.getEpochSecond() - PG_EPOCH_MICROS / 1_000_000L, 1_000_000L),
        i.getNano() / 1000);
  }

  private static byte[] numeric(int weight, int sign, int dscale, int... digits) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeShort(digits.length);
    out.writeShort(weight);
    out.writeShort(sign);
    out.writeShort(dscale);
    for (int d : digits) {
      out.writeShort(d);
    }
    return bytes.toByteArray();
  }

  private static byte[] int32(int v) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new DataOutputStream(bytes).writeInt(v);
    return bytes.toByteArray();
  }

  private static byte[] int64(long v) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new DataOutputStream(bytes).writeLong(v);
    return bytes.toByteArray();
  }

  private static byte[] int64pair(long a, long b) throws IOException {
    return concat(int64(a), int64(b));
  }

  private static byte[] header() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(new byte[] {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0});
    out.writeInt(0);
    out.writeInt(0);
    return bytes.toByteArray();
  }

  /** A two-field row; null for SQL NULL. */
  private static byte[] row(byte[] a, byte[] b) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeShort(2);
    for (byte[] field : new byte[][] {a, b}) {
      if (field == null) {
        out.writeInt(-1);
      } else {
        out.writeInt(field.length);
        out.write(field);
      }
    }
    return bytes.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      bytes.writeBytes(p);
    }
    return bytes.toByteArray();
  }
}
