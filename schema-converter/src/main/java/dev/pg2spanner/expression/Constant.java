package dev.pg2spanner.expression;

import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerLiterals;
import dev.pg2spanner.spanner.SpannerType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A constant as PostgreSQL prints it ({@code 'abc'::text}, {@code 42}, {@code '-1'::integer}, {@code true},
 * {@code '2020-01-01'::date}) and its typed Spanner form for a given Spanner type.
 *
 * @param kind what the literal is written as
 * @param text the literal's value (a string's content, a number's digits with sign)
 * @param cast the type it is cast to, or null when uncast
 */
record Constant(PgExpr.LiteralKind kind, String text, TypeName cast) {

  private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");
  private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
  private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
  private static final Pattern TIMESTAMP = Pattern.compile(
      "(\\d{4}-\\d{2}-\\d{2})(?:[ T](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?)?"
          + "(?:\\s*([+-]\\d{1,2}(?::\\d{2})?))?");
  private static final Pattern HEX_BYTEA = Pattern.compile("\\\\x((?:[0-9a-fA-F]{2})*)");

  /** The constant {@code e} stands for, or null when {@code e} is not a constant. */
  static Constant of(PgExpr e) {
    if (e instanceof PgExpr.Literal l) {
      return new Constant(l.kind(), l.text(), null);
    }
    if (e instanceof PgExpr.Unary u && u.operator().equals("-")) {
      Constant c = of(u.operand());
      if (c == null || c.kind() != PgExpr.LiteralKind.NUMBER || c.cast() != null) {
        return null;
      }
      return new Constant(c.kind(), c.text().startsWith("-") ? c.text().substring(1) : "-" + c.text(), null);
    }
    if (e instanceof PgExpr.Cast cast) {
      Constant c = of(cast.operand());
      if (c == null) {
        return null;
      }
      if (c.cast() != null && !preservesValue(c.cast(), cast.type())) {
        throw new Untranslatable("casts a constant twice (" + c.cast() + " then " + cast.type() + ")");
      }
      return new Constant(c.kind(), c.text(), cast.type());
    }
    return null;
  }

  /**
   * True when casting a constant of type {@code inner} to {@code outer} keeps its value, as in
   * {@code ('-10'::integer)::double precision}, which PostgreSQL prints for {@code float8_column > -10}.
   */
  private static boolean preservesValue(TypeName inner, TypeName outer) {
    if (inner.array() || outer.array()) {
      return false;
    }
    TypeName.Category from = inner.category();
    TypeName.Category to = outer.category();
    if (from == to && from != TypeName.Category.OTHER) {
      return inner.modifiers().isEmpty() && outer.modifiers().isEmpty() || from == TypeName.Category.TEXT
          && outer.modifiers().isEmpty();
    }
    return from == TypeName.Category.INTEGER && (to == TypeName.Category.NUMERIC || to == TypeName.Category.FLOAT)
        && outer.modifiers().isEmpty()
        || from == TypeName.Category.NUMERIC && to == TypeName.Category.FLOAT && inner.modifiers().isEmpty();
  }

  boolean isNull() {
    return kind == PgExpr.LiteralKind.NULL;
  }

  /**
   * The Spanner type this constant has on its own (for CHECK expressions, where there is no target column type).
   *
   * @throws Untranslatable when the cast is to a type with no faithful GoogleSQL constant
   */
  SpannerType.Base naturalBase() {
    if (cast == null) {
      return switch (kind) {
        case STRING -> SpannerType.Base.STRING;
        case BOOLEAN -> SpannerType.Base.BOOL;
        case NULL -> null;
        case NUMBER -> INTEGER.matcher(text).matches() && fitsLong(text) ? SpannerType.Base.INT64
            : SpannerType.Base.NUMERIC;
      };
    }
    if (cast.array()) {
      throw new Untranslatable("uses an array constant " + describe() + " outside = ANY (...)");
    }
    return switch (cast.category()) {
      case TEXT, UUID -> SpannerType.Base.STRING;
      case INTEGER -> SpannerType.Base.INT64;
      case NUMERIC -> SpannerType.Base.NUMERIC;
      case FLOAT -> SpannerType.Base.FLOAT64;
      case BOOLEAN -> SpannerType.Base.BOOL;
      case DATE -> SpannerType.Base.DATE;
      case TIMESTAMP, TIMESTAMPTZ -> SpannerType.Base.TIMESTAMP;
      case JSON -> SpannerType.Base.JSON;
      case BYTEA -> SpannerType.Base.BYTES;
      case BPCHAR -> throw new Untranslatable("compares with a character(n) constant " + describe()
          + "; PostgreSQL ignores trailing spaces in such comparisons and Spanner does not");
      default -> throw new Untranslatable("uses the constant " + describe() + " of type " + cast
          + ", which has no GoogleSQL equivalent here");
    };
  }

