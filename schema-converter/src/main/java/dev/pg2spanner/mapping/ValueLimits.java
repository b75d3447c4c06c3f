package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Spanner's per-value size limits, applied to evidence of any sized type (text, bytea, xml, bit strings). */
final class ValueLimits {

  private ValueLimits() {}

  /** The cell limit as messages write it: "10 MiB". */
  static String cellLimit(SpannerDialect dialect) {
    return (dialect.limits().maxCellBytes() >> 20) + " MiB";
  }

  /** The string length limit as messages write it: "2,621,440 characters". */
  static String stringLimit(SpannerDialect dialect) {
    return String.format(Locale.ROOT, "%,d characters", dialect.limits().maxStringLength());
  }

  /**
   * Adds an ERROR note when TEXT_SIZE evidence shows values over the cell limit; otherwise returns the mapping
   * unchanged (a size that was not checked needs no note: such a value is rejected, with its reason, to the
   * dead-letter file, and values that large are rare enough not to warn about every text column).
   */
  static TypeMapping refine(TypeMapping first, ColumnEvidence evidence, SpannerDialect dialect) {
    if (evidence == null || !first.evidence().contains(EvidenceNeed.TEXT_SIZE)) {
      return first;
    }
    long over = evidence.count(ColumnEvidence.OVER_CELL_LIMIT);
    long tooLong = evidence.has(ColumnEvidence.OVER_STRING_CHARS)
        ? evidence.count(ColumnEvidence.OVER_STRING_CHARS) : 0;
    if (over == 0 && tooLong > 0 && first.target().base() == SpannerType.Base.STRING) {
      return first.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.ERROR,
          tooLong + (tooLong == 1 ? " value is" : " values are") + " longer than " + stringLimit(dialect)
              + ", Spanner's limit for one " + SpannerType.STRING_MAX.ddl(dialect) + " value" + sampleText(evidence)
              + "; those rows would be rejected to the dead-letter file. Shorten them in the source, or store them "
              + "as " + SpannerType.BYTES_MAX.ddl(dialect) + " (edit targetType and conversion in plan.yaml) or "
              + "outside the database.",
          Map.of(ColumnEvidence.OVER_STRING_CHARS, tooLong, "rowsExamined", evidence.rowsExamined(),
              "sampled", evidence.sampled())));
    }
    if (over == 0) {
      return first;
    }
    return first.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.ERROR,
        over + (over == 1 ? " value is" : " values are") + " larger than Spanner's " + cellLimit(dialect) + " cell limit"
            + sampleText(evidence) + " and cannot be stored in any Spanner column; those rows would be rejected to "
            + "the dead-letter file. Shorten them in the source or move them out of the database (e.g. to "
            + "Cloud Storage, keeping a reference) before migrating.",
        Map.of(ColumnEvidence.OVER_CELL_LIMIT, over,
            ColumnEvidence.MAX_OCTETS, evidence.count(ColumnEvidence.MAX_OCTETS),
            "rowsExamined", evidence.rowsExamined(), "sampled", evidence.sampled())));
  }

  /**
   * The facts every evidence note starts with, in this order: the column's type, how many rows were examined and
   * whether they were a sample; the caller adds its own (a mutable, ordered map).
   */
  static Map<String, Object> facts(PgType type, ColumnEvidence evidence) {
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("pgType", type.display());
    facts.put("rowsExamined", evidence.rowsExamined());
    facts.put("sampled", evidence.sampled());
    return facts;
  }

  /** " (in a sample of N rows)" or " (in N rows)": every evidence message says how much it looked at. */
  static String sampleText(ColumnEvidence evidence) {
    return evidence.sampled()
        ? " (in a sample of " + evidence.rowsExamined() + " rows)"
        : " (in all " + evidence.rowsExamined() + " rows)";
  }
}
