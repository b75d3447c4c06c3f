package dev.pg2spanner.load.convert;

import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import dev.pg2spanner.load.row.CommitLimits;
import dev.pg2spanner.spanner.SpannerLimits;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * Pure text → value parsers for PostgreSQL's text output (with the reader session settings {@link SnapshotSession}
 * applies: ISO dates, UTC, {@code extra_float_digits 3}, hex bytea). None goes through a double, a time zone or the
 * JVM's defaults, and none rounds or clamps: a value that does not fit throws {@link ValueRejection} with a reason
 * that names the value and the Spanner limit.
 */
public final class ValueParsers {

  /** Spanner's cell limit for STRING, BYTES and JSON values (10 MiB) and its NUMERIC digits (29 and 9). */
  private static final SpannerLimits LIMITS = CommitLimits.SPANNER;
  /** At most this many characters of a value go into a rejection. */
  static final int EXCERPT_LENGTH = 200;

  /** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z as epoch seconds: Spanner's TIMESTAMP range. */
  static final long MIN_EPOCH_SECOND = -62_135_596_800L;
  static final long MAX_EPOCH_SECOND = 253_402_300_799L;
  private static final long DAYS_0000_TO_1970 = 719_528L;
  private static final String TIMESTAMP_RANGE = "Spanner's TIMESTAMP range (0001-01-01 to 9999-12-31 UTC)";
  private static final String DATE_RANGE = "Spanner's DATE range (0001-01-01 to 9999-12-31)";

  private ValueParsers() {}

  // ---- numbers ------------------------------------------------------------------------------------------------