  /**
   * This constant as a value of {@code target}, typed so that each dialect spells it its own way.
   *
   * @param target the Spanner type (not ARRAY)
   * @param castMatchesColumn true when a cast to a non-built-in type names the column's own enum/domain type,
   *     so the literal may be read as the underlying value
   * @param notes collects semantic notes (e.g. time zone assumptions)
   * @throws Untranslatable when the constant does not fit the type or cannot be spelled faithfully
   */
  SpannerExpression render(SpannerLimits limits, SpannerType.Base target, boolean castMatchesColumn,
      List<String> notes) {
    if (kind == PgExpr.LiteralKind.NULL) {
      return SpannerExpression.token("NULL");
    }
    TypeName.Category category = cast == null ? null : cast.category();
    if (cast != null && cast.array()) {
      throw new Untranslatable("the array constant " + describe() + " is not a " + target + " value");
    }
    if (category == TypeName.Category.OTHER && castMatchesColumn) {
      category = null;
    }
    return switch (target) {
      case STRING -> {
        require(kind == PgExpr.LiteralKind.STRING && (category == null || category == TypeName.Category.TEXT
            || category == TypeName.Category.BPCHAR || category == TypeName.Category.UUID), target);
        yield SpannerExpression.string(text);
      }
      case INT64 -> {
        require(isNumeric(category, TypeName.Category.INTEGER, TypeName.Category.NUMERIC), target);
        String v = text.trim();
        if (!INTEGER.matcher(v).matches() || !fitsLong(v)) {
          throw new Untranslatable("the constant " + describe() + " is not an ", SpannerType.INT64, " value");
        }
        yield SpannerExpression.token(Long.toString(Long.parseLong(v)));
      }
      case NUMERIC -> {
        require(isNumeric(category, TypeName.Category.INTEGER, TypeName.Category.NUMERIC), target);
        yield SpannerExpression.numeric(numeric(limits));
      }
      case FLOAT64, FLOAT32 -> {
        require(isNumeric(category, TypeName.Category.INTEGER, TypeName.Category.NUMERIC,
            TypeName.Category.FLOAT), target);
        String v = text.trim();
        if (!NUMBER.matcher(v).matches()) {
          throw new Untranslatable("the constant " + describe() + " (NaN or infinity) is not translated");
        }
        yield SpannerExpression.token(v.startsWith("+") ? v.substring(1) : v);
      }
      case BOOL -> {
        if (kind == PgExpr.LiteralKind.BOOLEAN && category == null) {
          yield SpannerExpression.token(text.toUpperCase(Locale.ROOT));
        }
        require(kind == PgExpr.LiteralKind.STRING && category == TypeName.Category.BOOLEAN, target);
        yield switch (text.trim().toLowerCase(Locale.ROOT)) {
          case "t", "true", "y", "yes", "on", "1" -> SpannerExpression.token("TRUE");
          case "f", "false", "n", "no", "off", "0" -> SpannerExpression.token("FALSE");
          default -> throw new Untranslatable("the constant " + describe() + " is not a boolean");
        };
      }
      case DATE -> {
        require(kind == PgExpr.LiteralKind.STRING && category == TypeName.Category.DATE, target);
        String v = text.trim();
        if (!DATE.matcher(v).matches()) {
          throw new Untranslatable("the date " + describe() + " is outside Spanner's ", SpannerType.DATE,
              " range or not a plain date");
        }
        try {
          LocalDate.parse(v);
        } catch (DateTimeParseException e) {
          throw new Untranslatable("the date " + describe() + " is not a valid date");
        }
        yield SpannerExpression.date(v);
      }
      case TIMESTAMP -> {
        require(kind == PgExpr.LiteralKind.STRING && (category == TypeName.Category.TIMESTAMP
            || category == TypeName.Category.TIMESTAMPTZ), target);
        yield SpannerExpression.timestamp(timestamp(category == TypeName.Category.TIMESTAMP, notes));
      }
      case JSON -> {
        require(kind == PgExpr.LiteralKind.STRING && category == TypeName.Category.JSON, target);
        yield SpannerExpression.json(text);
      }
      case BYTES -> {
        require(kind == PgExpr.LiteralKind.STRING && category == TypeName.Category.BYTEA, target);
        Matcher m = HEX_BYTEA.matcher(text);
        if (!m.matches()) {
          throw new Untranslatable("the bytea constant " + describe() + " is not in hex format");
        }
        yield SpannerExpression.bytes(HexFormat.of().parseHex(m.group(1)));
      }
      case ARRAY -> throw new IllegalArgumentException("arrays are rendered element by element");
    };
  }

