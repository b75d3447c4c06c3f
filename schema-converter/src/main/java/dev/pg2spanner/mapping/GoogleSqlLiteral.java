package dev.pg2spanner.mapping;

/**
 * GoogleSQL string literals for the CHECK templates this package writes (identifiers are quoted elsewhere, by
 * {@link dev.pg2spanner.spanner.SpannerNames}).
 */
final class GoogleSqlLiteral {

  private GoogleSqlLiteral() {}

  /**
   * {@code 'it\'s'}: a single-quoted GoogleSQL string literal. Backslash and quote are escaped, and control
   * characters are written as escapes because a raw newline ends a single-quoted literal.
   */
  static String string(String value) {
    StringBuilder s = new StringBuilder(value.length() + 2).append('\'');
    value.codePoints().forEach(cp -> {
      switch (cp) {
        case '\\' -> s.append("\\\\");
        case '\'' -> s.append("\\'");
        case '\n' -> s.append("\\n");
        case '\r' -> s.append("\\r");
        case '\t' -> s.append("\\t");
        default -> {
          if (cp < 0x20 || cp == 0x7f) {
            s.append(String.format("\\u%04x", cp));
          } else {
            s.appendCodePoint(cp);
          }
        }
      }
    });
    return s.append('\'').toString();
  }
}