  /** A float8's text (shortest exact form, "NaN", "Infinity", "-Infinity", "-0") → the same double, bit for bit. */
  static double float64(String text) throws ValueRejection {
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new ValueRejection("'" + excerpt(text) + "' is not a floating-point number", text);
    }
  }

  /**
   * A value's float8 text → FLOAT32, only when the float represents it exactly. A real widened to float8 always
   * does; a double precision value that would round is rejected rather than silently changed.
   */
  static float float32(String text) throws ValueRejection {
    double d = float64(text);
    float f = (float) d;
    if (!Double.isNaN(d) && (double) f != d) {
      throw new ValueRejection(text + " cannot be stored in FLOAT32 without rounding", text);
    }
    return f;
  }

  /**
   * PostgreSQL numeric text → a BigDecimal that fits Spanner NUMERIC (29 integer digits, 9 fractional digits after
   * trailing zeros are dropped), in its shortest exact form ({@code 12.500} → {@code 12.5}, never exponent form).
   */
  static BigDecimal numeric(String text) throws ValueRejection {
    if (text.equals("NaN") || text.equals("Infinity") || text.equals("-Infinity")) {
      throw new ValueRejection("numeric " + text + " cannot be stored in Spanner NUMERIC, which has no NaN or "
          + "infinity", text);
    }
    BigDecimal value;
    try {
      value = new BigDecimal(text);
    } catch (NumberFormatException e) {
      throw new ValueRejection("'" + excerpt(text) + "' is not a decimal number", text);
    }
    BigDecimal fitting = fittingNumeric(value);
    if (fitting != null) {
      return fitting;
    }
    BigDecimal stripped = value.stripTrailingZeros();
    if (stripped.scale() > LIMITS.numericScale()) {
      throw new ValueRejection("numeric " + excerpt(text) + " has " + stripped.scale() + " fractional digits; Spanner "
          + "NUMERIC keeps at most " + LIMITS.numericScale() + " and the loader never rounds", text);
    }
    int integerDigits = stripped.precision() - stripped.scale();
    if (integerDigits > LIMITS.numericIntegerDigits()) {
      throw new ValueRejection("numeric " + excerpt(text) + " has " + integerDigits + " integer digits; Spanner "
          + "NUMERIC allows at most " + LIMITS.numericIntegerDigits(), text);
    }
    throw new IllegalStateException("numeric " + text + " fits Spanner NUMERIC after all");
  }

  /**
   * What {@link #numeric} returns for a value that fits Spanner NUMERIC (shortest exact form, never a negative
   * scale), or null for a value it would reject.
   */
  static BigDecimal fittingNumeric(BigDecimal value) {
    BigDecimal stripped = value.stripTrailingZeros();
    if (stripped.scale() > LIMITS.numericScale()
        || stripped.precision() - stripped.scale() > LIMITS.numericIntegerDigits()) {
      return null;
    }
    return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
  }

  /**
   * PostgreSQL numeric text for a PostgreSQL-dialect {@code numeric} column, which holds every value PostgreSQL's
   * numeric does (up to 131,072 digits before the point and 16,383 after, and NaN) except ±Infinity; returned
   * unchanged, so trailing zeros (the value's scale) are kept as PostgreSQL printed them.
   */
  static String pgNumeric(String text) throws ValueRejection {
    if (text.equals("Infinity") || text.equals("-Infinity")) {
      throw new ValueRejection("numeric " + text + " cannot be stored in a Spanner PostgreSQL-dialect numeric, "
          + "which has no infinity", text);
    }
    if (!text.equals("NaN")) {
      try {
        new BigDecimal(text);
      } catch (NumberFormatException e) {
        throw new ValueRejection("'" + excerpt(text) + "' is not a decimal number", text);
      }
    }
    return text;
  }

  /**
   * A {@code real}'s own text output → the same float. With {@code extra_float_digits} above 0 PostgreSQL prints a
   * float4 in its shortest form that reads back exactly ({@code 1.1}), which a float8 parse would turn into a
   * different double; so a real's text is parsed as a float. "NaN", "Infinity", "-Infinity" and "-0" included.
   */
  static float real(String text) throws ValueRejection {
    try {
      return Float.parseFloat(text);
    } catch (NumberFormatException e) {
      throw new ValueRejection("'" + excerpt(text) + "' is not a floating-point number", text);
    }
  }

  /**
   * A {@code money} value's text output with {@code lc_monetary = 'C'} ({@code $1,234.56}, {@code -$0.01}) → its
   * decimal value for Spanner NUMERIC ({@link #numeric}'s shortest form): currency symbol and group separators
   * dropped, never through a double.
   */
  static BigDecimal money(String text) throws ValueRejection {
    return numeric(moneyDecimal(text));
  }

  /**
   * A {@code money} value's text output as plain decimal text with the fractional digits printed ({@code -$0.50}
   * → {@code -0.50}): what {@code money::numeric::text} prints, which a PostgreSQL-dialect numeric keeps as is.
   */
  static String moneyDecimal(String text) throws ValueRejection {
    boolean negative = text.indexOf('-') >= 0 || text.indexOf('(') >= 0;
    StringBuilder digits = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if ((c >= '0' && c <= '9') || c == '.') {
        digits.append(c);
      } else if (c != '$' && c != ',' && c != '-' && c != '(' && c != ')' && c != ' ') {
        throw new ValueRejection("'" + excerpt(text) + "' is not a money value printed with lc_monetary = 'C'",
            text);
      }
    }
    if (digits.length() == 0) {
      throw new ValueRejection("'" + excerpt(text) + "' is not a money value", text);
    }
    return (negative ? "-" : "") + digits;
  }

  /** Array elements of boolean: array_out prints t/f, a text cast prints true/false. */
  static boolean bool(String text) throws ValueRejection {
    return switch (text) {
      case "t", "true" -> true;
      case "f", "false" -> false;
      default -> throw new ValueRejection("'" + excerpt(text) + "' is not a boolean", text);
    };
  }

  static long int64(String text) throws ValueRejection {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new ValueRejection("'" + excerpt(text) + "' is not a 64-bit integer", text);
    }
  }

  // ---- dates and times ----------------------------------------------------------------------------------------

  /** ISO date text ({@code 2021-03-14}); infinity, BC and years after 9999 are rejected. */
  static Date date(String text) throws ValueRejection {
    Cursor c = new Cursor(text);
    int year = c.digits(4, 9);
    c.expect('-');
    int month = c.digits(2, 2);
    c.expect('-');
    int day = c.digits(2, 2);
    if (c.failed || !c.atEnd() || !validDate(year, month, day)) {
      if (text.endsWith(" BC") || text.endsWith("infinity") || year > 9999) {
        throw new ValueRejection("date " + excerpt(text) + " is outside " + DATE_RANGE, text);
      }
      throw new ValueRejection("'" + excerpt(text) + "' is not an ISO date", text);
    }
    if (year > 9999) {
      throw new ValueRejection("date " + text + " is outside " + DATE_RANGE, text);
    }
    return Date.fromYearMonthDay(year, month, day);
  }

  /**
   * ISO timestamp text, {@code 2021-03-14 02:30:00[.ffffff][±HH[:MM[:SS]]]}. Without an offset the wall clock is
   * taken as UTC (timestamp without time zone, or timestamptz already shifted to UTC); with one, the offset is
   * applied arithmetically. No time-zone rules are consulted, so DST gaps and overlaps cannot move a value.
   * Infinity, BC and anything outside 0001-01-01..9999-12-31 UTC are rejected.
   */
  static Timestamp timestamp(String text) throws ValueRejection {
    Cursor c = new Cursor(text);
    int year = c.digits(4, 9);
    c.expect('-');
    int month = c.digits(2, 2);
    c.expect('-');
    int day = c.digits(2, 2);
    c.expect(' ');
    int hour = c.digits(2, 2);
    c.expect(':');
    int minute = c.digits(2, 2);
    c.expect(':');
    int second = c.digits(2, 2);
    int nanos = 0;
    if (c.peek('.')) {
      c.expect('.');
      int start = c.pos;
      int fraction = c.digits(1, 9);
      for (int n = c.pos - start; n < 9; n++) {
        fraction *= 10;
      }
      nanos = fraction;
    }
    int offsetSeconds = 0;
    if (c.peek('+') || c.peek('-')) {
      int sign = c.peek('-') ? -1 : 1;
      c.pos++;
      int offset = c.digits(2, 2) * 3600;
      if (c.peek(':')) {
        c.expect(':');
        offset += c.digits(2, 2) * 60;
        if (c.peek(':')) {
          c.expect(':');
          offset += c.digits(2, 2);
        }
      }
      offsetSeconds = sign * offset;
    }
    boolean outOfRange = text.endsWith(" BC") || text.endsWith("infinity");
    if (outOfRange || c.failed || !c.atEnd() || !validDate(year, month, day) || hour > 24 || minute > 59
        || second > 60) {
      if (outOfRange || (!c.failed && year > 9999)) {
        throw new ValueRejection("timestamp " + excerpt(text) + " is outside " + TIMESTAMP_RANGE, text);
      }
      throw new ValueRejection("'" + excerpt(text) + "' is not an ISO timestamp", text);
    }
    long seconds = epochDay(year, month, day) * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
    if (seconds < MIN_EPOCH_SECOND || seconds > MAX_EPOCH_SECOND) {
      throw new ValueRejection("timestamp " + excerpt(text) + " is outside " + TIMESTAMP_RANGE, text);
    }
    return Timestamp.ofTimeSecondsAndNanos(seconds, nanos);
  }

  static boolean validDate(int year, int month, int day) {
    if (year < 1 || month < 1 || month > 12 || day < 1) {
      return false;
    }
    int length = switch (month) {
      case 2 -> isLeap(year) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
    return day <= length;
  }

  private static boolean isLeap(long year) {
    return (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
  }

  // ---- the same values straight from ASCII bytes (COPY's plain fields) ------------------------------------------
  // Each handles the common form only and answers "not plain" for anything else, which then goes through the text
  // parser above: so a value or a rejection never depends on which path read it.

  /** What {@link #plainInt64} answers for bytes it does not handle (never a value it returns). */
  static final long NOT_PLAIN = Long.MIN_VALUE;

  /** {@link #int64} of an optional '-' and at most 18 digits (no overflow possible); else {@link #NOT_PLAIN}. */
  static long plainInt64(byte[] b, int from, int to) {
    int i = from;
    boolean negative = i < to && b[i] == '-';
    if (negative) {
      i++;
    }
    if (i == to || to - i > 18) {
      return NOT_PLAIN;
    }
    long value = 0;
    for (; i < to; i++) {
      int digit = b[i] - '0';
      if (digit < 0 || digit > 9) {
        return NOT_PLAIN;
      }
      value = value * 10 + digit;
    }
    return negative ? -value : value;
  }

  /**
   * {@link #numeric} of an optional '-', at least one digit, and an optional '.' with digits, 18 digits in all at
   * most, whose fraction has at most 9 digits once trailing zeros go; else null.
   */
  static BigDecimal plainNumeric(byte[] b, int from, int to) {
    int i = from;
    boolean negative = i < to && b[i] == '-';
    if (negative) {
      i++;
    }
    long unscaled = 0;
    int digits = 0;
    int scale = -1;
    for (; i < to; i++) {
      byte c = b[i];
      if (c == '.' && scale < 0 && digits > 0) {
        scale = 0;
        continue;
      }
      int digit = c - '0';
      if (digit < 0 || digit > 9 || ++digits > 18) {
        return null;
      }
      unscaled = unscaled * 10 + digit;
      if (scale >= 0) {
        scale++;
      }
    }
    if (digits == 0 || scale == 0) {
      return null;
    }
    scale = Math.max(scale, 0);
    while (scale > 0 && unscaled % 10 == 0) {
      unscaled /= 10;
      scale--;
    }
    return scale > LIMITS.numericScale() ? null : BigDecimal.valueOf(negative ? -unscaled : unscaled, scale);
  }

  /** {@link #date} of {@code YYYY-MM-DD} with a valid day of years 1 to 9999; else null. */
  static Date plainDate(byte[] b, int from, int to) {
    if (to - from != 10 || b[from + 4] != '-' || b[from + 7] != '-') {
      return null;
    }
    int year = digits(b, from, 4);
    int month = digits(b, from + 5, 2);
    int day = digits(b, from + 8, 2);
    return year >= 0 && month >= 0 && day >= 0 && validDate(year, month, day)
        ? Date.fromYearMonthDay(year, month, day) : null;
  }

  /**
   * {@link #timestamp} of {@code YYYY-MM-DD HH:MM:SS[.f{1,9}][±HH[:MM]]} with a valid date, hours to 23, seconds to
   * 59 and a result inside Spanner's range; else null.
   */
  static Timestamp plainTimestamp(byte[] b, int from, int to) {
    if (to - from < 19 || b[from + 4] != '-' || b[from + 7] != '-' || b[from + 10] != ' ' || b[from + 13] != ':'
        || b[from + 16] != ':') {
      return null;
    }
    int year = digits(b, from, 4);
    int month = digits(b, from + 5, 2);
    int day = digits(b, from + 8, 2);
    int hour = digits(b, from + 11, 2);
    int minute = digits(b, from + 14, 2);
    int second = digits(b, from + 17, 2);
    if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0
        || second > 59 || !validDate(year, month, day)) {
      return null;
    }
    int i = from + 19;
    int nanos = 0;
    if (i < to && b[i] == '.') {
      int start = ++i;
      while (i < to && i - start < 9 && b[i] >= '0' && b[i] <= '9') {
        nanos = nanos * 10 + (b[i] - '0');
        i++;
      }
      if (i == start) {
        return null;
      }
      for (int n = i - start; n < 9; n++) {
        nanos *= 10;
      }
    }
    int offsetSeconds = 0;
    if (i < to && (b[i] == '+' || b[i] == '-')) {
      int sign = b[i] == '-' ? -1 : 1;
      int hours = i + 3 <= to ? digits(b, i + 1, 2) : -1;
      if (hours < 0) {
        return null;
      }
      int offset = hours * 3600;
      i += 3;
      if (i < to && b[i] == ':') {
        int minutes = i + 3 <= to ? digits(b, i + 1, 2) : -1;
        if (minutes < 0) {
          return null;
        }
        offset += minutes * 60;
        i += 3;
      }
      offsetSeconds = sign * offset;
    }
    if (i != to) {
      return null;
    }
    long seconds = epochDay(year, month, day) * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
    if (seconds < MIN_EPOCH_SECOND || seconds > MAX_EPOCH_SECOND) {
      return null;
    }
    return Timestamp.ofTimeSecondsAndNanos(seconds, nanos);
  }

  /** The value of {@code count} ASCII digits at {@code at}, or -1 when one of them is not a digit. */
  private static int digits(byte[] b, int at, int count) {
    int value = 0;
    for (int i = at; i < at + count; i++) {
      int digit = b[i] - '0';
      if (digit < 0 || digit > 9) {
        return -1;
      }
      value = value * 10 + digit;
    }
    return value;
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (as java.time computes it, without allocating). */
  static long epochDay(long year, int month, int day) {
    long total = 365 * year + (year + 3) / 4 - (year + 99) / 100 + (year + 399) / 400;
    total += (367L * month - 362) / 12;
    total += day - 1;
    if (month > 2) {
      total--;
      if (!isLeap(year)) {
        total--;
      }
    }
    return total - DAYS_0000_TO_1970;
  }

  // ---- strings and bytes --------------------------------------------------------------------------------------

  /**
   * Checks a STRING value against the column's declared length (in characters, as Spanner counts them) and the
   * 10 MiB cell limit; returns it unchanged.
   *
   * @param maxChars the STRING(n) length, or {@link Integer#MAX_VALUE} for STRING(MAX)
   */
  /**
   * A json/jsonb document for a Spanner JSON column, refused (to the dead-letter file) when Spanner would change its
   * value or refuse it ({@link dev.pg2spanner.spanner.JsonFidelity}): a row is never written with a changed value.
   */
  static String json(String value) throws ValueRejection {
    return json(value, false);
  }

  /**
   * {@link #json} for PostgreSQL's {@code jsonb} output, whose object keys are unique: the same answer, settled in one
   * pass for the common document ({@code JsonFidelity.checkUniqueKeys}).
   */
  static String jsonb(String value) throws ValueRejection {
    return json(value, true);
  }

  private static String json(String value, boolean uniqueKeys) throws ValueRejection {
    String text = string(value, Integer.MAX_VALUE);
    java.util.Optional<dev.pg2spanner.spanner.JsonFidelity.Problem> problem = uniqueKeys
        ? dev.pg2spanner.spanner.JsonFidelity.checkUniqueKeys(text) : dev.pg2spanner.spanner.JsonFidelity.check(text);
    if (problem.isPresent()) {
      throw new ValueRejection(problem.get().reason(), value);
    }
    return text;
  }

  /**
   * A json document for a PostgreSQL-dialect {@code jsonb} column, which keeps PostgreSQL's jsonb semantics: refused
   * (to the dead-letter file, and predicted by plan) when jsonb would change it — an object that repeats a key, of which
   * jsonb keeps the last — or refuse it — a string holding U+0000 or an unpaired surrogate, which Spanner refuses for the
   * whole commit ({@code JsonFidelity.checkForJsonb}).
   */
  static String pgJsonb(String value) throws ValueRejection {
    String text = string(value, Integer.MAX_VALUE);
    java.util.Optional<dev.pg2spanner.spanner.JsonFidelity.Problem> problem =
        dev.pg2spanner.spanner.JsonFidelity.checkForJsonb(text);
    if (problem.isPresent()) {
      throw new ValueRejection(switch (problem.get().kind()) {
        case DUPLICATE_KEY -> "Spanner's jsonb keeps one of duplicate keys, and this document repeats "
            + problem.get().detail();
        case REFUSED_STRING -> "Spanner's jsonb refuses " + problem.get().detail();
        default -> problem.get().reason();
      }, value);
    }
    return text;
  }

  /**
   * {@link #pgJsonb} for PostgreSQL's {@code jsonb} output, whose keys are unique and which holds no U+0000: only a
   * document with a backslash-u escape (an unpaired surrogate) needs parsing, with the same answer.
   */
  static String pgJsonbUniqueKeys(String value) throws ValueRejection {
    return value.indexOf("\\u") >= 0 ? pgJsonb(value) : string(value, Integer.MAX_VALUE);
  }

  static String string(String value, int maxChars) throws ValueRejection {
    // Cheap bounds first: length() counts UTF-16 units, an upper bound of code points and at least a third of the
    // UTF-8 size, so the exact counts run only for values near a limit.
    if (value.length() > maxChars) {
      int chars = value.codePointCount(0, value.length());
      if (chars > maxChars) {
        throw new ValueRejection("the value has " + chars + " characters; the column holds at most " + maxChars,
            value);
      }
    }
    if (value.length() > LIMITS.maxCellBytes() / 3) {
      long bytes = utf8Length(value);
      if (bytes > LIMITS.maxCellBytes()) {
        throw new ValueRejection("the value is " + bytes + " bytes in UTF-8; a Spanner cell holds at most "
            + (LIMITS.maxCellBytes() >> 20) + " MiB",
            value);
      }
    }
    return value;
  }

  public static long utf8Length(String s) {
    long bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch < 0x80) {
        bytes++;
      } else if (ch < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(ch) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /** Checks a BYTES value against BYTES(n) and the 10 MiB cell limit; returns it unchanged. */
  static byte[] bytes(byte[] value, int maxBytes) throws ValueRejection {
    int limit = Math.min(maxBytes, LIMITS.maxCellBytes());
    if (value.length > limit) {
      throw new ValueRejection("the value is " + value.length + " bytes; the column holds at most " + limit,
          "(" + value.length + " bytes)");
    }
    return value;
  }

  /** bytea hex output ({@code \x00ff}) → bytes. */
  static byte[] hexBytea(String text) throws ValueRejection {
    if (!text.startsWith("\\x") || (text.length() & 1) != 0) {
      throw new ValueRejection("'" + excerpt(text) + "' is not bytea hex output", text);
    }
    byte[] out = new byte[(text.length() - 2) / 2];
    for (int i = 0; i < out.length; i++) {
      int hi = Character.digit(text.charAt(2 + 2 * i), 16);
      int lo = Character.digit(text.charAt(3 + 2 * i), 16);
      if (hi < 0 || lo < 0) {
        throw new ValueRejection("'" + excerpt(text) + "' is not bytea hex output", text);
      }
      out[i] = (byte) (hi << 4 | lo);
    }
    return out;
  }

  // ---- arrays -------------------------------------------------------------------------------------------------

  /**
   * The elements of a one-dimensional array's text output ({@code {a,"b c",NULL}}, optionally prefixed by
   * non-default bounds {@code [0:2]=}, which are dropped: Spanner arrays start at the first element). Unquoted
   * {@code NULL} is a null element; a quoted {@code "NULL"} is the text. Order is kept.
   *
   * @throws ValueRejection for a value with more than one dimension (Spanner arrays have one)
   */
  static List<String> arrayElements(String text, char delimiter) throws ValueRejection {
    int i = 0;
    int n = text.length();
    if (n > 0 && text.charAt(0) == '[') {
      i = text.indexOf('=') + 1;
      if (i == 0) {
        throw malformedArray(text);
      }
    }
    if (i >= n || text.charAt(i) != '{') {
      throw malformedArray(text);
    }
    i++;
    if (i < n && text.charAt(i) == '{') {
      throw new ValueRejection("the array " + excerpt(text) + " has more than one dimension; Spanner arrays have "
          + "one", text);
    }
    if (i < n && text.charAt(i) == '}') {
      if (i + 1 != n) {
        throw malformedArray(text);
      }
      return Collections.emptyList();
    }
    List<String> out = new ArrayList<>();
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (i >= n) {
        throw malformedArray(text);
      }
      if (text.charAt(i) == '"') {
        sb.setLength(0);
        i++;
        while (i < n && text.charAt(i) != '"') {
          char ch = text.charAt(i);
          if (ch == '\\' && i + 1 < n) {
            i++;
            ch = text.charAt(i);
          }
          sb.append(ch);
          i++;
        }
        if (i >= n) {
          throw malformedArray(text);
        }
        i++;
        out.add(sb.toString());
      } else {
        int start = i;
        while (i < n && text.charAt(i) != delimiter && text.charAt(i) != '}') {
          i++;
        }
        String element = text.substring(start, i);
        out.add(element.equalsIgnoreCase("NULL") ? null : element);
      }
      if (i >= n) {
        throw malformedArray(text);
      }
      char next = text.charAt(i++);
      if (next == '}') {
        if (i != n) {
          throw malformedArray(text);
        }
        return out;
      }
      if (next != delimiter) {
        throw malformedArray(text);
      }
    }
  }

  /**
   * The elements of an {@code int2vector} or {@code oidvector} value's text output: integers separated by single
   * spaces ({@code 1 2}; the empty vector is {@code ''}). Such vectors hold no NULL element and have one dimension.
   *
   * @throws ValueRejection for text that is not such a list
   */
  static List<String> vectorElements(String text) throws ValueRejection {
    if (text.isEmpty()) {
      return Collections.emptyList();
    }
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= text.length(); i++) {
      if (i == text.length() || text.charAt(i) == ' ') {
        if (i == start) {
          throw new ValueRejection("'" + excerpt(text) + "' is not vector text output (integers separated by single "
              + "spaces) the loader understands", text);
        }
        out.add(text.substring(start, i));
        start = i + 1;
      }
    }
    return out;
  }

  private static ValueRejection malformedArray(String text) {
    return new ValueRejection("'" + excerpt(text) + "' is not array text output the loader understands", text);
  }

  // ---- keys and messages --------------------------------------------------------------------------------------

  /**
   * The deterministic key of a row of a table without a primary key: a name-based (MD5, version 3) UUID of the
   * physical relation and the row's ctid, so a retried or resumed piece writes the same keys again. It is stable
   * only while the rows stay where they are: VACUUM FULL, CLUSTER or pg_repack between a crash and a resume move
   * rows to new ctids, and the resumed pieces then duplicate rows that were already written.
   */
  static UUID syntheticKey(String relation, String ctid) {
    return UUID.nameUUIDFromBytes(("pg2spanner:" + relation + ":" + ctid).getBytes(StandardCharsets.UTF_8));
  }

  /** At most {@link #EXCERPT_LENGTH} characters of a value, for dead-letter entries; null stays null. */
  static String excerpt(String value) {
    if (value == null || value.length() <= EXCERPT_LENGTH) {
      return value;
    }
    int end = EXCERPT_LENGTH;
    if (Character.isHighSurrogate(value.charAt(end - 1))) {
      end--;
    }
    return value.substring(0, end) + "…";
  }

  /** A tiny fixed-format scanner: records failure instead of throwing, so the caller picks the message. */
  private static final class Cursor {
    private final String text;
    private int pos;
    private boolean failed;

    Cursor(String text) {
      this.text = text;
    }

    int digits(int min, int max) {
      int start = pos;
      int value = 0;
      while (pos < text.length() && pos - start < max) {
        char ch = text.charAt(pos);
        if (ch < '0' || ch > '9') {
          break;
        }
        value = value * 10 + (ch - '0');
        pos++;
      }
      if (pos - start < min) {
        failed = true;
      }
      return value;
    }

    void expect(char ch) {
      if (pos < text.length() && text.charAt(pos) == ch) {
        pos++;
      } else {
        failed = true;
      }
    }

    boolean peek(char ch) {
      return !failed && pos < text.length() && text.charAt(pos) == ch;
    }

    boolean atEnd() {
      return pos == text.length();
    }
  }
}
