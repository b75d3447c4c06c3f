package dev.pg2spanner.load.convert;

import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import dev.pg2spanner.plan.ValueConversion;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * Column values in PostgreSQL's binary wire format, what {@code COPY ... TO STDOUT (FORMAT binary)} sends: each type's
 * {@code send} function's output, network byte order. PostgreSQL formats these at about two thirds of the cost of the
 * text output (BENCHMARKS.md, issue 18), and the loader decodes them without parsing digits.
 *
 * <p>Only pairs of source type and conversion whose binary form is fixed and known are decoded here
 * ({@link #decodes}); any other column (arrays, domains, enums, money, intervals, inet...) is selected as its output
 * text inside the same binary COPY ({@link #outputText}) and parsed as text COPY's would be. The rule that keeps both paths exact: a value
 * the binary path would not write as is (out of Spanner's range, NaN or infinity where the target has none) is
 * turned into the very text PostgreSQL would have printed for it and handed to the text parser, so a value or a
 * rejection never depends on which format read it ({@code BinaryValuesTest} and {@code CopyReaderIT} hold both paths
 * to the same answers).
 */
final class BinaryValues {

  /** 2000-01-01, PostgreSQL's epoch for dates and timestamps, in days and seconds since 1970-01-01. */
  private static final int PG_EPOCH_DAY = 10_957;
  private static final long PG_EPOCH_SECOND = 946_684_800L;
  /** How PostgreSQL stores ±infinity for a date and a timestamp. */
  private static final int DATE_INFINITY = Integer.MAX_VALUE;
  private static final int DATE_MINUS_INFINITY = Integer.MIN_VALUE;
  private static final long TIMESTAMP_INFINITY = Long.MAX_VALUE;
  private static final long TIMESTAMP_MINUS_INFINITY = Long.MIN_VALUE;
  /** numeric's sign word. */
  private static final int NUMERIC_POS = 0x0000;
  private static final int NUMERIC_NEG = 0x4000;
  private static final int NUMERIC_NAN = 0xC000;
  private static final int NUMERIC_PINF = 0xD000;
  private static final int NUMERIC_NINF = 0xF000;
  private static final BigInteger TEN_THOUSAND = BigInteger.valueOf(10_000);

  private static final Set<String> INTEGERS = Set.of("smallint", "integer", "bigint");
  private static final Set<String> STRINGS = Set.of("text", "character varying", "character", "name");

  private BinaryValues() {}

  /**
   * True when a scalar column of this source type and conversion is decoded from its binary form. The source type is
   * the plan's ({@code format_type}: "integer", "numeric(10,2)", "timestamp(3) with time zone"); a domain, an
   * extension type or anything unknown is not, and its table is copied as text.
   */
  static boolean decodes(ValueConversion conversion, String sourceType) {
    if (sourceType == null || sourceType.endsWith("]")) {
      return false;
    }
    String base = baseType(sourceType);
    return switch (conversion) {
      case BOOL -> base.equals("boolean");
      case INT64, KEY_UUID -> INTEGERS.contains(base);
      case FLOAT32 -> base.equals("real");
      case FLOAT64 -> base.equals("real") || base.equals("double precision");
      case NUMERIC -> base.equals("numeric");
      case DATE -> base.equals("date");
      case TIMESTAMP -> base.equals("timestamp with time zone");
      case TIMESTAMP_WALL_CLOCK_AS_UTC -> base.equals("timestamp without time zone");
      case STRING -> STRINGS.contains(base);
      case BYTES -> base.equals("bytea");
      case JSON, JSON_TEXT -> base.equals("json") || base.equals("jsonb");
      case UUID_TEXT -> base.equals("uuid");
      default -> false;
    };
  }

  /**
   * What a binary COPY selects for a column without a binary decoder: {@code format('%s', col)} calls the type's
   * output function, so the field holds exactly the text that text COPY prints for it, to be parsed by the same text
   * parser. NULL stays NULL ({@code num_nulls}, not {@code IS NULL}, which is also true for a composite value whose
   * fields are all NULL).
   *
   * @param quoted the column's quoted name
   */
  static String outputText(String quoted) {
    return "CASE WHEN num_nulls(" + quoted + ") = 1 THEN NULL ELSE format('%s', " + quoted + ") END";
  }

  /** The type without its modifiers: "numeric(10,2)" → "numeric", "timestamp(3) with time zone" → "timestamp with time zone". */
  static String baseType(String sourceType) {
    return sourceType.replaceAll("\\(\\d+(,\\s*-?\\d+)?\\)", "").replaceAll("\\s+", " ").strip()
        .toLowerCase(Locale.ROOT);
  }

  // ---- fixed-width numbers -------------------------------------------------------------------------------------

  static long int64(byte[] b, int from, int length) {
    return switch (length) {
      case 2 -> (short) (((b[from] & 0xff) << 8) | (b[from + 1] & 0xff));
      case 4 -> int32(b, from);
      case 8 -> long64(b, from);
      default -> throw framing("an integer", length);
    };
  }

  static int int32(byte[] b, int from) {
    return ((b[from] & 0xff) << 24) | ((b[from + 1] & 0xff) << 16) | ((b[from + 2] & 0xff) << 8) | (b[from + 3] & 0xff);
  }

  static long long64(byte[] b, int from) {
    return ((long) int32(b, from) << 32) | (int32(b, from + 4) & 0xffffffffL);
  }

  private static int uint16(byte[] b, int from) {
    return ((b[from] & 0xff) << 8) | (b[from + 1] & 0xff);
  }

  static boolean bool(byte[] b, int from, int length) {
    if (length != 1) {
      throw framing("a boolean", length);
    }
    return b[from] != 0;
  }

  /** float8, bit for bit; NaN as Java's one NaN (the text path's "NaN"). */
  static double float64(byte[] b, int from, int length) {
    if (length == 4) {
      return float32(b, from, length);
    }
    if (length != 8) {
      throw framing("a double precision", length);
    }
    double d = Double.longBitsToDouble(long64(b, from));
    return Double.isNaN(d) ? Double.NaN : d;
  }

  /** float4, bit for bit; NaN as Java's one NaN. */
  static float float32(byte[] b, int from, int length) {
    if (length != 4) {
      throw framing("a real", length);
    }
    float f = Float.intBitsToFloat(int32(b, from));
    return Float.isNaN(f) ? Float.NaN : f;
  }

  // ---- numeric -------------------------------------------------------------------------------------------------

  /**
   * A numeric's exact text, as {@code numeric_out} prints it: every digit of its display scale ("1.50", "0.00"),
   * "NaN", "Infinity" or "-Infinity".
   */
  static String numericText(byte[] b, int from, int length) {
    int sign = numericSign(b, from, length);
    return switch (sign) {
      case NUMERIC_NAN -> "NaN";
      case NUMERIC_PINF -> "Infinity";
      case NUMERIC_NINF -> "-Infinity";
      default -> numericValue(b, from, length).toPlainString();
    };
  }

  /**
   * A numeric's value with its display scale as the BigDecimal's scale ({@code toPlainString} then prints what
   * {@code numeric_out} prints), or null for NaN and ±Infinity.
   */
  static BigDecimal numeric(byte[] b, int from, int length) {
    int sign = numericSign(b, from, length);
    return sign == NUMERIC_POS || sign == NUMERIC_NEG ? numericValue(b, from, length) : null;
  }

  private static int numericSign(byte[] b, int from, int length) {
    if (length < 8) {
      throw framing("a numeric", length);
    }
    return uint16(b, from + 4);
  }

  private static BigDecimal numericValue(byte[] b, int from, int length) {
    int ndigits = uint16(b, from);
    int weight = (short) uint16(b, from + 2);
    int sign = uint16(b, from + 4);
    int dscale = uint16(b, from + 6);
    if (length != 8 + 2 * ndigits || (sign != NUMERIC_POS && sign != NUMERIC_NEG)) {
      throw framing("a numeric", length);
    }
    // The digits are base 10000, the first one worth 10000^weight.
    BigDecimal value;
    if (ndigits <= 4) {
      long unscaled = 0;
      for (int i = 0; i < ndigits; i++) {
        unscaled = unscaled * 10_000 + uint16(b, from + 8 + 2 * i);
      }
      value = BigDecimal.valueOf(unscaled, 4 * (ndigits - 1 - weight));
    } else {
      BigInteger unscaled = BigInteger.ZERO;
      for (int i = 0; i < ndigits; i++) {
        unscaled = unscaled.multiply(TEN_THOUSAND).add(BigInteger.valueOf(uint16(b, from + 8 + 2 * i)));
      }
      value = new BigDecimal(unscaled, 4 * (ndigits - 1 - weight));
    }
    if (ndigits == 0) {
      value = BigDecimal.ZERO;
    }
    // Digits beyond the display scale are zeros (PostgreSQL rounds to it before storing), so this never rounds.
    value = value.setScale(dscale, RoundingMode.UNNECESSARY);
    return sign == NUMERIC_NEG ? value.negate() : value;
  }

  // ---- dates and times -----------------------------------------------------------------------------------------

  /** A date inside Spanner's range, or null: then {@link #dateText} is what the text parser must decide on. */
  static Date date(byte[] b, int from, int length) {
    if (length != 4) {
      throw framing("a date", length);
    }
    int days = int32(b, from);
    if (days == DATE_INFINITY || days == DATE_MINUS_INFINITY) {
      return null;
    }
    LocalDate d = LocalDate.ofEpochDay((long) days + PG_EPOCH_DAY);
    return d.getYear() >= 1 && d.getYear() <= 9999
        ? Date.fromYearMonthDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth()) : null;
  }

  /** A date as PostgreSQL prints it with DateStyle ISO: "2024-02-29", "0044-03-15 BC", "10000-01-01", "infinity". */
  static String dateText(byte[] b, int from, int length) {
    int days = int32(b, from);
    if (days == DATE_INFINITY) {
      return "infinity";
    }
    if (days == DATE_MINUS_INFINITY) {
      return "-infinity";
    }
    LocalDate d = LocalDate.ofEpochDay((long) days + PG_EPOCH_DAY);
    return ymd(d.getYear(), d.getMonthValue(), d.getDayOfMonth()) + (d.getYear() <= 0 ? " BC" : "");
  }

  /**
   * A timestamp inside Spanner's range, or null: then {@link #timestampText} is what the text parser must decide on.
   * The value is microseconds since 2000-01-01 00:00 — UTC for timestamptz, the wall clock for timestamp, which the
   * loader takes as UTC too.
   */
  static Timestamp timestamp(byte[] b, int from, int length) {
    if (length != 8) {
      throw framing("a timestamp", length);
    }
    long micros = long64(b, from);
    if (micros == TIMESTAMP_INFINITY || micros == TIMESTAMP_MINUS_INFINITY) {
      return null;
    }
    long seconds = Math.floorDiv(micros, 1_000_000L) + PG_EPOCH_SECOND;
    if (seconds < ValueParsers.MIN_EPOCH_SECOND || seconds > ValueParsers.MAX_EPOCH_SECOND) {
      return null;
    }
    return Timestamp.ofTimeSecondsAndNanos(seconds, (int) Math.floorMod(micros, 1_000_000L) * 1000);
  }

  /**
   * A timestamp as PostgreSQL prints it with DateStyle ISO in the UTC session: "2021-03-14 07:30:00.000001",
   * "0044-03-15 12:00:00.5 BC", "infinity"; with {@code withZone} (timestamptz) the "+00" offset before any " BC".
   */
  static String timestampText(byte[] b, int from, int length, boolean withZone) {
    long micros = long64(b, from);
    if (micros == TIMESTAMP_INFINITY) {
      return "infinity";
    }
    if (micros == TIMESTAMP_MINUS_INFINITY) {
      return "-infinity";
    }
    long seconds = Math.floorDiv(micros, 1_000_000L) + PG_EPOCH_SECOND;
    int fraction = (int) Math.floorMod(micros, 1_000_000L);
    LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
    StringBuilder text = new StringBuilder(ymd(t.getYear(), t.getMonthValue(), t.getDayOfMonth()))
        .append(String.format(Locale.ROOT, " %02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond()));
    if (fraction != 0) {
      String digits = String.format(Locale.ROOT, "%06d", fraction);
      int end = digits.length();
      while (digits.charAt(end - 1) == '0') {
        end--;
      }
      text.append('.').append(digits, 0, end);
    }
    if (withZone) {
      text.append("+00");
    }
    return text.append(t.getYear() <= 0 ? " BC" : "").toString();
  }

  /** ISO year-month-day with at least four year digits; years up to 0 are BC (year 0 is 1 BC). */
  private static String ymd(int isoYear, int month, int day) {
    int year = isoYear <= 0 ? 1 - isoYear : isoYear;
    return String.format(Locale.ROOT, "%04d-%02d-%02d", year, month, day);
  }

  // ---- text-like -----------------------------------------------------------------------------------------------

  /** text, varchar, char(n) (with its padding), name, an enum's label, json: the UTF-8 text itself. */
  static String text(byte[] b, int from, int length) {
    return new String(b, from, length, StandardCharsets.UTF_8);
  }

  /** jsonb: a format version (1) and the document's text as jsonb prints it. */
  static String jsonb(byte[] b, int from, int length) {
    if (length < 1 || b[from] != 1) {
      throw new IllegalStateException("jsonb binary value of format version " + (length < 1 ? "none" : b[from])
          + "; pg2spanner reads version 1: copy this table as text by upgrading pg2spanner");
    }
    return new String(b, from + 1, length - 1, StandardCharsets.UTF_8);
  }

  /** uuid: 16 bytes, printed lower-case as uuid_out does. */
  static String uuid(byte[] b, int from, int length) {
    if (length != 16) {
      throw framing("a uuid", length);
    }
    return new UUID(long64(b, from), long64(b, from + 8)).toString();
  }

  /** tid: a block number (unsigned) and an item offset, as the text "(block,offset)" that ctid::text prints. */
  static String tid(byte[] b, int from, int length) {
    if (length != 6) {
      throw framing("a tid", length);
    }
    return "(" + Integer.toUnsignedString(int32(b, from)) + "," + uint16(b, from + 4) + ")";
  }

  private static IllegalStateException framing(String what, int length) {
    return new IllegalStateException("PostgreSQL sent " + length + " bytes for " + what + " in binary COPY, which "
        + "does not match its binary format: the column most likely changed type since plan read it (an ALTER TABLE "
        + "committed while migrate started); run pg2spanner plan again, then migrate. If it did not, this is a "
        + "pg2spanner bug, please report it");
  }
}
