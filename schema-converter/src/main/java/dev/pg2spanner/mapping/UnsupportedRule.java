package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A type the plan cannot migrate by itself: an ERROR note stops the plan until a person edits the column (the
 * target shown, STRING(MAX) via TEXT_OUTPUT, is the edit most people make, never applied silently; the code's
 * remedy says so).
 *
 * @param reason why, as one or more sentences; any advice particular to the type
 */
record UnsupportedRule(String reason) implements Rule {

  @Override
  public String describe() {
    return "unsupported (ERROR): " + reason;
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    return unsupported(type, reason);
  }

  static TypeMapping unsupported(PgType type, String reason) {
    return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.TEXT_OUTPUT,
        List.of(new MappingNote(FindingCode.UNSUPPORTED_TYPE, Severity.ERROR,
            "Type " + type.display() + " has no Spanner equivalent: " + reason,
            Map.of("pgType", type.display(), "pgTypeSchema", type.schema()))),
        Set.of(), List.of());
  }
}
