package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An array: ARRAY of the element rule's target, converted element by element (NULL elements are kept: Spanner
 * arrays hold them). Spanner arrays are one-dimensional and unbounded, so a column declared with more than one
 * dimension, or whose values turn out to have more (PostgreSQL does not enforce the declaration), keeps its
 * text form in STRING(MAX). An unsupported element type makes the array unsupported.
 */
record ArrayRule() implements Rule {

  /** The SQL names of the element types of PostgreSQL's vector types (int2vector, oidvector). */
  private static final Map<String, String> VECTOR_ELEMENTS = Map.of("int2", "smallint", "oid", "oid");

  @Override
  public String describe() {
    return "ARRAY<element rule's target> via the element's conversion, evidence ARRAY_DIMENSIONS plus the "
        + "element's value evidence; declared or found multi-dimensional → STRING(MAX) via TEXT_OUTPUT [WARNING]; "
        + "unsupported element → unsupported (ERROR)";
  }

  static PgType element(PgType array) {
    // int2vector and oidvector are arrays whose display names no element: name it by the element's type.
    String display = array.display().endsWith("]") ? array.display().replaceAll("(\\[\\d*\\])+$", "")
        : VECTOR_ELEMENTS.getOrDefault(array.name(), array.name());
    return new PgType(array.schema(), array.name(), display, array.length(), array.precision(), array.scale(),
        false, 0, array.kind(), array.domainBase(), array.domainChecks(), array.domainNotNull(),
        array.enumLabels());
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    PgType element = element(type);
    TypeMapping elementMapping = TypeMapper.map(element, dialect);
    if (elementMapping.isUnsupported()) {
      return UnsupportedRule.unsupported(type, "its element type " + element.display() + " is unsupported.");
    }
    if (type.declaredDimensions() > 1) {
      return multiDimensional(type, "it is declared with " + type.declaredDimensions() + " dimensions",
          Map.of("pgType", type.display(), "declaredDimensions", type.declaredDimensions()), dialect)
          .withEvidence(Set.of());
    }
    return wrap(type, elementMapping, elementMapping.evidence(), dialect);
  }

  @Override
  public TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence, SpannerDialect dialect) {
    if (!first.target().isArray()) {
      return first; // unsupported or declared multi-dimensional: evidence cannot make it an ARRAY
    }
    PgType element = element(type);
    if (evidence != null && evidence.count(ColumnEvidence.ARRAY_MULTIDIMENSIONAL) > 0) {
      long n = evidence.count(ColumnEvidence.ARRAY_MULTIDIMENSIONAL);
      return multiDimensional(type, n + NumericRule.plural(n, " value has", " values have")
          + " more than one dimension" + ValueLimits.sampleText(evidence),
          Map.of("pgType", type.display(), ColumnEvidence.ARRAY_MULTIDIMENSIONAL, n,
              "rowsExamined", evidence.rowsExamined(), "sampled", evidence.sampled()), dialect);
    }
    TypeMapping elementFirst = TypeMapper.map(element, dialect);
    TypeMapping elementFinal = TypeMapper.refine(element, elementFirst.withEvidence(valueNeeds(elementFirst)),
        evidence, dialect);
    TypeMapping result = wrap(type, elementFinal, first.evidence(), dialect);
    if (evidence == null) {
      return result.withNote(MappingNote.notExamined(Severity.INFO, type, result.target(),
          "a multi-dimensional value (which a Spanner array cannot hold)", dialect));
    }
    long bounds = evidence.count(ColumnEvidence.ARRAY_LOWER_BOUND_NOT_1);
    if (bounds > 0) {
      result = result.withNote(new MappingNote(FindingCode.LOSSY_TYPE, Severity.WARNING, bounds
          + NumericRule.plural(bounds, " value has", " values have") + " a first subscript other than 1 (e.g. "
          + "'[0:2]={a,b,c}')" + ValueLimits.sampleText(evidence) + ": Spanner arrays have no bounds, so the "
          + "elements are kept in order but the subscripts are not.",
          Map.of(ColumnEvidence.ARRAY_LOWER_BOUND_NOT_1, bounds, "rowsExamined", evidence.rowsExamined(),
              "sampled", evidence.sampled())));
    }
    return result;
  }

  /** The element's needs an array column can answer element-wise (sizes are per cell, not per element). */
  private static Set<EvidenceNeed> valueNeeds(TypeMapping element) {
    EnumSet<EvidenceNeed> needs = EnumSet.noneOf(EvidenceNeed.class);
    needs.addAll(element.evidence());
    needs.remove(EvidenceNeed.TEXT_SIZE);
    return needs;
  }

  private static TypeMapping wrap(PgType type, TypeMapping element, Set<EvidenceNeed> needs,
      SpannerDialect dialect) {
    EnumSet<EvidenceNeed> all = EnumSet.of(EvidenceNeed.ARRAY_DIMENSIONS);
    all.addAll(needs);
    all.remove(EvidenceNeed.TEXT_SIZE);
    List<MappingNote> notes = new ArrayList<>();
    for (MappingNote note : element.notes()) {
      notes.add(forArray(note, element.target(), type, dialect));
    }
    if (!element.checks().isEmpty()) {
      List<String> checks = element.checks().stream().map(c -> c.in(dialect).orElseGet(c::googleSql)).toList();
      // Spanner CHECK constraints cannot hold subqueries, so "every element satisfies ..." is not expressible.
      notes.add(new MappingNote(FindingCode.CHECK_NOT_TRANSLATED, Severity.WARNING, "The element checks of "
          + type.display() + " (" + String.join("; ", checks) + ") cannot be expressed as a Spanner "
          + "CHECK on an array column; they are not enforced in Spanner.",
          Map.of("pgType", type.display(), "checks", checks)));
    }
    return new TypeMapping(SpannerType.arrayOf(element.target()), element.conversion(), notes, all, List.of());
  }

  /**
   * An element's note as the array column's: a note in LOSSY_TYPE's "{type} → {target}: ..." form names the column's
   * type and planned type ("oidvector → ARRAY<INT64>: ..."), not the element's ("oid → INT64"), so a finding never
   * states a type the plan does not hold. The element rules write that form through {@link MappingNote#change}.
   */
  private static MappingNote forArray(MappingNote note, SpannerType elementTarget, PgType array,
      SpannerDialect dialect) {
    PgType element = element(array);
    String elementPrefix = MappingNote.change(element, elementTarget, "", dialect);
    if (!note.message().startsWith(elementPrefix)) {
      return note;
    }
    String message = MappingNote.change(array, SpannerType.arrayOf(elementTarget),
        "each element: " + note.message().substring(elementPrefix.length()), dialect);
    return new MappingNote(note.code(), note.severity(), message, note.evidence());
  }

  private static TypeMapping multiDimensional(PgType type, String why, Map<String, Object> facts,
      SpannerDialect dialect) {
    return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.TEXT_OUTPUT, List.of(new MappingNote(
        FindingCode.LOSSY_TYPE, Severity.WARNING, MappingNote.change(type, SpannerType.STRING_MAX, why + ", and "
            + "Spanner arrays are one-dimensional and cannot nest. The plan keeps each value's PostgreSQL text (e.g. "
            + "'{{1,2},{3,4}}'): nothing is lost, but it is no longer an array in Spanner.", dialect), facts)),
        Set.of(EvidenceNeed.ARRAY_DIMENSIONS), List.of());
  }
}
