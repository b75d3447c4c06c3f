package dev.pg2spanner.mapping;

import dev.pg2spanner.expression.SpannerExpression;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where one PostgreSQL column type goes in Spanner.
 *
 * <p>For an unsupported type the target is the {@code STRING(MAX)} / {@link ValueConversion#TEXT_OUTPUT} a person
 * could choose by editing the plan, but the mapping carries an {@link FindingCode#UNSUPPORTED_TYPE} ERROR note,
 * so the plan cannot run until someone decides: nothing becomes a silent STRING.
 *
 * @param target the Spanner column type (never null)
 * @param conversion how the loader converts each value, each element for ARRAY targets (never null)
 * @param notes what a person must know about this mapping, in the order the rules added them; null = none
 * @param evidence what values must be examined before the mapping is final; null or {NONE} = nothing
 * @param checks CHECK expression templates over {@link SpannerExpression#placeholder()} for the target
 *     column, e.g. {@code {col} IN ('G', 'PG')}; null = none
 */
public record TypeMapping(SpannerType target, ValueConversion conversion, List<MappingNote> notes,
    Set<EvidenceNeed> evidence, List<SpannerExpression> checks) {

  public TypeMapping {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(conversion, "conversion");
    notes = notes == null ? List.of() : List.copyOf(notes);
    EnumSet<EvidenceNeed> needs = EnumSet.noneOf(EvidenceNeed.class);
    if (evidence != null) {
      needs.addAll(evidence);
    }
    needs.remove(EvidenceNeed.NONE);
    evidence = Collections.unmodifiableSet(needs);
    checks = checks == null ? List.of() : List.copyOf(checks);
    for (SpannerExpression check : checks) {
      if (!check.usesPlaceholder()) {
        throw new IllegalArgumentException("a check template must use the column placeholder: " + check.googleSql());
      }
    }
  }

  /** A mapping with no notes, no evidence and no checks. */
  public static TypeMapping exact(SpannerType target, ValueConversion conversion) {
    return new TypeMapping(target, conversion, List.of(), Set.of(), List.of());
  }

  /** True when a note says the type cannot be migrated as planned ({@link FindingCode#UNSUPPORTED_TYPE}). */
  public boolean isUnsupported() {
    return notes.stream().anyMatch(n -> n.code() == FindingCode.UNSUPPORTED_TYPE);
  }

  /** The most serious note's severity, or null when there are no notes. */
  public Severity worstSeverity() {
    return notes.stream().map(MappingNote::severity).min(Enum::compareTo).orElse(null);
  }

  /** The check templates written for the Spanner column {@code column} (its unquoted name). */
  public List<SpannerExpression> checksFor(String column) {
    return checks.stream().map(c -> c.withColumn(column)).toList();
  }

  TypeMapping withNotes(List<MappingNote> more) {
    List<MappingNote> all = new ArrayList<>(notes);
    all.addAll(more);
    return new TypeMapping(target, conversion, all, evidence, checks);
  }

  TypeMapping withNote(MappingNote note) {
    return withNotes(List.of(note));
  }

  TypeMapping withEvidence(Set<EvidenceNeed> needs) {
    return new TypeMapping(target, conversion, notes, needs, checks);
  }

  TypeMapping withChecks(List<SpannerExpression> more) {
    List<SpannerExpression> all = new ArrayList<>(checks);
    all.addAll(more);
    return new TypeMapping(target, conversion, notes, evidence, all);
  }

  /** One line for the snapshot and the docs: target, conversion, evidence, checks and note severities. */
  String summary() {
    StringBuilder s = new StringBuilder(target.ddl()).append(" via ").append(conversion);
    if (!evidence.isEmpty()) {
      s.append("; evidence ").append(evidence.stream().map(Enum::name).collect(Collectors.joining("+")));
    }
    for (SpannerExpression check : checks) {
      s.append("; CHECK ").append(check.googleSql());
    }
    for (MappingNote n : notes) {
      s.append("; ").append(n.severity()).append(' ').append(n.code()).append(": ").append(n.message());
    }
    return s.toString();
  }
}
