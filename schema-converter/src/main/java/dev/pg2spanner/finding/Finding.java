package dev.pg2spanner.finding;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One thing the plan wants a person to know, as data: reports (terminal, Markdown, JSON) are rendered from it.
 *
 * @param code what kind of finding
 * @param severity how much it matters (usually the code's default)
 * @param table the source table, "schema.name", or null for database-wide findings
 * @param column the source column, or null
 * @param index the source index or constraint, or null
 * @param message one paragraph a DBA can paste into a design review: what, why it matters, what the plan does,
 *     with this finding's facts; the code's title and generic next step ({@link FindingCode#remedy()}) are written
 *     once in the catalogue and rendered once per code, not repeated here
 * @param evidence the facts behind it (sequence name, correlation, sampled values, counts), sorted by key;
 *     values are strings, numbers, booleans or lists of them
 */
@JsonPropertyOrder({"code", "severity", "table", "column", "index", "message", "evidence"})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Finding(FindingCode code, Severity severity, String table, String column, String index,
    String message, Map<String, Object> evidence) {

  public Finding {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(message, "message");
    evidence = evidence == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(evidence));
  }

  /** A finding with the code's default severity. */
  public static Finding of(FindingCode code, String table, String column, String index, String message,
      Map<String, Object> evidence) {
    return new Finding(code, code.defaultSeverity(), table, column, index, message, evidence);
  }

  public static Finding onTable(FindingCode code, String table, String message) {
    return of(code, table, null, null, message, Map.of());
  }

  public Finding withSeverity(Severity newSeverity) {
    return new Finding(code, newSeverity, table, column, index, message, evidence);
  }
}
