package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.expression.ColumnRef;
import dev.pg2spanner.expression.ExpressionTranslator;
import dev.pg2spanner.expression.SpannerExpression;
import dev.pg2spanner.expression.Translation;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.spanner.SpannerDialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A domain maps as its base type, plus its CHECKs translated by {@link ExpressionTranslator#domainCheck} (else a
 * CHECK_NOT_TRANSLATED note naming the check) and, for a NOT NULL domain, a note that the column is NOT NULL in
 * Spanner (evidence key {@code notNull}: the planner applies it).
 */
record DomainRule() implements Rule {

  /** The evidence key marking the note that asks the planner to make the column NOT NULL. */
  static final String NOT_NULL = "notNull";

  @Override
  public String describe() {
    return "as the base type's rule, plus the domain's CHECKs translated as table CHECKs are ({col} for VALUE), "
        + "else CHECK_NOT_TRANSLATED [WARNING]; a NOT NULL domain makes the column NOT NULL [INFO]";
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    return decorate(type, TypeMapper.map(type.domainBase(), dialect), dialect);
  }

  @Override
  public TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence, SpannerDialect dialect) {
    PgType base = type.domainBase();
    return decorate(type, TypeMapper.refine(base, TypeMapper.map(base, dialect), evidence, dialect), dialect);
  }

  private static TypeMapping decorate(PgType domain, TypeMapping base, SpannerDialect dialect) {
    List<SpannerExpression> checks = new ArrayList<>();
    List<MappingNote> notes = new ArrayList<>();
    // VALUE is the column: the translator knows what PostgreSQL compares (the domain's base type; char(n) ignores
    // its padding, citext case) and what Spanner holds (the mapped type and conversion), and refuses what they
    // evaluate differently.
    ColumnRef value = ColumnRef.placeholder(domain.domainBase(), base.target(), base.conversion());
    for (String check : domain.domainChecks()) {
      // An unsupported or array base cannot take the domain's checks at all.
      boolean translated = false;
      if (!base.target().isArray() && !base.isUnsupported()) {
        Translation t = ExpressionTranslator.domainCheck(dialect, check, value);
        translated = t.translated() && t.value().usesPlaceholder();
        if (translated) {
          checks.add(t.value());
        }
      }
      if (!translated) {
        notes.add(new MappingNote(FindingCode.CHECK_NOT_TRANSLATED, Severity.WARNING, "The CHECK of domain "
            + domain.display() + ", " + check + ", cannot be expressed as a Spanner CHECK on a "
            + base.target().ddl(dialect) + " column; it is not enforced in Spanner.",
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
