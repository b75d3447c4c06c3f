package dev.pg2spanner.finding;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How much a finding matters. Serialised in lower case ("error", "warning", "info"). */
public enum Severity {
  /** The plan cannot be carried out as it stands (e.g. a type Spanner cannot hold with no fallback chosen). */
  ERROR,
  /** It will migrate, but something changes or costs performance: read it before you migrate. */
  WARNING,
  /** Worth knowing; nothing to do. */
  INFO;

  @JsonValue
  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }
}
