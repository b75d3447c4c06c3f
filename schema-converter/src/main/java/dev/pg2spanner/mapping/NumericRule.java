package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * numeric and numeric(p,s), decided per dialect.
 *
 * <p>GoogleSQL: NUMERIC holds 29 integer and 9 fractional digits and no NaN or ±Infinity.
 * <ul>
 *   <li>numeric(p,s) with p−s ≤ 29 and s ≤ 9: NUMERIC. Still checked for NaN, which PostgreSQL accepts even in a
 *       constrained numeric column (±Infinity it rejects there).
 *   <li>anything else (s > 9, p−s > 29, unconstrained): STRING(MAX) holding the exact decimal text until the
 *       values show that every one fits; then NUMERIC with the evidence recorded.
 * </ul>
 *
 * <p>PostgreSQL dialect: {@code numeric} holds what PostgreSQL's does (131,072 integer and 16,383 fractional
 * digits, and NaN) but not ±Infinity. So every numeric is {@code numeric}; an unconstrained one is checked for
 * ±Infinity and keeps its text in {@code varchar} when it holds some.
 */
record NumericRule() implements Rule {

  /** Spanner NUMERIC (GoogleSQL): precision 38, scale 9, so 29 integer digits. */
  private static final int MAX_INTEGER_DIGITS = SpannerDialect.GOOGLE_STANDARD_SQL.limits().numericIntegerDigits();
  private static final int MAX_FRACTION_DIGITS = SpannerDialect.GOOGLE_STANDARD_SQL.limits().numericScale();
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
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    if (dialect.isPostgres()) {
      // Only an unconstrained numeric can hold ±Infinity (PostgreSQL refuses it in numeric(p,s)).
      return new TypeMapping(SpannerType.NUMERIC, ValueConversion.NUMERIC, List.of(),
          type.precision() == null ? Set.of(EvidenceNeed.NUMERIC_FIT) : Set.of(), List.of());
    }
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
  public TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence, SpannerDialect dialect) {
    if (dialect.isPostgres()) {
      return refinePostgres(type, first, evidence, dialect);
    }
    boolean declared = declaredFit(type);
    if (evidence == null) {
      if (!declared) {
        return first; // already the safe text form, and its note says why
      }
      return first.withNote(MappingNote.notExamined(Severity.INFO, type, SpannerType.NUMERIC,
          "a NaN value (which Spanner NUMERIC cannot hold)", dialect));
    }
    long nan = evidence.count(ColumnEvidence.NUMERIC_NAN);
    long infinity = evidence.count(ColumnEvidence.NUMERIC_INFINITY);
    long integerDigits = evidence.count(ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS);
    long fractionDigits = evidence.count(ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS);
    Map<String, Object> facts = facts(type, evidence);
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
              + "that does not fit would be rejected to the dead-letter file.", dialect), facts));
    }
    if (declared) {
      return fits;
    }
    return fits.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO,
        MappingNote.change(type, SpannerType.NUMERIC, "every value fits (" + shape + ")"
            + ValueLimits.sampleText(evidence) + ".", dialect), facts));
  }

  /** The PostgreSQL dialect's numeric: only ±Infinity, which only an unconstrained numeric holds, does not fit. */
  private static TypeMapping refinePostgres(PgType type, TypeMapping first, ColumnEvidence evidence,
      SpannerDialect dialect) {
    if (type.precision() != null) {
      return first;
    }
    String why = "a ±Infinity value (which a PostgreSQL-dialect numeric cannot hold)";
    if (evidence == null) {
      return first.withNote(MappingNote.notExamined(Severity.INFO, type, SpannerType.NUMERIC, why, dialect));
    }
    long infinity = evidence.count(ColumnEvidence.NUMERIC_INFINITY);
    Map<String, Object> facts = facts(type, evidence);
    if (infinity > 0) {
      return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.NUMERIC_TEXT, List.of(new MappingNote(
          FindingCode.LOSSY_TYPE, Severity.WARNING,
          type.display() + " does not fit Spanner " + SpannerType.NUMERIC.ddl(dialect) + ": " + infinity
              + " ±Infinity" + ValueLimits.sampleText(evidence) + ". The plan keeps each value's exact decimal "
              + "text in " + SpannerType.STRING_MAX.ddl(dialect) + ": " + KEPT_AS_TEXT, facts)),
          first.evidence(), List.of());
    }
    if (evidence.sampled()) {
      return first.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO, MappingNote.change(type,
          SpannerType.NUMERIC, "no sampled value is ±Infinity" + ValueLimits.sampleText(evidence) + ", but rows "
              + "outside the sample were not examined; " + why + " would be rejected to the dead-letter file.",
          dialect), facts));
    }
    return first;
  }

  private static Map<String, Object> facts(PgType type, ColumnEvidence evidence) {
    Map<String, Object> facts = ValueLimits.facts(type, evidence);
    for (String fact : List.of(ColumnEvidence.NUMERIC_NAN, ColumnEvidence.NUMERIC_INFINITY,
        ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS,
        ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS)) {
      if (evidence.facts().get(fact) != null) {
        facts.put(fact, evidence.facts().get(fact));
      }
    }
    return facts;
  }

  static String plural(long n, String one, String many) {
    return n == 1 ? one : many;
  }
}
