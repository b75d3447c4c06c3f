package dev.pg2spanner.canonical;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Value;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CanonicalTest {

  @Test
  void scalarFormsPerType() {
    assertThat(Canonical.of(Value.bool(true))).isEqualTo("TRUE");
    assertThat(Canonical.of(Value.int64(-42))).isEqualTo("-42");
    assertThat(Canonical.of(Value.float64(1.5))).isEqualTo("FLOAT64 0x3ff8000000000000 (1.5)");
    assertThat(Canonical.of(Value.float32(1.5f))).isEqualTo("FLOAT32 0x3fc00000 (1.5)");
    assertThat(Canonical.of(Value.numeric(new BigDecimal("-0.5")))).isEqualTo("NUMERIC -0.5");
    assertThat(Canonical.of(Value.string("it's"))).isEqualTo("'it''s'");
    assertThat(Canonical.of(Value.bytes(ByteArray.copyFrom(new byte[] {0, 1, (byte) 0xff}))))
        .isEqualTo("b64'AAH/'");
    assertThat(Canonical.of(Value.date(Date.fromYearMonthDay(1, 2, 3)))).isEqualTo("DATE 0001-02-03");
    assertThat(Canonical.of(Value.json("{\"a\": [1, \"x\"]}"))).isEqualTo("JSON '{\"a\":[1,\"x\"]}'");
  }

  @Test
  void floatsAreBitExact() {
    assertThat(Canonical.of(Value.float64(-0.0))).isNotEqualTo(Canonical.of(Value.float64(0.0)));
    assertThat(Canonical.of(Value.float32(-0.0f))).isNotEqualTo(Canonical.of(Value.float32(0.0f)));
    assertThat(Canonical.of(Value.float64(Double.POSITIVE_INFINITY)))
        .isNotEqualTo(Canonical.of(Value.float64(Double.NEGATIVE_INFINITY)))
        .isNotEqualTo(Canonical.of(Value.float64(Double.MAX_VALUE)));
    assertThat(Canonical.of(Value.float64(Double.NaN))).isEqualTo(Canonical.of(Value.float64(0.0 / 0.0)))
        .isNotEqualTo(Canonical.of(Value.float64(Double.POSITIVE_INFINITY)));
    // A NaN with another payload is still NaN: Spanner's wire format cannot carry the payload.
    assertThat(Canonical.of(Value.float64(Double.longBitsToDouble(0x7ff0000000000001L))))
        .isEqualTo(Canonical.of(Value.float64(Double.NaN)));
    assertThat(Canonical.of(Value.float32(Float.NaN))).contains("0x7fc00000");
    // The nearest doubles differ by one bit and must differ.
    assertThat(Canonical.of(Value.float64(0.1))).isNotEqualTo(Canonical.of(Value.float64(Math.nextUp(0.1))));
    // FLOAT32 and FLOAT64 of the "same" number are different values.
    assertThat(Canonical.of(Value.float32(1.5f))).isNotEqualTo(Canonical.of(Value.float64(1.5)));
  }

  @Test
  void numericComparesByValue() {
    assertThat(Canonical.of(Value.numeric(new BigDecimal("1.50"))))
        .isEqualTo(Canonical.of(Value.numeric(new BigDecimal("1.5"))))
        .isEqualTo("NUMERIC 1.5");
    assertThat(Canonical.of(Value.numeric(new BigDecimal("100")))).isEqualTo("NUMERIC 100");
    assertThat(Canonical.of(Value.numeric(new BigDecimal("0.000")))).isEqualTo("NUMERIC 0");
    assertThat(Canonical.of(Value.numeric(new BigDecimal("1.000000001"))))
        .isNotEqualTo(Canonical.of(Value.numeric(new BigDecimal("1"))));
    // A numeric kept as text (NUMERIC_TEXT) is a STRING: its exact text matters.
    assertThat(Canonical.of(Value.string("1.50"))).isNotEqualTo(Canonical.of(Value.string("1.5")));
  }

  @Test
  void timestampsAreMicrosecondsSinceTheEpoch() {
    assertThat(Canonical.of(Value.timestamp(Timestamp.parseTimestamp("1970-01-01T00:00:01.000002Z"))))
        .isEqualTo("TIMESTAMP 1000002");
    assertThat(Canonical.of(Value.timestamp(Timestamp.parseTimestamp("0001-01-01T00:00:00Z"))))
        .isEqualTo("TIMESTAMP -62135596800000000");
    assertThat(Canonical.of(Value.timestamp(Timestamp.ofTimeMicroseconds(1_706_659_200_000_001L))))
        .isNotEqualTo(Canonical.of(Value.timestamp(Timestamp.ofTimeMicroseconds(1_706_659_200_000_000L))));
    assertThat(Canonical.of(Value.timestamp(Timestamp.ofTimeSecondsAndNanos(0, 1500))))
        .isEqualTo("TIMESTAMP 1.500");
    assertThat(Canonical.of(Value.timestamp(Timestamp.ofTimeSecondsAndNanos(-1, 999_999_000))))
        .isEqualTo("TIMESTAMP -1");
  }

  @Test
  void jsonComparesSemantically() {
    String a = Canonical.of(Value.json("{\"b\": 2, \"a\": {\"y\": [1, 2.50], \"x\": null}}"));
    String b = Canonical.of(Value.json("{\"a\":{\"x\":null,\"y\":[1,2.5]},\"b\":2}"));
    assertThat(a).isEqualTo(b).isEqualTo("JSON '{\"a\":{\"x\":null,\"y\":[1,2.5]},\"b\":2}'");
    // Spanner keeps the first of duplicate keys.
    assertThat(Canonical.of(Value.json("{\"k\": 1, \"k\": 2}"))).isEqualTo(Canonical.of(Value.json("{\"k\":1}")));
    assertThat(Canonical.of(Value.json("{\"k\": 1}"))).isNotEqualTo(Canonical.of(Value.json("{\"k\": 2}")));
    assertThat(Canonical.of(Value.json("[1, 2]"))).isNotEqualTo(Canonical.of(Value.json("[2, 1]")));
    assertThat(Canonical.of(Value.json("{\"k\": \"1\"}"))).isNotEqualTo(Canonical.of(Value.json("{\"k\": 1}")));
    assertThat(Canonical.of(Value.json("\"\\u00e9\""))).isEqualTo(Canonical.of(Value.json("\"é\"")));
    assertThat(Canonical.of(Value.json("null"))).isNotEqualTo(Canonical.of(Value.json(null)));
    assertThat(Canonical.of(Value.json("1e2"))).isEqualTo(Canonical.of(Value.json("100.0")));
    // A quote inside JSON text cannot break out of the canonical literal.
    assertThat(Canonical.of(Value.json("{\"it's\": 1}"))).isEqualTo("JSON '{\"it''s\":1}'");
    // Not JSON at all: compared as text, never equal to a JSON value, and verify carries on.
    assertThat(Canonical.of(Value.json("{oops"))).isEqualTo("JSON? '{oops'");
  }

  @Test
  void nullEmptyStringAndEmptyArrayDiffer() {
    Set<String> forms = new HashSet<>(List.of(
        Canonical.of(Value.string(null)),
        Canonical.of(Value.string("")),
        Canonical.of(Value.string("NULL")),
        Canonical.of(Value.stringArray(List.of())),
        Canonical.of(Value.stringArray(Collections.singletonList(null))),
        Canonical.of(Value.stringArray(List.of(""))),
        Canonical.of(Value.bytes(ByteArray.copyFrom(new byte[0])))));
    assertThat(forms).hasSize(7);
    // NULL is NULL whatever the column type says.
    assertThat(Canonical.of(Value.json(null))).isEqualTo(Canonical.of(Value.int64Array((long[]) null)))
        .isEqualTo("NULL");
  }

  @Test
  void arraysKeepOrderAndMarkNullElements() {
    assertThat(Canonical.of(Value.int64Array(Arrays.asList(1L, null, 3L)))).isEqualTo("[1, NULL, 3]");
    assertThat(Canonical.of(Value.stringArray(Arrays.asList("a", null)))).isEqualTo("['a', NULL]");
    assertThat(Canonical.of(Value.stringArray(List.of("a, 'b")))).isNotEqualTo(
        Canonical.of(Value.stringArray(List.of("a", "b"))));
    assertThat(Canonical.of(Value.int64Array(List.of(1L, 2L))))
        .isNotEqualTo(Canonical.of(Value.int64Array(List.of(2L, 1L))));
    assertThat(Canonical.of(Value.float64Array(List.of(-0.0, Double.NaN))))
        .isEqualTo("[FLOAT64 0x8000000000000000 (-0.0), FLOAT64 0x7ff8000000000000 (NaN)]");
    assertThat(Canonical.of(Value.numericArray(List.of(new BigDecimal("2.10")))))
        .isEqualTo(Canonical.of(Value.numericArray(List.of(new BigDecimal("2.1")))));
    assertThat(Canonical.of(Value.jsonArray(Arrays.asList("{\"b\":1, \"a\":2}", null))))
        .isEqualTo("[JSON '{\"a\":2,\"b\":1}', NULL]");
    assertThat(Canonical.of(Value.dateArray(List.of(Date.fromYearMonthDay(2024, 1, 31)))))
        .isEqualTo("[DATE 2024-01-31]");
    assertThat(Canonical.of(Value.timestampArray(List.of(Timestamp.ofTimeMicroseconds(5)))))
        .isEqualTo("[TIMESTAMP 5]");
    assertThat(Canonical.of(Value.boolArray(Arrays.asList(true, null)))).isEqualTo("[TRUE, NULL]");
    assertThat(Canonical.of(Value.bytesArray(List.of(ByteArray.copyFrom("hi"))))).isEqualTo("[b64'aGk=']");
    assertThat(Canonical.of(Value.float32Array(List.of(2.0f)))).isEqualTo("[FLOAT32 0x40000000 (2.0)]");
  }

  @Test
  void rowHashSeparatesColumnBoundaries() {
    byte[] h1 = Canonical.rowHash(List.of(Value.string("a"), Value.string("b|c")));
    byte[] h2 = Canonical.rowHash(List.of(Value.string("a|b"), Value.string("c")));
    assertThat(h1).hasSize(16).isNotEqualTo(h2);
    assertThat(Canonical.rowHash(List.of(Value.string("a"), Value.string("b"))))
        .isEqualTo(Canonical.rowHash(List.of(Value.string("a"), Value.string("b"))));
    assertThat(Canonical.rowHash(List.of(Value.string(null))))
        .isNotEqualTo(Canonical.rowHash(List.of(Value.string(""))));
    assertThat(Canonical.rowHash(List.of())).isNotEqualTo(Canonical.rowHash(List.of(Value.string(""))));
  }

  @Test
  void keyTextJoinsCanonicalValues() {
    assertThat(Canonical.keyText(List.of(Value.int64(7), Value.string("a, b")))).isEqualTo("7, 'a, b'");
    assertThat(Canonical.keyText(List.of(Value.string("a"), Value.string("b"))))
        .isNotEqualTo(Canonical.keyText(List.of(Value.string("a', 'b"))));
  }
}