  /**
   * The elements of an array constant written as PostgreSQL's text form ({@code '{a,"b c",NULL}'}), or null
   * elements for NULL.
   */
  List<String> arrayElements() {
    String v = text.trim();
    if (!v.startsWith("{") || !v.endsWith("}")) {
      throw new Untranslatable("the array constant " + describe() + " is not in PostgreSQL's array text form");
    }
    List<String> elements = new ArrayList<>();
    String body = v.substring(1, v.length() - 1);
    if (body.isBlank()) {
      return elements;
    }
    int i = 0;
    while (i <= body.length()) {
      while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
        i++;
      }
      if (i < body.length() && body.charAt(i) == '{') {
        throw new Untranslatable("the array constant " + describe() + " is multi-dimensional; Spanner arrays are not");
      }
      if (i < body.length() && body.charAt(i) == '"') {
        StringBuilder s = new StringBuilder();
        i++;
        while (i < body.length() && body.charAt(i) != '"') {
          if (body.charAt(i) == '\\' && i + 1 < body.length()) {
            i++;
          }
          s.append(body.charAt(i++));
        }
        if (i >= body.length()) {
          throw new Untranslatable("the array constant " + describe() + " has an unterminated element");
        }
        i++;
        elements.add(s.toString());
        while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
          i++;
        }
      } else {
        int start = i;
        while (i < body.length() && body.charAt(i) != ',') {
          if (body.charAt(i) == '\\' || body.charAt(i) == '"') {
            throw new Untranslatable("the array constant " + describe() + " uses escapes that are not translated");
          }
          i++;
        }
        String raw = body.substring(start, i).trim();
        elements.add(raw.equalsIgnoreCase("NULL") ? null : raw);
      }
      if (i < body.length() && body.charAt(i) != ',') {
        throw new Untranslatable("the array constant " + describe() + " is not understood");
      }
      i++;
    }
    return elements;
  }

  /** The element type of an array cast, as a scalar type name. */
  TypeName elementCast() {
    return cast == null ? null : new TypeName(cast.schema(), cast.name(), cast.modifiers(), false);
  }

  String describe() {
    String literal = switch (kind) {
      case STRING -> "'" + text.replace("'", "''") + "'";
      default -> text;
    };
    return cast == null ? literal : literal + "::" + cast;
  }

  private void require(boolean ok, SpannerType.Base target) {
    if (!ok) {
      throw new Untranslatable("the constant " + describe() + " does not fit the Spanner type " + target);
    }
  }

  private boolean isNumeric(TypeName.Category category, TypeName.Category... allowedCasts) {
    if (kind == PgExpr.LiteralKind.NUMBER && category == null) {
      return true;
    }
    if (kind != PgExpr.LiteralKind.NUMBER && kind != PgExpr.LiteralKind.STRING) {
      return false;
    }
    for (TypeName.Category c : allowedCasts) {
      if (c == category) {
        return true;
      }
    }
    return false;
  }

  /** The value as a plain decimal that fits Spanner NUMERIC within {@code limits} (the dialect's digits). */
  String numeric(SpannerLimits limits) {
    String v = text.trim();
    if (!NUMBER.matcher(v).matches()) {
      throw new Untranslatable("the constant " + describe() + " (NaN or infinity) does not fit Spanner ",
          SpannerType.NUMERIC);
    }
    BigDecimal d = new BigDecimal(v).stripTrailingZeros();
    if (d.scale() > limits.numericScale() || d.precision() - d.scale() > limits.numericIntegerDigits()) {
      throw new Untranslatable("the constant " + describe() + " does not fit Spanner ", SpannerType.NUMERIC,
          " (" + limits.numericIntegerDigits() + " integer and " + limits.numericScale() + " fractional digits)");
    }
    return d.signum() == 0 ? "0" : d.toPlainString();
  }

  /** True for an integral number that fits INT64 (whatever its cast). */
  boolean isIntegral() {
    return (kind == PgExpr.LiteralKind.NUMBER || kind == PgExpr.LiteralKind.STRING)
        && INTEGER.matcher(text.trim()).matches() && fitsLong(text.trim());
  }

  private String timestamp(boolean withoutTimeZone, List<String> notes) {
    String v = text.trim();
    Matcher m = TIMESTAMP.matcher(v);
    if (!m.matches()) {
      throw new Untranslatable("the timestamp " + describe() + " is outside Spanner's ", SpannerType.TIMESTAMP,
          " range or not in a form that is translated");
    }
    try {
      LocalDate.parse(m.group(1));
    } catch (DateTimeParseException e) {
      throw new Untranslatable("the timestamp " + describe() + " is not a valid date");
    }
    if (m.group(6) != null) {
      return v;
    }
    // Spanner reads a zone-less literal in America/Los_Angeles; the loader stores timestamp without time zone
    // values as UTC, so the literal must say UTC too.
    notes.add("the timestamp without time zone " + SpannerLiterals.string(v) + " is read as UTC, as the loader does");
    return v + "+00";
  }

  private static boolean fitsLong(String v) {
    try {
      Long.parseLong(v.trim());
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
