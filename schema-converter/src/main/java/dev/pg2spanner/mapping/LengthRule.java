package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import java.util.Set;

/**
 * varchar(n), char(n), bit(n), varbit(n): STRING(n) when n fits Spanner's STRING(n) limit, else STRING(MAX);
 * an unbounded type (no n) becomes STRING(MAX) with its size checked against the cell limit.
 *
 * @param name the rule's name for the table ("varchar(n)")
 * @param conversion the loader's conversion
 * @param fallback true when only the text is kept (bit strings)
 * @param severity the note's severity (null when note is null)
 * @param note what changes, or null
 */
record LengthRule(String name, ValueConversion conversion, boolean fallback, Severity severity, String note)
    implements Rule {

  @Override
  public String describe() {
    return (fallback ? "fallback" : note == null ? "exact" : "exact, noted") + ": " + name + " → STRING(n) via "
        + conversion + "; STRING(MAX) with evidence TEXT_SIZE when unbounded or n > "
        + SpannerLimits.GOOGLE_STANDARD_SQL.maxStringLength() + (note == null ? "" : " [" + severity + "] " + note);
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    Integer n = type.length();
    // One character of a bit string is one bit, and one char(n)/varchar(n) character is at most 4 UTF-8 bytes,
    // so n ≤ 2,621,440 also keeps every value within the 10 MiB cell limit: no evidence needed.
    boolean bounded = n != null && n >= 1 && n <= dialect.limits().maxStringLength();
    SpannerType target = bounded ? SpannerType.string(n) : SpannerType.STRING_MAX;
    List<MappingNote> notes = note == null ? List.of()
        : List.of(MappingNote.typeChange(severity, type, target, note, conversion, dialect));
    return new TypeMapping(target, conversion, notes, bounded ? Set.of() : Set.of(EvidenceNeed.TEXT_SIZE),
        List.of());
  }
}
