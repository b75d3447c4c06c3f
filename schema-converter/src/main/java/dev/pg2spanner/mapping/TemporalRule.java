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
 * date, timestamp, timestamptz. Spanner DATE and TIMESTAMP span 0001-01-01..9999-12-31 (UTC) and have no
 * ±infinity; PostgreSQL allows infinity, BC values and years past 9999. Precision is no issue (PostgreSQL keeps
 * microseconds, Spanner nanoseconds).
 *
 * <p>When the evidence finds values outside Spanner's range, the safer choice is taken: the column becomes
 * STRING(MAX) holding PostgreSQL's ISO text (via TEXT_OUTPUT), so every row arrives; the note says how to keep
 * the temporal type instead. Without evidence the temporal type stays, and the note says that out-of-range
 * values would be rejected to the dead-letter file.
 *
 * @param target DATE or TIMESTAMP
 * @param conversion DATE, TIMESTAMP or TIMESTAMP_WALL_CLOCK_AS_UTC
 * @param note what changes even for in-range values, or null
 */
record TemporalRule(SpannerType target, ValueConversion conversion, String note) implements Rule {

  @Override
  public String describe() {
    return "with evidence: " + target.ddl() + " via " + conversion + ", evidence TEMPORAL_RANGE"
        + (note == null ? "" : " [INFO] " + note)
        + "; ±infinity, BC or after-9999 values found → STRING(MAX) via TEXT_OUTPUT (ISO text) [WARNING]";
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    List<MappingNote> notes = note == null ? List.of()
        : List.of(MappingNote.typeChange(Severity.INFO, type, target, note, conversion, dialect));
    return new TypeMapping(target, conversion, notes, Set.of(EvidenceNeed.TEMPORAL_RANGE), List.of());
  }

  @Override
  public TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence, SpannerDialect dialect) {
    String spanner = target.ddl(dialect);
    if (evidence == null) {
      return first.withNote(MappingNote.notExamined(Severity.WARNING, type, target, "any ±infinity, BC or "
          + "after-9999 value (Spanner " + spanner + " spans 0001-01-01..9999-12-31 UTC)", dialect));
    }
    long infinity = evidence.count(ColumnEvidence.TEMPORAL_INFINITY);
    long bc = evidence.count(ColumnEvidence.TEMPORAL_BEFORE_YEAR_1);
    long late = evidence.count(ColumnEvidence.TEMPORAL_AFTER_YEAR_9999);
    Map<String, Object> facts = ValueLimits.facts(type, evidence);
    facts.put(ColumnEvidence.TEMPORAL_INFINITY, infinity);
    facts.put(ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, bc);
    facts.put(ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, late);
    if (infinity + bc + late == 0) {
      if (!evidence.sampled()) {
        return first;
      }
      return first.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO, MappingNote.change(type, target,
          "every sampled value is within 0001-01-01..9999-12-31 UTC" + ValueLimits.sampleText(evidence)
              + "; a value outside it in the rows not sampled would be rejected to the dead-letter file.", dialect),
          facts));
    }
    List<String> problems = new ArrayList<>();
    if (infinity > 0) {
      problems.add(infinity + " ±infinity");
    }
    if (bc > 0) {
      problems.add(bc + " BC");
    }
    if (late > 0) {
      problems.add(late + " after 9999-12-31" + (conversion == ValueConversion.TIMESTAMP ? " UTC" : ""));
    }
    List<MappingNote> notes = new ArrayList<>(first.notes());
    notes.add(new MappingNote(FindingCode.LOSSY_TYPE, Severity.WARNING,
        type.display() + " has values Spanner " + spanner + " cannot hold: " + String.join(", ", problems)
            + ValueLimits.sampleText(evidence) + ". So that every row arrives, the plan stores this column as "
            + SpannerType.STRING_MAX.ddl(dialect) + " holding PostgreSQL's ISO text"
            + (conversion == ValueConversion.TIMESTAMP ? " (in UTC)" : "") + "; it is no longer a "
            + spanner + " in Spanner. To keep " + spanner + ", replace those values in the source "
            + "(e.g. infinity with NULL) and plan again, or edit the plan back to " + spanner + " with "
            + "conversion " + conversion + ": the rows holding them are then rejected to the dead-letter file.",
        facts));
    return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.TEXT_OUTPUT, notes, first.evidence(),
        List.of());
  }
}
