package dev.pg2spanner.fallback;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.plan.ValueConversion;
import java.math.BigDecimal;
import java.util.Base64;

/**
 * One Spanner value (as a change stream encodes it in JSON) turned back into what its PostgreSQL column holds: the
 * reverse of the load's per-column conversion. Every value goes to PostgreSQL as text through the column type's own
 * input function ({@code CAST(? AS type)}, the type without its modifier, so the column's own assignment rules apply:
 * a string too long for {@code varchar(n)} or an integer out of range is refused by PostgreSQL, never cut), except
 * bytes (bound as {@code bytea}). What PostgreSQL would silently round instead of refuse (a NUMERIC with more
 * decimals than the column's scale, sub-microsecond timestamps, a FLOAT64 value that is not a {@code real}) is refused
 * here, so a value is never written changed.
 */
final class ReverseValue {

  /** A Spanner value the source column cannot hold exactly; the change is dead-lettered with {@link #getMessage}. */
  static final class Unfit extends Exception {
    Unfit(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * What a source column needs to know.
   *
   * @param conversion the plan's conversion for the column (of each element, for arrays)
   * @param baseType the column's type without modifier ({@code format_type(atttypid, NULL)})
   * @param numericScale the scale of a {@code numeric(p,s)} column, -1 otherwise
   * @param fractionDigits the fractional-second digits a {@code timestamp(p)}/{@code time(p)} column keeps (6 when
   *     unrestricted)
   * @param array true for an array column
   */
  record Target(ValueConversion conversion, String baseType, int numericScale, int fractionDigits, boolean array) {
    boolean isBytes() {
      return conversion == ValueConversion.BYTES && !array;
    }

    boolean isMoney() {
      return baseType.equals("money");
    }
  }

  private ReverseValue() {}

  /**
   * The text (or {@code byte[]} for bytes) PostgreSQL reads back as the same value; null for SQL NULL.
   *
   * @throws Unfit when the source column cannot hold the value exactly
   */
  static Object of(Target t, JsonNode v) throws Unfit {
    if (v == null || v.isNull()) {
      return null;
    }
    if (t.array()) {
      if (!v.isArray()) {
        throw new Unfit("an array column received a non-array value");
      }
      StringBuilder b = new StringBuilder("{");
      for (int i = 0; i < v.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        JsonNode e = v.get(i);
        if (e == null || e.isNull()) {
          b.append("NULL");
          continue;
        }
        String text = t.conversion() == ValueConversion.BYTES
            ? "\\x" + java.util.HexFormat.of().formatHex(Base64.getDecoder().decode(e.asText()))
            : element(t, e);
        b.append('"').append(text.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      }
      return b.append('}').toString();
    }
    if (t.conversion() == ValueConversion.BYTES) {
      return Base64.getDecoder().decode(v.asText());
    }
    return element(t, v);
  }

  private static String element(Target t, JsonNode v) throws Unfit {
    return switch (t.conversion()) {
      case BOOL -> v.isBoolean() ? Boolean.toString(v.booleanValue()) : v.asText();
      case INT64 -> v.asText();
      case FLOAT64 -> {
        if (!v.isNumber()) {
          yield v.asText(); // "NaN", "Infinity", "-Infinity" — PostgreSQL's spellings too
        }
        double d = v.doubleValue();
        if (t.baseType().equals("real") && (double) (float) d != d) {
          throw new Unfit("the FLOAT64 value " + d + " is not exactly a real (4-byte float)");
        }
        yield t.baseType().equals("real") ? Float.toString((float) d) : Double.toString(d);
      }
      case FLOAT32 -> v.isNumber() ? Float.toString(v.floatValue()) : v.asText();
      case NUMERIC, NUMERIC_TEXT, MONEY_NUMERIC -> {
        String text = v.asText();
        if (t.numericScale() >= 0 || t.isMoney()) {
          int allowed = t.isMoney() ? 2 : t.numericScale();
          BigDecimal d;
          try {
            d = new BigDecimal(text);
          } catch (NumberFormatException notANumber) {
            yield text; // NaN, Infinity: PostgreSQL decides
          }
          if (d.stripTrailingZeros().scale() > allowed) {
            throw new Unfit("the value " + text + " has more than the " + allowed + " decimal(s) the column keeps "
                + "(PostgreSQL would round it)");
          }
        }
        yield text;
      }
      case TIMESTAMP, TIMESTAMP_WALL_CLOCK_AS_UTC -> {
        String text = v.asText();
        checkFraction(t, text);
        yield t.conversion() == ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC && text.endsWith("Z")
            ? text.substring(0, text.length() - 1) : text;
      }
      case JSON -> v.isTextual() ? v.textValue() : v.toString();
      case KEY_UUID, SYNTHETIC -> throw new IllegalStateException("resolved by the applier: " + t.conversion());
      default -> v.asText(); // STRING, DATE, UUID_TEXT, ENUM_TEXT, INTERVAL_ISO8601, TIME_TEXT, BIT_TEXT, JSON_TEXT ...
    };
  }

  /** A timestamp's fractional digits beyond what the column keeps would be rounded by PostgreSQL: refused. */
  private static void checkFraction(Target t, String text) throws Unfit {
    int dot = text.indexOf('.');
    if (dot < 0) {
      return;
    }
    int end = dot + 1;
    while (end < text.length() && Character.isDigit(text.charAt(end))) {
      end++;
    }
    String fraction = text.substring(dot + 1, end).replaceFirst("0+$", "");
    if (fraction.length() > t.fractionDigits()) {
      throw new Unfit("the timestamp " + text + " has more fractional-second digits than the column keeps ("
          + t.fractionDigits() + "; PostgreSQL would round it)");
    }
  }
}
