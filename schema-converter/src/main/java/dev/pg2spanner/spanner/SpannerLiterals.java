package dev.pg2spanner.spanner;

/**
 * The one place GoogleSQL string literals are spelled for DDL the tool writes (defaults, CHECKs, enum label lists).
 *
 * <p>A quote inside a value is never written as {@code \'}: GoogleSQL accepts that, but Flyway's SQL parser does not
 * know backslash escapes, loses track of the quotes and glues the next statement (or the file's last {@code ;}) onto
 * this one. GoogleSQL also has double-quoted and triple-quoted string literals, so a value with {@code '} is written
 * between {@code "}, and one with both kinds of quote between {@code '''}.
 */
public final class SpannerLiterals {

  private SpannerLiterals() {}

  /** A GoogleSQL string literal for {@code value}. */
  public static String string(String value) {
    boolean single = value.indexOf('\'') >= 0;
    boolean dbl = value.indexOf('"') >= 0;
    if (!single) {
      return quoted(value, '\'');
    }
    if (!dbl) {
      return quoted(value, '"');
    }
    if (!value.contains("'''") && !value.endsWith("'") && value.chars().noneMatch(c -> c == '\\' || c < 0x20)) {
      return "'''" + value + "'''";
    }
    // Last resort (both quote kinds and a ''' run): escaped; fine for Spanner, not for Flyway's parser.
    return quoted(value, '\'');
  }

  private static String quoted(String value, char quote) {
    StringBuilder s = new StringBuilder(value.length() + 2).append(quote);
    value.codePoints().forEach(cp -> {
      if (cp == '\\') {
        s.append("\\\\");
      } else if (cp == quote) {
        s.append('\\').append(quote);
      } else if (cp == '\n') {
        s.append("\\n");
      } else if (cp == '\r') {
        s.append("\\r");
      } else if (cp == '\t') {
        s.append("\\t");
      } else if (cp < 0x20 || cp == 0x7f) {
        s.append(String.format("\\u%04x", cp));
      } else {
        s.appendCodePoint(cp);
      }
    });
    return s.append(quote).toString();
  }
}
