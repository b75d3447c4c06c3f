package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A note the mapping attaches to a column; the planner turns it into a Finding with table and column.
 *
 * @param code what kind of finding (never null)
 * @param severity how much it matters (never null)
 * @param message one paragraph: what changes, why, and what the plan does about it (never null); the code's
 *     generic next step is {@link FindingCode#remedy()}, not repeated here
 * @param evidence the facts behind it, sorted by key; null becomes empty. Values are strings, numbers,
 *     booleans or lists of them, as in {@link dev.pg2spanner.finding.Finding#evidence()}
 */
public record MappingNote(FindingCode code, Severity severity, String message, Map<String, Object> evidence) {

  public MappingNote {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(message, "message");
    evidence = evidence == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(evidence));
  }

  /**
   * A LOSSY_TYPE note in the code's template, "{type} → {target}: {detail}", with the type and conversion as
   * evidence.
   */
  static MappingNote typeChange(Severity severity, PgType type, SpannerType target, String detail,
      ValueConversion conversion, SpannerDialect dialect) {
    return new MappingNote(FindingCode.LOSSY_TYPE, severity, change(type, target, detail, dialect),
        Map.of("pgType", type.display(), "conversion", conversion.name()));
  }

  /** LOSSY_TYPE's template, "{type} → {target}: {detail}", the target as {@code dialect} spells it. */
  static String change(PgType type, SpannerType target, String detail, SpannerDialect dialect) {
    return FindingCode.LOSSY_TYPE.message(type.display(), target.ddl(dialect), detail);
  }

  /**
   * The values of a column whose fit depends on them were not examined (no evidence): says what the loader does
   * with one that does not fit, {@code what} (e.g. "a NaN value (which Spanner NUMERIC cannot hold)").
   */
  static MappingNote notExamined(Severity severity, PgType type, SpannerType target, String what,
      SpannerDialect dialect) {
    return new MappingNote(FindingCode.LOSSY_TYPE, severity, change(type, target, "values were not examined; "
        + what + " would be rejected to the dead-letter file.", dialect), Map.of());
  }

  static MappingNote info(String message) {
    return new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO, message, Map.of());
  }
}
