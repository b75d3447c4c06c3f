package dev.pg2spanner.expression;

/**
 * Either a GoogleSQL expression or the reason it could not be translated.
 *
 * <p>Three states: translated ({@code expression} set; {@code reason} null, or a note on a semantic difference a
 * DBA should know about), untranslated ({@code expression} null, {@code reason} says why), and nothing to
 * translate ({@link #none()}: both null, e.g. {@code DEFAULT NULL}, which needs no DEFAULT clause in Spanner).
 *
 * @param expression the GoogleSQL expression, without DEFAULT/CHECK and without outer parentheses, or null
 * @param reason why it was not translated, or a note on a translated expression, or null
 */
public record Translation(String expression, String reason) {

  private static final Translation NONE = new Translation(null, null);

  public Translation {
    if (expression != null && expression.isBlank()) {
      throw new IllegalArgumentException("a translated expression must not be blank");
    }
  }

  public static Translation of(String expression) {
    return new Translation(expression, null);
  }

  public static Translation withNote(String expression, String note) {
    return new Translation(expression, note);
  }

  public static Translation untranslated(String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("an untranslated expression needs a reason");
    }
    return new Translation(null, reason);
  }

  /** Nothing to translate: the source expression means "no value" (a NULL default). */
  public static Translation none() {
    return NONE;
  }

  /** True when {@link #expression()} holds a GoogleSQL expression. */
  public boolean translated() {
    return expression != null;
  }

  /** True for {@link #none()}: there was nothing to translate, and nothing is lost by leaving it out. */
  public boolean isNone() {
    return expression == null && reason == null;
  }
}
