package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * numeric and numeric(p,s). Spanner NUMERIC holds 29 integer and 9 fractional digits and no NaN or ±Infinity.
 *
 * <ul>
 *   <li>numeric(p,s) with p−s ≤ 29 and s ≤ 9: NUMERIC. Still checked for NaN, which PostgreSQL accepts even in a
 *       constrained numeric column (±Infinity it rejects there).
 *   <li>anything else (s > 9, p−s > 29, unconstrained): STRING(MAX) holding the exact decimal text until the
 *       values show that every one fits; then NUMERIC with the evidence recorded.
 * </ul>
 */
record NumericRule() implements Rule {

  /** Spanner NUMERIC (GoogleSQL): precision 38, scale 9, so 29 integer digits. */
  private static final int MAX_INTEGER_DIGITS = ValueLimits.LIMITS.numericIntegerDigits();
  private static final int MAX_FRACTION_DIGITS = ValueLimits.LIMITS.numericScale();
  /** What keeping the decimal text means, in both notes that keep it. */
  private static final String KEPT_AS_TEXT = "nothing is lost, but the column is no longer numeric in Spanner.";

  @Override
  public String describe() {
    return "with evidence: numeric(p,s) with p−s ≤ " + MAX_INTEGER_DIGITS + " and s ≤ " + MAX_FRACTION_DIGITS
        + " → NUMERIC via NUMERIC (NaN checked); other or unconstrained numeric → NUMERIC when NUMERIC_FIT "
        + "evidence shows every value fits, else STRING(MAX) via NUMERIC_TEXT (exact decimal text) [WARNING]";
  }

  static boolean declaredFit(PgType type) {
    if (type.precision() == null) {
      return false;
    }
    int scale = type.scale() == null ? 0 : type.scale();
    return type.precision() - scale <= MAX_INTEGER_DIGITS && scale <= MAX_FRACTION_DIGITS;
  }

  @Override
  public TypeMapping map(PgType type) {
    if (declaredFit(type)) {
      return new TypeMapping(SpannerType.NUMERIC, ValueConversion.NUMERIC, List.of(),
          Set.of(EvidenceNeed.NUMERIC_FIT), List.of());
    }
    return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.NUMERIC_TEXT, List.of(new MappingNote(
        FindingCode.LOSSY_TYPE, Severity.WARNING,
        type.display() + " can hold values Spanner NUMERIC cannot (more than " + MAX_INTEGER_DIGITS
            + " integer or " + MAX_FRACTION_DIGITS + " fractional digits, NaN, ±Infinity). Until its values are "
            + "examined the plan keeps each value's exact decimal text in STRING(MAX): " + KEPT_AS_TEXT,
        Map.of("pgType", type.display()))), Set.of(EvidenceNeed.NUMERIC_FIT), List.of());
  }

  @Override
  public TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence) {
    boolean declared = declaredFit(type);
    if (evidence == null) {
      if (!declared) {
        return first; // already the safe text form, and its note says why
      }
      return first.withNote(MappingNote.notExamined(Severity.INFO, type, SpannerType.NUMERIC,
          "a NaN value (which Spanner NUMERIC cannot hold)"));
    }
    long nan = evidence.count(ColumnEvidence.NUMERIC_NAN);
    long infinity = evidence.count(ColumnEvidence.NUMERIC_INFINITY);
    long integerDigits = evidence.count(ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS);
    long fractionDigits = evidence.count(ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS);
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("pgType", type.display());
    facts.put("rowsExamined", evidence.rowsExamined());
    facts.put("sampled", evidence.sampled());
    for (String fact : List.of(ColumnEvidence.NUMERIC_NAN, ColumnEvidence.NUMERIC_INFINITY,
        ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS,
        ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS)) {
      if (evidence.facts().get(fact) != null) {
        facts.put(fact, evidence.facts().get(fact));
      }
    }
    if (nan + infinity + integerDigits + fractionDigits > 0) {
      List<String> problems = new ArrayList<>();
      if (integerDigits > 0) {
        problems.add(integerDigits + plural(integerDigits, " value has", " values have") + " more than "
            + MAX_INTEGER_DIGITS + " integer digits");
      }
      if (fractionDigits > 0) {
        problems.add(fractionDigits + plural(fractionDigits, " value has", " values have") + " more than "
            + MAX_FRACTION_DIGITS + " fractional digits");
      }
      if (nan > 0) {
        problems.add(nan + " NaN");
      }
      if (infinity > 0) {
        problems.add(infinity + " ±Infinity");
      }
      return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.NUMERIC_TEXT, List.of(new MappingNote(
          FindingCode.LOSSY_TYPE, Severity.WARNING,
          type.display() + " does not fit Spanner NUMERIC: " + String.join("; ", problems)
              + ValueLimits.sampleText(evidence) + ". The plan keeps each value's exact decimal text in "
              + "STRING(MAX): " + KEPT_AS_TEXT, facts)),
          first.evidence(), List.of());
    }
    String shape = "at most " + evidence.count(ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS) + " integer and "
        + evidence.count(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS) + " fractional digits, no NaN or Infinity";
    TypeMapping fits = new TypeMapping(SpannerType.NUMERIC, ValueConversion.NUMERIC, List.of(),
        first.evidence(), List.of());
    if (evidence.sampled()) {
      // A sample cannot prove that every value fits: say what happens to one that does not.
      return fits.withNote(new MappingNote(FindingCode.LOSSY_TYPE, declared ? Severity.INFO : Severity.WARNING,
          MappingNote.change(type, SpannerType.NUMERIC, "every sampled value fits (" + shape + ")"
              + ValueLimits.sampleText(evidence) + ", but rows outside the sample were not examined; a value "
              + "that does not fit would be rejected to the dead-letter file."), facts));
    }
    if (declared) {
      return fits;
    }
    return fits.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO,
        MappingNote.change(type, SpannerType.NUMERIC, "every value fits (" + shape + ")"
            + ValueLimits.sampleText(evidence) + "."), facts));
  }

  static String plural(long n, String one, String many) {
    return n == 1 ? one : many;
  }
}
