package dev.pg2spanner.mapping;

import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A note the mapping attaches to a column; the planner turns it into a Finding with table and column.
 *
 * @param code what kind of finding (never null)
 * @param severity how much it matters (never null)
 * @param message one paragraph: what changes, why, and what the plan does about it (never null)
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

  static MappingNote info(String message) {
    return new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO, message, Map.of());
  }

  static MappingNote lossy(String message) {
    return new MappingNote(FindingCode.LOSSY_TYPE, Severity.WARNING, message, Map.of());
  }
}
