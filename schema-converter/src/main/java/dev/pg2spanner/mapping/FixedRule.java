package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import java.util.Set;

/**
 * A type with one fixed target. Exact when {@code note} is null; otherwise a LOSSY_TYPE note of the given
 * severity says what changes (a "fallback" keeps every value's text but loses the type's semantics).
 *
 * @param target the Spanner type
 * @param conversion the loader's conversion
 * @param fallback true when the target only keeps the value's text, not its type
 * @param severity the note's severity (null when note is null)
 * @param note what changes for values of this type, or null when nothing does
 * @param needs evidence to collect (TEXT_SIZE for unbounded values), possibly empty
 */
record FixedRule(SpannerType target, ValueConversion conversion, boolean fallback, Severity severity, String note,
    Set<EvidenceNeed> needs) implements Rule {

  FixedRule {
    needs = Set.copyOf(needs);
  }

  static FixedRule exact(SpannerType target, ValueConversion conversion) {
    return new FixedRule(target, conversion, false, null, null, Set.of());
  }

  /** Exact, but the value's size must be checked against the cell limit. */
  static FixedRule sized(SpannerType target, ValueConversion conversion) {
    return new FixedRule(target, conversion, false, null, null, Set.of(EvidenceNeed.TEXT_SIZE));
  }

  /** Every value arrives unchanged, but something about the type changes: the note says what. */
  static FixedRule noted(SpannerType target, ValueConversion conversion, Severity severity, String note) {
    return new FixedRule(target, conversion, false, severity, note, Set.of());
  }

  /** The value's text is kept in a STRING; the type's semantics are not. */
  static FixedRule text(ValueConversion conversion, Severity severity, String note) {
    return new FixedRule(SpannerType.STRING_MAX, conversion, true, severity, note, Set.of());
  }

  FixedRule sizeChecked() {
    return new FixedRule(target, conversion, fallback, severity, note, Set.of(EvidenceNeed.TEXT_SIZE));
  }

  @Override
  public String describe() {
    String kind = fallback ? "fallback" : note == null ? "exact" : "exact, noted";
    return kind + ": " + target.ddl() + " via " + conversion
        + (needs.isEmpty() ? "" : ", evidence " + TypeMapper.needsText(needs))
        + (note == null ? "" : " [" + severity + "] " + note);
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    List<MappingNote> notes = note == null ? List.of()
        : List.of(MappingNote.typeChange(severity, type, target, note, conversion, dialect));
    return new TypeMapping(target, conversion, notes, needs, List.of());
  }
}
