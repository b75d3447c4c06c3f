package dev.pg2spanner.expression;

/** Thrown inside the translator when an expression cannot be translated faithfully; never escapes the package. */
final class Untranslatable extends RuntimeException {

  private static final long serialVersionUID = 1L;

  Untranslatable(String reason) {
    super(reason, null, false, false);
  }
}
