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
    return dev.pg2spanner.spanner.SpannerLiterals.string(value);
  }
}
