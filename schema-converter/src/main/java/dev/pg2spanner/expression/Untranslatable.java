package dev.pg2spanner.expression;

/** Thrown inside the translator when an expression cannot be translated faithfully; never escapes the package. */
final class Untranslatable extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The reason, with the Spanner types and expressions it names kept typed. */
  private final transient Prose reason;

  /** @param parts the reason: text, and the {@link dev.pg2spanner.spanner.SpannerType}s it names ({@link Prose}) */
  Untranslatable(Object... parts) {
    this(Prose.of(parts));
  }

  Untranslatable(Prose reason) {
    super(reason.toString(), null, false, false);
    this.reason = reason;
  }

  Prose reason() {
    return reason;
  }
}
