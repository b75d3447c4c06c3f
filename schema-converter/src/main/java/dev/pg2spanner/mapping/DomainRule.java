package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A domain maps as its base type, plus its CHECKs translated where simple (else a CHECK_NOT_TRANSLATED note
 * naming the check) and, for a NOT NULL domain, a note that the column is NOT NULL in Spanner (evidence key
 * {@code notNull}: the planner applies it).
 */
record DomainRule() implements Rule {

  /** The evidence key marking the note that asks the planner to make the column NOT NULL. */
  static final String NOT_NULL = "notNull";

  @Override
  public String describe() {
    return "as the base type's rule, plus the domain's CHECKs translated where simple ({col} for VALUE), else "
        + "CHECK_NOT_TRANSLATED [WARNING]; a NOT NULL domain makes the column NOT NULL [INFO]";
  }

  @Override
  public TypeMapping map(PgType type) {
    return decorate(type, TypeMapper.map(type.domainBase()));
  }

  @Override
  public TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence) {
    PgType base = type.domainBase();
    return decorate(type, TypeMapper.refine(base, TypeMapper.map(base), evidence));
  }

  private static TypeMapping decorate(PgType domain, TypeMapping base) {
    List<String> checks = new ArrayList<>();
    List<MappingNote> notes = new ArrayList<>();
    for (String check : domain.domainChecks()) {
      // A base that fell back to text (or is an array) cannot take the check's comparisons unchanged, and text that
      // PostgreSQL compares differently from Spanner cannot either: char(n) ignores its blank padding (kept in
      // Spanner), citext ignores case.
      String baseName = domain.domainBase() == null ? "" : domain.domainBase().name();
      boolean comparesDifferently = baseName.equals("bpchar") || baseName.equals("citext");
      Optional<String> translated = base.target().isArray() || base.isUnsupported() || comparesDifferently
          ? Optional.empty() : DomainCheckTranslator.translate(check, base.conversion());
      if (translated.isPresent()) {
        checks.add(translated.get());
      } else {
        notes.add(new MappingNote(FindingCode.CHECK_NOT_TRANSLATED, Severity.WARNING, "The CHECK of domain "
            + domain.display() + ", " + check + ", cannot be expressed as a Spanner CHECK on a "
            + base.target().ddl() + " column; it is not enforced in Spanner (enforce it in the application).",
            Map.of("domain", domain.schema() + "." + domain.name(), "check", check)));
      }
    }
    if (domain.domainNotNull()) {
      notes.add(new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO, "Domain " + domain.display()
          + " is NOT NULL: the Spanner column is declared NOT NULL.",
          Map.of("domain", domain.schema() + "." + domain.name(), NOT_NULL, true)));
    }
    return base.withChecks(checks).withNotes(notes);
  }
}
