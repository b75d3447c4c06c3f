package dev.pg2spanner.expression;

/** GoogleSQL literal spelling: the one place strings and bytes are escaped for expressions the tool writes. */
final class GoogleSql {

  private GoogleSql() {}

  /**
   * A GoogleSQL string literal: single-quoted, with backslash and quote escaped (GoogleSQL, unlike PostgreSQL,
   * treats backslash as an escape character in ordinary literals) and control characters spelled as escapes.
   */
  static String string(String value) {
    return dev.pg2spanner.spanner.SpannerLiterals.string(value);
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
