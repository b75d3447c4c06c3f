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
 * json and jsonb → JSON. Spanner normalises JSON: members sorted, whitespace dropped, the FIRST of duplicate
 * keys kept, numbers reprinted; it rejects documents nested deeper than 80 levels, larger than 10 MiB, or holding
 * a number it cannot keep exactly (not an INT64/UINT64 integer and not round-trippable through a double).
 *
 * <p>jsonb is checked with JSON_DEPTH evidence: a document Spanner would reject turns the column into STRING(MAX)
 * via JSON_TEXT (every row arrives). json cannot be cast to jsonb safely (it fails on "\u0000"), so its documents
 * are checked by the loader's own converter, which {@code plan} runs over them ({@code ValueProbe}): a document
 * Spanner JSON would change or refuse is refused, and the column becomes JSON_TEXT ({@link TypeMapper#afterProbe}).
 *
 * @param binary true for jsonb
 */
record JsonRule(boolean binary) implements Rule {

  @Override
  public String describe() {
    return binary
        ? "with evidence: JSON via JSON, evidence JSON_DEPTH [INFO] representation normalised; documents too deep,"
            + " too large or with inexact numbers found → STRING(MAX) via JSON_TEXT [WARNING]"
        : "JSON via JSON [INFO] representation normalised; documents the loader refuses (inexact numbers, refused "
            + "strings, duplicate keys, too deep), found when plan runs it over them → STRING(MAX) via JSON_TEXT "
            + "[WARNING]";
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    if (!binary) {
      return new TypeMapping(SpannerType.JSON, ValueConversion.JSON, List.of(MappingNote.info(MappingNote.change(
          type, SpannerType.JSON, "Spanner normalises each document (key order and whitespace are not kept).",
          dialect))), Set.of(), List.of());
    }
    return new TypeMapping(SpannerType.JSON, ValueConversion.JSON, List.of(MappingNote.info(MappingNote.change(
        type, SpannerType.JSON, "Spanner sorts members by key and may reprint numbers (e.g. 10000 as 1e+4); values "
            + "are kept.", dialect))), Set.of(EvidenceNeed.JSON_DEPTH), List.of());
  }

  @Override
  public TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence, SpannerDialect dialect) {
    if (!binary) {
      return first; // the loader's converter judges json documents (TypeMapper.afterProbe)
    }
    if (evidence == null) {
      return first.withNote(MappingNote.notExamined(Severity.INFO, type, SpannerType.JSON, "a document nested "
          + "deeper than 80 levels, larger than " + ValueLimits.cellLimit(dialect) + " or holding a number Spanner "
          + "cannot keep exactly", dialect));
    }
    long deep = evidence.count(ColumnEvidence.JSON_TOO_DEEP);
    long inexact = evidence.count(ColumnEvidence.JSON_INEXACT_NUMBERS);
    long large = evidence.count(ColumnEvidence.JSON_OVER_SIZE);
    Map<String, Object> facts = ValueLimits.facts(type, evidence);
    facts.put(ColumnEvidence.JSON_TOO_DEEP, deep);
    facts.put(ColumnEvidence.JSON_INEXACT_NUMBERS, inexact);
    facts.put(ColumnEvidence.JSON_OVER_SIZE, large);
    TypeMapping result = first;
    if (deep + inexact > 0) {
      List<String> problems = new ArrayList<>();
      if (deep > 0) {
        problems.add(deep + NumericRule.plural(deep, " document is", " documents are") + " nested deeper than 80 "
            + "levels");
      }
      if (inexact > 0) {
        problems.add(inexact + NumericRule.plural(inexact, " document holds", " documents hold")
            + " numbers Spanner cannot keep exactly (integers beyond 64 bits that are not exact as a double)");
      }
      result = keptAsText(type, String.join("; ", problems) + ValueLimits.sampleText(evidence), "every row arrives",
          facts, first.evidence(), dialect);
    }
    if (large > 0) {
      result = result.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.ERROR, large
          + NumericRule.plural(large, " document is", " documents are") + " larger than Spanner's "
          + ValueLimits.cellLimit(dialect) + " limit"
          + ValueLimits.sampleText(evidence) + " and cannot be stored; those rows would be rejected to the "
          + "dead-letter file. Shrink or move them before migrating.", facts));
    }
    return result;
  }

  /** The column falls back to its documents' text: {@code problems} say why, {@code so} what that buys. */
  private static TypeMapping keptAsText(PgType type, String problems, String so, Map<String, Object> facts,
      Set<EvidenceNeed> needs, SpannerDialect dialect) {
    String json = SpannerType.JSON.ddl(dialect);
    return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.JSON_TEXT, List.of(new MappingNote(
        FindingCode.LOSSY_TYPE, Severity.WARNING, type.display() + " does not fit Spanner " + json + ": " + problems
            + ". So that " + so + ", the plan keeps each document's text in " + SpannerType.STRING_MAX.ddl(dialect)
            + "; it is no longer " + json + " in Spanner (" + json + " functions need "
            + (dialect.isPostgres() ? "a cast to jsonb" : "PARSE_JSON") + ").", facts)), needs, List.of());
  }
}
