package dev.pg2spanner.expression;

/** GoogleSQL literal spelling: the one place strings and bytes are escaped for expressions the tool writes. */
final class GoogleSql {

  private GoogleSql() {}

  /**
   * A GoogleSQL string literal: single-quoted, with backslash and quote escaped (GoogleSQL, unlike PostgreSQL,
   * treats backslash as an escape character in ordinary literals) and control characters spelled as escapes.
   */
  static String string(String value) {
    StringBuilder s = new StringBuilder(value.length() + 2).append('\'');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> s.append("\\\\");
        case '\'' -> s.append("\\'");
        case '\n' -> s.append("\\n");
        case '\r' -> s.append("\\r");
        case '\t' -> s.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            s.append(String.format("\\u%04x", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    return s.append('\'').toString();
  }

  /** A GoogleSQL bytes literal, every byte as a {@code \xhh} escape. */
  static String bytes(byte[] value) {
    StringBuilder s = new StringBuilder("b'");
    for (byte b : value) {
      s.append(String.format("\\x%02x", b & 0xff));
    }
    return s.append('\'').toString();
  }
}
