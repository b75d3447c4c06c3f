package dev.pg2spanner.planner;

import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Respells an expression the planner wrote in GoogleSQL (a translated DEFAULT, CHECK or generated column) in the
 * PostgreSQL dialect. It reads only what the planner itself writes ({@code expression/ExpressionTranslator} and the
 * type rules' CHECKs; the key strategies' expressions are typed values, {@code plan/KeyExpression}, and never come
 * here): column names, string, bytes and typed literals, numbers, TRUE/FALSE/NULL,
 * comparisons, AND/OR/NOT, IS [NOT] NULL, [NOT] IN, [NOT] BETWEEN, arithmetic, arrays, and the functions
 * GENERATE_UUID(), CURRENT_TIMESTAMP() and CHAR_LENGTH() (as {@code length}, the one of the two the dialect has).
 * A jsonb literal is not respelled: the emulator refuses every cast of a string to jsonb in a DEFAULT. The translator already refused whatever PostgreSQL and
 * GoogleSQL evaluate differently, and both dialects read these constructs alike, so the respelled expression means
 * what the source's did. Anything else gives empty, and the caller reports the expression as not translated:
 * never a guess.
 */
final class PostgresExpressions {

  private static final SpannerLimits PG = SpannerLimits.POSTGRESQL;
  private static final Set<String> KEYWORDS = Set.of("AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "TRUE",
      "FALSE");
  /** GoogleSQL typed literal prefix → the PostgreSQL cast that gives the same value. */
  private static final Map<String, String> TYPED = Map.of("NUMERIC", "numeric", "DATE", "date",
      "TIMESTAMP", "timestamptz", "JSON", "jsonb");
  private static final String OPERATORS = "<=>!+-*/";

  private final String in;
  private int pos;
  private final StringBuilder out = new StringBuilder();

  private PostgresExpressions(String in) {
    this.in = in;
  }

