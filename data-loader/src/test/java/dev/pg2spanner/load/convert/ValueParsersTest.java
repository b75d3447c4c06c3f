package dev.pg2spanner.load.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import dev.pg2spanner.load.row.CommitLimits;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ValueParsersTest {

  @Test
  void floatsAreBitExact() throws Exception {
    assertThat(Double.doubleToRawLongBits(ValueParsers.float64("-0"))).isEqualTo(Double.doubleToRawLongBits(-0.0));
    assertThat(ValueParsers.float64("NaN")).isNaN();
    assertThat(ValueParsers.float64("Infinity")).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(ValueParsers.float64("-Infinity")).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(ValueParsers.float64("0.1")).isEqualTo(0.1);
    assertThat(ValueParsers.float64("1.7976931348623157e+308")).isEqualTo(Double.MAX_VALUE);
    assertThat(ValueParsers.float64("5e-324")).isEqualTo(Double.MIN_VALUE);
  }

  @Test
  void float32TakesWidenedRealTextAndRejectsRounding() throws Exception {
    // real 1.1 widened to float8 prints as 1.100000023841858
    assertThat(ValueParsers.float32(Double.toString((double) 1.1f))).isEqualTo(1.1f);
    assertThat(Float.floatToRawIntBits(ValueParsers.float32("-0"))).isEqualTo(Float.floatToRawIntBits(-0.0f));
    assertThat(ValueParsers.float32("NaN")).isNaN();
    assertThat(ValueParsers.float32("-Infinity")).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThatThrownBy(() -> ValueParsers.float32("0.1")).isInstanceOf(ValueRejection.class)
        .hasMessageContaining("FLOAT32 without rounding");
  }

  @Test
  void numericFitsNumeric38Dot9OrIsRejectedNeverRounded() throws Exception {
    assertThat(ValueParsers.numeric("99999999999999999999999999999.999999999"))
        .isEqualTo(new BigDecimal("99999999999999999999999999999.999999999"));
    assertThat(ValueParsers.numeric("-0.000000001")).isEqualTo(new BigDecimal("-0.000000001"));
    assertThat(ValueParsers.numeric("1.5000000000")).isEqualTo(new BigDecimal("1.5"));
    assertThat(ValueParsers.numeric("12.500").toPlainString()).isEqualTo("12.5");
    assertThat(ValueParsers.numeric("10000000000000000000000000000").toPlainString()).hasSize(29);
    assertThat(ValueParsers.numeric("0.000").toPlainString()).isEqualTo("0");
    assertThat(ValueParsers.numeric("1000").toPlainString()).isEqualTo("1000");
    assertThatThrownBy(() -> ValueParsers.numeric("999999999999999999999999999999"))
        .hasMessageContaining("30 integer digits");
    assertThatThrownBy(() -> ValueParsers.numeric("0.0000000001")).hasMessageContaining("10 fractional digits");
    assertThatThrownBy(() -> ValueParsers.numeric("NaN")).hasMessageContaining("NaN");
    assertThatThrownBy(() -> ValueParsers.numeric("-Infinity")).hasMessageContaining("no NaN or infinity");
  }

  @Test
  void datesInRangeAndRejections() throws Exception {
    assertThat(ValueParsers.date("0001-01-01")).isEqualTo(Date.fromYearMonthDay(1, 1, 1));
    assertThat(ValueParsers.date("9999-12-31")).isEqualTo(Date.fromYearMonthDay(9999, 12, 31));
    assertThat(ValueParsers.date("2024-02-29")).isEqualTo(Date.fromYearMonthDay(2024, 2, 29));
    for (String bad : new String[] {"infinity", "-infinity", "0001-12-31 BC", "10000-01-01"}) {
      assertThatThrownBy(() -> ValueParsers.date(bad)).as(bad).hasMessageContaining("outside Spanner's DATE range");
    }
    assertThatThrownBy(() -> ValueParsers.date("2023-02-29")).hasMessageContaining("not an ISO date");
  }

  @Test
  void timestampsParseWithoutAnyZone() throws Exception {
    assertThat(ValueParsers.timestamp("2021-03-14 02:30:00"))
        .isEqualTo(Timestamp.parseTimestamp("2021-03-14T02:30:00Z"));
    assertThat(ValueParsers.timestamp("0001-01-01 00:00:00"))
        .isEqualTo(Timestamp.parseTimestamp("0001-01-01T00:00:00Z"));
    assertThat(ValueParsers.timestamp("9999-12-31 23:59:59.999999"))
        .isEqualTo(Timestamp.parseTimestamp("9999-12-31T23:59:59.999999Z"));
    assertThat(ValueParsers.timestamp("2000-01-01 00:00:00.5")).isEqualTo(Timestamp.ofTimeSecondsAndNanos(
        946_684_800L, 500_000_000));
    assertThat(ValueParsers.timestamp("2021-06-01 12:00:00+05:30"))
        .isEqualTo(Timestamp.parseTimestamp("2021-06-01T06:30:00Z"));
    assertThat(ValueParsers.timestamp("1900-01-01 00:00:00-00:17:30"))
        .isEqualTo(Timestamp.parseTimestamp("1900-01-01T00:17:30Z"));
    for (String bad : new String[] {"infinity", "-infinity", "0001-01-01 00:00:00 BC", "0001-01-01 00:00:00+00 BC",
        "10000-01-01 00:00:00", "0001-01-01 00:30:00+01"}) {
      assertThatThrownBy(() -> ValueParsers.timestamp(bad)).as(bad)
          .hasMessageContaining("outside Spanner's TIMESTAMP range");
    }
  }

  @Test
  void epochDayAgreesWithJavaTime() {
    for (LocalDate d : new LocalDate[] {LocalDate.of(1, 1, 1), LocalDate.of(1600, 2, 29), LocalDate.of(1970, 1, 1),
        LocalDate.of(2000, 3, 1), LocalDate.of(9999, 12, 31), LocalDate.of(1899, 12, 31)}) {
      assertThat(ValueParsers.epochDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth()))
          .as(d.toString()).isEqualTo(d.toEpochDay());
    }
  }

  @Test
  void stringLimitsCountCharactersAndBytes() throws Exception {
    String emoji = "😀😀😀"; // 6 UTF-16 units, 3 characters
    assertThat(ValueParsers.string(emoji, 3)).isSameAs(emoji);
    assertThatThrownBy(() -> ValueParsers.string("abcd", 3)).hasMessageContaining("4 characters; the column holds "
        + "at most 3");
    assertThat(ValueParsers.utf8Length("aé€😀")).isEqualTo(1 + 2 + 3 + 4);
    char[] largest = new char[CommitLimits.SPANNER.maxCellBytes() / 2]; // 'é' is 2 bytes in UTF-8: exactly 10 MiB
    Arrays.fill(largest, 'é');
    assertThat(ValueParsers.string(new String(largest), Integer.MAX_VALUE)).hasSize(largest.length);
    char[] big = new char[CommitLimits.SPANNER.maxCellBytes() / 2 + 1];
    Arrays.fill(big, 'é');
    assertThatThrownBy(() -> ValueParsers.string(new String(big), Integer.MAX_VALUE))
        .hasMessageContaining("at most 10 MiB");
    assertThatThrownBy(() -> ValueParsers.bytes(new byte[5], 4)).hasMessageContaining("at most 4");
  }

  @Test
  void hexBytea() throws Exception {
    assertThat(ValueParsers.hexBytea("\\x00ff7F")).containsExactly(0, -1, 127);
    assertThat(ValueParsers.hexBytea("\\x")).isEmpty();
    assertThatThrownBy(() -> ValueParsers.hexBytea("abc")).isInstanceOf(ValueRejection.class);
  }

  @Test
  void arrayTextKeepsNullsOrderQuotingAndRejectsMoreDimensions() throws Exception {
    assertThat(ValueParsers.arrayElements("{}", ',')).isEmpty();
    assertThat(ValueParsers.arrayElements("{1,NULL,3}", ',')).containsExactly("1", null, "3");
    assertThat(ValueParsers.arrayElements("{\"NULL\",\"\",\"a,b\",\"q\\\"x\\\\\"}", ','))
        .containsExactly("NULL", "", "a,b", "q\"x\\");
    assertThat(ValueParsers.arrayElements("[0:1]={7,8}", ',')).containsExactly("7", "8");
    assertThat(ValueParsers.arrayElements("{\"ab  \",c}", ',')).containsExactly("ab  ", "c");
    assertThat(ValueParsers.arrayElements("{(1,1),(0,0);(2,2),(1,1)}", ';'))
        .containsExactly("(1,1),(0,0)", "(2,2),(1,1)");
    assertThatThrownBy(() -> ValueParsers.arrayElements("{{1,2},{3,4}}", ','))
        .hasMessageContaining("more than one dimension");
    assertThatThrownBy(() -> ValueParsers.arrayElements("{1,2", ',')).isInstanceOf(ValueRejection.class);
  }

  @Test
  void aPostgresDialectJsonbColumnRefusesWhatSpannersJsonbRefusesAndKeepsTheRest() throws Exception {
    // Spanner refused the whole commit: "Could not parse "\u0000" as a JSONB" (issue 28's type catalogue).
    assertThatThrownBy(() -> ValueParsers.pgJsonb("{\"z\": \"\\u0000\"}")).isInstanceOf(ValueRejection.class)
        .hasMessageContaining("Spanner's jsonb refuses a string holding U+0000");
    assertThatThrownBy(() -> ValueParsers.pgJsonb("{\"\\ud800\": 1}")).isInstanceOf(ValueRejection.class)
        .hasMessageContaining("unpaired surrogate");
    // A json document that repeats a key would arrive changed: jsonb keeps the last.
    assertThatThrownBy(() -> ValueParsers.pgJsonb("{\"a\": 1, \"a\": 2}")).isInstanceOf(ValueRejection.class)
        .hasMessageContaining("Spanner's jsonb keeps one of duplicate keys");
    // jsonb's own semantics for the rest: long numbers and escapes are kept.
    assertThat(ValueParsers.pgJsonb("{\"k\": 2.2412421353246235436, \"s\": \"\\u00e9\"}"))
        .isEqualTo("{\"k\": 2.2412421353246235436, \"s\": \"\\u00e9\"}");
    assertThat(ValueParsers.pgJsonbUniqueKeys("{\"a\": 1}")).isEqualTo("{\"a\": 1}");
    assertThatThrownBy(() -> ValueParsers.pgJsonbUniqueKeys("[\"\\udc00\"]")).isInstanceOf(ValueRejection.class);
  }

  @Test
  void vectorsAreIntegersSeparatedBySpaces() throws Exception {
    assertThat(ValueParsers.vectorElements("")).isEmpty();
    assertThat(ValueParsers.vectorElements("5")).containsExactly("5");
    assertThat(ValueParsers.vectorElements("-32768 32767")).containsExactly("-32768", "32767");
    assertThatThrownBy(() -> ValueParsers.vectorElements("1  2")).isInstanceOf(ValueRejection.class)
        .hasMessageContaining("not vector text output");
    assertThatThrownBy(() -> ValueParsers.vectorElements("1 ")).isInstanceOf(ValueRejection.class);
  }

  @Test
  void syntheticKeysAreDeterministicPerRelationAndCtid() {
    assertThat(ValueParsers.syntheticKey("public.t", "(0,1)")).isEqualTo(ValueParsers.syntheticKey("public.t",
        "(0,1)"));
    assertThat(ValueParsers.syntheticKey("public.t", "(0,1)")).isNotEqualTo(ValueParsers.syntheticKey("public.t",
        "(0,2)"));
    assertThat(ValueParsers.syntheticKey("public.t", "(0,1)")).isNotEqualTo(ValueParsers.syntheticKey("public.u",
        "(0,1)"));
  }

  @Test
  void excerptIsAtMost200Characters() {
    assertThat(ValueParsers.excerpt("x".repeat(500))).hasSize(201).endsWith("…");
    assertThat(ValueParsers.excerpt(null)).isNull();
  }

  /** The text parser's answer as a comparable string: the value, or the rejection's message. */
  private static String byText(ValueCodec.Parser<?> parser, String text) {
    try {
      return String.valueOf(parser.parse(text));
    } catch (ValueRejection e) {
      return "rejected: " + e.getMessage();
    }
  }

  @Test
  void bytesParsersAgreeWithTheTextParsersOrStepAside() throws ValueRejection {
    java.util.List<String> timestamps = java.util.List.of("2024-01-02 03:04:05+00", "2024-01-02 03:04:05.123456+00",
        "2024-02-29 23:59:59.5-05:30", "2023-02-29 00:00:00+00", "0001-01-01 00:00:00+00", "0001-01-01 00:00:00+01",
        "9999-12-31 23:59:59.999999+00", "9999-12-31 23:59:59-01", "2024-01-02 24:00:00+00", "2024-01-02 23:59:60+00",
        "2024-01-02 03:04:05.1234567891+00", "2024-01-02 03:04:05.+00", "2024-01-02 03:04:05+05:30:15",
        "2024-01-02 03:04:05", "12024-01-02 03:04:05+00", "0044-03-15 12:00:00+00 BC", "infinity", "-infinity",
        "2024-01-02T03:04:05+00", "2024-1-02 03:04:05+00", "2024-01-02 03:04:05+0");
    int plain = 0;
    for (String t : timestamps) {
      byte[] b = ("\t" + t + "\t").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Timestamp fast = ValueParsers.plainTimestamp(b, 1, b.length - 1);
      if (fast != null) {
        plain++;
        assertThat(String.valueOf(fast)).as(t).isEqualTo(byText(ValueParsers::timestamp, t));
      }
    }
    assertThat(plain).as("the common forms are parsed from bytes").isEqualTo(6);
    java.util.List<String> dates = java.util.List.of("2024-02-29", "2023-02-29", "0001-01-01", "9999-12-31",
        "0000-01-01", "10000-01-01", "2024-13-01", "infinity", "0044-03-15 BC", "2024-1-01");
    plain = 0;
    for (String d : dates) {
      byte[] b = d.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Date fast = ValueParsers.plainDate(b, 0, b.length);
      if (fast != null) {
        plain++;
        assertThat(String.valueOf(fast)).as(d).isEqualTo(byText(ValueParsers::date, d));
      }
    }
    assertThat(plain).isEqualTo(3);
    java.util.List<String> integers = java.util.List.of("0", "-0", "42", "-42", "999999999999999999",
        "-999999999999999999", "1000000000000000000", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "+5", "-", "", "1.0", "1e3");
    plain = 0;
    for (String n : integers) {
      byte[] b = n.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      long fast = ValueParsers.plainInt64(b, 0, b.length);
      if (fast != ValueParsers.NOT_PLAIN) {
        plain++;
        assertThat(String.valueOf(fast)).as(n).isEqualTo(byText(ValueParsers::int64, n));
      }
    }
    assertThat(plain).as("up to 18 digits").isEqualTo(6);
    java.util.List<String> numerics = java.util.List.of("0", "-0", "0.00", "12.50", "-0.5", "100", "1.000000000",
        "0.123456789", "0.1234567891", "0.12345678910", "123456789012345678", "1234567890123456789",
        "99999999999999999.9", "NaN", "Infinity", "-Infinity", ".5", "5.", "1e5", "-", "", "1.2.3", "--1");
    plain = 0;
    for (String n : numerics) {
      byte[] b = n.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      BigDecimal fast = ValueParsers.plainNumeric(b, 0, b.length);
      if (fast != null) {
        plain++;
        BigDecimal text = ValueParsers.numeric(n);
        assertThat(fast).as(n).isEqualTo(text);
        assertThat(fast.scale()).as(n).isEqualTo(text.scale());
      }
    }
    assertThat(plain).as("up to 18 digits, at most 9 after the point once trailing zeros go").isEqualTo(10);
  }
  @Test
  void moneyKeepsItsPrintedDigitsForThePostgresDialectAndIsShortestForNumeric() throws Exception {
    // What money::numeric::text prints (the result-set reader), which a PostgreSQL-dialect numeric keeps as is.
    assertThat(ValueParsers.moneyDecimal("$0.00")).isEqualTo("0.00");
    assertThat(ValueParsers.moneyDecimal("-$1,234.50")).isEqualTo("-1234.50");
    assertThat(ValueParsers.money("-$1,234.50")).isEqualByComparingTo("-1234.5").hasToString("-1234.5");
    assertThatThrownBy(() -> ValueParsers.moneyDecimal("12 EUR")).isInstanceOf(ValueRejection.class);
  }
}
