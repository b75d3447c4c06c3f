package dev.pg2spanner.expression;

import dev.pg2spanner.spanner.SpannerDialect;
import java.util.Optional;

/**
 * Either a translated expression or the reason it could not be translated.
 *
 * <p>Three states: translated ({@code value} set; {@code reason} null, or a note on a semantic difference a DBA
 * should know about), untranslated ({@code value} null, {@code reason} says why), and nothing to translate
 * ({@link #none()}: both null, e.g. {@code DEFAULT NULL}, which needs no DEFAULT clause in Spanner).
 *
 * @param value the expression, typed so that each dialect prints it ({@link #in}), or null
 * @param prose why it was not translated, or a note on a translated expression, or null; the Spanner types and
 *     expressions it names are kept typed, so each dialect prints them ({@link #reason(SpannerDialect)})
 */
public record Translation(SpannerExpression value, Prose prose) {

  private static final Translation NONE = new Translation(null, null);

  /** The reason (or note) in GoogleSQL's words, or null when there is none. */
  public String reason() {
    return prose == null ? null : prose.toString();
  }

  /** The reason (or note) as {@code dialect} names types and expressions, or null when there is none. */
  public String reason(SpannerDialect dialect) {
    return prose == null ? null : prose.in(dialect);
  }

  /** Equal when the expression and the reason's words are: how the reason was assembled does not count. */
  @Override
  public boolean equals(Object o) {
    return o instanceof Translation t && java.util.Objects.equals(value, t.value)
        && java.util.Objects.equals(reason(), t.reason());
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(value, reason());
  }

  public static Translation of(SpannerExpression value) {
    return new Translation(value, null);
  }

  public static Translation withNote(SpannerExpression value, String note) {
    return new Translation(value, note == null ? null : Prose.of(note));
  }

  public static Translation untranslated(String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("an untranslated expression needs a reason");
    }
    return untranslated(Prose.of(reason));
  }

  /** Untranslated, for the reason {@code prose} gives (its types printed per dialect by {@link #reason(SpannerDialect)}). */
  static Translation untranslated(Prose prose) {
    return new Translation(null, prose);
  }

  /** Nothing to translate: the source expression means "no value" (a NULL default). */
  public static Translation none() {
    return NONE;
  }

  /** True when {@link #value()} holds an expression. */
  public boolean translated() {
    return value != null;
  }

  /** True for {@link #none()}: there was nothing to translate, and nothing is lost by leaving it out. */
  public boolean isNone() {
    return value == null && prose == null;
  }

  /**
   * The expression in GoogleSQL, without DEFAULT/CHECK and without outer parentheses, or null when there is none.
   */
  public String expression() {
    return value == null ? null : value.googleSql();
  }

  /** The expression in {@code dialect}; empty when there is none, or when that dialect cannot hold it as written. */
  public Optional<String> in(SpannerDialect dialect) {
    return value == null ? Optional.empty() : value.in(dialect);
  }
}