  /** The expression in the PostgreSQL dialect, or empty when it holds anything this class does not know. */
  static Optional<String> respell(String googleSql) {
    if (googleSql == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(new PostgresExpressions(googleSql).run());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private String run() {
    boolean afterValue = false; // the previous token ends a value (a '[' after it would be a subscript)
    while (pos < in.length()) {
      char c = in.charAt(pos);
      if (Character.isWhitespace(c)) {
        out.append(c);
        pos++;
      } else if (c == '`') {
        int end = in.indexOf('`', pos + 1);
        if (end < 0) {
          throw new IllegalArgumentException("unterminated name");
        }
        out.append(SpannerNames.quote(PG, in.substring(pos + 1, end)));
        pos = end + 1;
        afterValue = true;
      } else if ((c == 'b' || c == 'B') && pos + 1 < in.length() && (in.charAt(pos + 1) == '\''
          || in.charAt(pos + 1) == '"')) {
        pos++;
        out.append("'\\x").append(HexFormat.of().formatHex(googleString().getBytes(
            java.nio.charset.StandardCharsets.ISO_8859_1))).append("'::bytea");
        afterValue = true;
      } else if (c == '\'' || c == '"') {
        out.append(pgString(googleString()));
        afterValue = true;
      } else if (Character.isDigit(c)) {
        int start = pos;
        while (pos < in.length() && (Character.isLetterOrDigit(in.charAt(pos)) || in.charAt(pos) == '.'
            || ((in.charAt(pos) == '+' || in.charAt(pos) == '-') && "eE".indexOf(in.charAt(pos - 1)) >= 0))) {
          pos++;
        }
        out.append(in, start, pos);
        afterValue = true;
      } else if (Character.isLetter(c) || c == '_') {
        int start = pos;
        while (pos < in.length() && (Character.isLetterOrDigit(in.charAt(pos)) || in.charAt(pos) == '_')) {
          pos++;
        }
        afterValue = word(in.substring(start, pos));
      } else if (c == '[') {
        if (afterValue) {
          throw new IllegalArgumentException("array subscripts are not respelled");
        }
        if (nextNonSpace(pos + 1) == ']') {
          throw new IllegalArgumentException("an empty array needs a type");
        }
        out.append("ARRAY[");
        pos++;
        afterValue = false;
      } else if (c == ']' || c == ')') {
        out.append(c);
        pos++;
        afterValue = true;
      } else if (c == '(' || c == ',') {
        out.append(c);
        pos++;
        afterValue = false;
      } else if (OPERATORS.indexOf(c) >= 0) {
        out.append(c);
        pos++;
        afterValue = false;
      } else {
        throw new IllegalArgumentException("unexpected " + c);
      }
    }
    return out.toString();
  }

  /** A bare word: a keyword, a typed literal, a known function, or a column name. Returns whether it ends a value. */
  private boolean word(String word) {
    String upper = word.toUpperCase(java.util.Locale.ROOT);
    int next = nextNonSpace(pos);
    if (KEYWORDS.contains(word)) {
      out.append(word);
      return word.equals("NULL") || word.equals("TRUE") || word.equals("FALSE");
    }
    if (TYPED.containsKey(word) && (next == '\'' || next == '"')) {
      if (word.equals("JSON")) {
        // The emulator (1.5.28) refuses any cast of a string to jsonb in a DEFAULT, and to_jsonb(text) would
        // make a JSON string, not the document: reported instead.
        throw new IllegalArgumentException("jsonb literals are not respelled");
      }
      skipSpace();
      out.append(pgString(googleString())).append("::").append(TYPED.get(word));
      return true;
    }
    if (next == '(') {
      switch (upper) {
        case "GENERATE_UUID", "CURRENT_TIMESTAMP" -> {
          skipSpace();
          if (nextNonSpace(pos + 1) != ')') {
            throw new IllegalArgumentException(word + " with arguments");
          }
          pos = in.indexOf(')', pos) + 1;
          out.append(upper.equals("GENERATE_UUID") ? "spanner.generate_uuid()" : "CURRENT_TIMESTAMP");
          return true;
        }
        case "CHAR_LENGTH" -> {
          // length(text) counts characters as char_length does; the PostgreSQL dialect has only length.
          out.append("length");
          return false;
        }
        default -> throw new IllegalArgumentException("the function " + word + " is not respelled");
      }
    }
    if (KEYWORDS.contains(upper) || TYPED.containsKey(upper)) {
      throw new IllegalArgumentException("a keyword in an unexpected case");
    }
    out.append(SpannerNames.quote(PG, word));
    return true;
  }

  /** Reads a GoogleSQL string literal at {@code pos} ('...', "...", '''...''', with backslash escapes). */
  private String googleString() {
    char quote = in.charAt(pos);
    boolean triple = in.startsWith(String.valueOf(quote).repeat(3), pos);
    pos += triple ? 3 : 1;
    StringBuilder value = new StringBuilder();
    while (true) {
      if (pos >= in.length()) {
        throw new IllegalArgumentException("unterminated string");
      }
      char c = in.charAt(pos);
      if (triple ? in.startsWith(String.valueOf(quote).repeat(3), pos) : c == quote) {
        pos += triple ? 3 : 1;
        return value.toString();
      }
      if (c == '\\') {
        char e = in.charAt(pos + 1);
        switch (e) {
          case '\\', '\'', '"' -> value.append(e);
          case 'x' -> {
            value.append((char) Integer.parseInt(in.substring(pos + 2, pos + 4), 16));
            pos += 2;
          }
          default -> throw new IllegalArgumentException("the escape \\" + e + " is not respelled");
        }
        pos += 2;
      } else {
        value.append(c);
        pos++;
      }
    }
  }

  /** A PostgreSQL standard string literal: quotes doubled, no backslash escapes; control characters refused. */
  private static String pgString(String value) {
    if (value.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
      throw new IllegalArgumentException("a control character in a string");
    }
    return "'" + value.replace("'", "''") + "'";
  }

  private int nextNonSpace(int from) {
    int i = from;
    while (i < in.length() && Character.isWhitespace(in.charAt(i))) {
      i++;
    }
    return i < in.length() ? in.charAt(i) : -1;
  }

  private void skipSpace() {
    while (pos < in.length() && Character.isWhitespace(in.charAt(pos))) {
      pos++;
    }
  }
}
