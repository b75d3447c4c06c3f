package dev.pg2spanner.finding;

import dev.pg2spanner.spanner.SpannerLimits;
import java.util.BitSet;
import java.util.Objects;

/**
 * Every kind of finding, as one catalogue (in the manner of Spanner Migration Tool's issue table): each code's
 * default severity, a one-line title saying what kind of thing it is, the remedy (the next step a DBA takes),
 * and, where several call sites word their messages alike, the message template. The reports render the title
 * and remedy once per code; a finding's message carries only its own facts (table, column, values, what the plan
 * did), never the generic remedy again.
 *
 * <p>Codes are part of report.json's stable contract: add new ones, never rename or remove one.
 */
public enum FindingCode {
  HOTSPOT_KEY(Severity.WARNING,
      "The primary key grows with every insert (first, or after a few-valued column): inserts land on one or a "
          + "few key ranges",
      "Check the key strategy the plan chose and what report.md says the application must change; to choose "
          + "another, plan again with --key-strategy SCHEMA.TABLE=KIND."),
  MONOTONIC_INDEX(Severity.WARNING,
      "A secondary index leads with a column that grows with every insert, so all its inserts land at its end",
      "Index {0} leads with {1}, which grows monotonically: {2} {3}",
      "Check what the plan did to the index (a shard column in front, or interleaving); where it is kept as it is "
          + "and the table is busy, lead it with a well-distributed column or delete it from plan.yaml."),
  NO_PRIMARY_KEY(Severity.WARNING,
      "The table has no primary key: the plan adds a random UUID key",
      "If the table has a natural key, make it the primary key in plan.yaml (or declare it in PostgreSQL and plan "
          + "again); otherwise nothing to do."),
  INTERLEAVE_CANDIDATE(Severity.INFO,
      "A child table is interleaved in its parent: its rows are stored beside their parent row",
      "Nothing to do. To keep the table top-level instead, set its interleave to null in plan.yaml and add back "
          + "the foreign key the interleave replaced."),
  NOT_INTERLEAVED(Severity.INFO,
      "A child table stays top-level: it cannot be interleaved in its parent",
      "{0} is not interleaved in {1}: {2}",
      "Nothing to do: it migrates with ordinary foreign keys. To interleave it, make its primary key start with "
          + "its parent's and plan again."),
  LOSSY_TYPE(Severity.WARNING,
      "Values change type or form in Spanner, or some may not fit the Spanner type",
      "{0} → {1}: {2}",
      "Check that the application accepts the Spanner type (report.md's column table). To keep the original type, "
          + "fix the values the message names in the source and plan again."),
  UNSUPPORTED_TYPE(Severity.ERROR,
      "A column type has no Spanner equivalent: the plan cannot migrate the column as it stands",
      "To migrate the column anyway, edit it in the plan (e.g. targetType STRING(MAX), varchar in a PostgreSQL-dialect plan, with "
          + "conversion TEXT_OUTPUT "
          + "keeps PostgreSQL's text form), or drop it from the plan."),
  NOT_MIGRATED(Severity.WARNING,
      "An object is not migrated (view, trigger, function, policy, index kind, ...)",
      "{0} is not migrated: {1}.",
      "Recreate what the application needs by hand after migrate; the message says how for its kind."),
  NAME_CHANGED(Severity.INFO,
      "A name changes in Spanner (to be legal or unique there, or as interleaving requires)",
      "{0} becomes {1}: the name {2}.",
      "Queries and application code must use the Spanner name; to choose another, edit the target in plan.yaml "
          + "(and every reference to it)."),
  UNUSED_INDEX(Severity.INFO,
      "An index was never scanned since statistics were reset",
      "Every index adds to Spanner's write cost: if nothing needs it, delete it from plan.yaml (it is migrated "
          + "unless you do)."),
  DEFAULT_NOT_TRANSLATED(Severity.WARNING,
      "A column default or generated expression is not created in Spanner",
      "Have the application supply the value on insert, or write an equivalent defaultExpression in "
          + "plan.yaml, in the plan's dialect (target.dialect). For a sequence, the table's key decision says where new values come from."),
  CHECK_NOT_TRANSLATED(Severity.WARNING,
      "A CHECK constraint is not created in Spanner",
      "Enforce the rule in the application, or write it in plan.yaml's checks as an expression in the "
          + "plan's dialect (target.dialect)."),
  FOREIGN_KEY_CHANGED(Severity.WARNING,
      "A foreign key is changed or not created (Spanner has ON DELETE CASCADE and NO ACTION only)",
      "Check that the application does not rely on what changed (the message says what); edit the foreign key in "
          + "plan.yaml to choose otherwise."),
  INDEX_CHANGED(Severity.WARNING,
      "An index is changed for Spanner (hash, partial, or unique over nullable columns)",
      "Check that the changed index still suits its queries and its write cost; delete it from plan.yaml if not."),
  KEY_LIMIT(Severity.ERROR,
      "A primary key or index key exceeds a Spanner limit (key columns or key size)",
      "For a key of more than " + SpannerLimits.GOOGLE_STANDARD_SQL.maxKeyColumns() + " columns, choose at most "
          + SpannerLimits.GOOGLE_STANDARD_SQL.maxKeyColumns() + " of them as the primary key in plan.yaml; for a key "
          + "longer than " + SpannerLimits.GOOGLE_STANDARD_SQL.maxKeyBytes() + " bytes, shorten the values in the "
          + "source or key a hash or prefix of them, as the message proposes."),
  LOW_WRITE_RATE(Severity.INFO,
      "A hotspot key is kept because the table is written rarely",
      "Nothing to do while writes stay rare; if they will grow, plan again with --key-strategy SCHEMA.TABLE=KIND."),
  KEY_STRATEGY_REQUESTED(Severity.INFO,
      "The key strategy was chosen with --key-strategy, overriding the policy",
      "Nothing to do; to return to the policy's choice, plan again without --key-strategy for this table."),
  KEY_REMAPPED(Severity.WARNING,
      "A column's integer values become UUIDs (the uuid key strategy)",
      "Update code that stores, sends or compares the old integer ids: each maps to "
          + "uuid_generate_v5(namespace, id::text), with the namespace in the evidence."),
  STATISTICS_MISSING(Severity.INFO,
      "The table has no statistics: row counts and hotspot evidence are unknown",
      "Run ANALYZE on the table in PostgreSQL and plan again for better advice."),
  PARTITIONED_TABLE(Severity.INFO,
      "A partitioned table migrates as one Spanner table",
      "Nothing to do: Spanner splits the table by key on its own. Queries that name a partition must use the "
          + "table."),
  INHERITANCE(Severity.WARNING,
      "The table has inheritance children: only its own rows migrate into it",
      "Queries of this table that expect its children's rows must also read the child tables, which migrate as "
          + "tables of their own."),
  ROWS_NOT_VISIBLE(Severity.ERROR,
      "The role that ran plan cannot read every row of the table",
      "Let the role that will migrate read every row, as the message says, and plan again as that role."),
  /**
   * A key or index column whose values are stored in ascending (or descending) order but that nothing generates: kept,
   * because a natural key bulk-loaded in order looks the same; warning while the insert rate is unknown, info when a
   * trusted statistics window shows it low.
   */
  ORDERED_KEY_KEPT(Severity.WARNING,
      "A key or index column is stored in order but nothing generates it: kept as it is",
      "Nothing to do if the values are a natural key loaded in order; if new rows take ever larger values on a "
          + "busy table, take the opt-in the message names."),
  /**
   * A column default is created, but its values differ from PostgreSQL's in a way the message names (the clock a
   * time default reads, the time zone a wall-clock column is filled in): warning when new rows' values would not
   * line up with the migrated rows', info otherwise.
   */
  DEFAULT_CHANGED(Severity.INFO,
      "A column default is created, but new rows may get values PostgreSQL would not have given",
      "Check that the application accepts the difference the message names; where it does not, have the "
          + "application supply the value."),
  /**
   * A table Spanner cannot hold as the plan would design it (more columns than a Spanner table allows, ...): left out of
   * the plan, so the rest of the database still gets one; migrate and verify leave it out on purpose.
   */
  TABLE_LEFT_OUT(Severity.ERROR,
      "A table Spanner cannot hold as it stands is left out of the plan",
      "Change the table in the source as the message says, then plan again to bring it back; until then migrate "
          + "and verify leave it out (its rows are not copied).");

  private final Severity defaultSeverity;
  private final String title;
  private final String template;
  private final String remedy;

  FindingCode(Severity defaultSeverity, String title, String remedy) {
    this(defaultSeverity, title, null, remedy);
  }

  FindingCode(Severity defaultSeverity, String title, String template, String remedy) {
    this.defaultSeverity = Objects.requireNonNull(defaultSeverity);
    this.title = Objects.requireNonNull(title);
    this.template = template;
    this.remedy = Objects.requireNonNull(remedy);
  }

  public Severity defaultSeverity() {
    return defaultSeverity;
  }

  /** What kind of thing a finding of this code is, in one line (no period). */
  public String title() {
    return title;
  }

  /** The next step a DBA takes for a finding of this code: written here once, never repeated in messages. */
  public String remedy() {
    return remedy;
  }

  /** True when several call sites word this code's messages alike, through {@link #message}. */
  public boolean hasTemplate() {
    return template != null;
  }

  /** The template, with placeholders {@code {0}}, {@code {1}}, ...; null when the code has none. */
  public String template() {
    return template;
  }

  /**
   * This code's message template with {@code {n}} replaced by {@code facts[n]} ({@link String#valueOf}). Unlike
   * {@link java.text.MessageFormat}, apostrophes and other braces are plain text.
   *
   * @throws IllegalStateException when the code has no template
   * @throws IllegalArgumentException when the number of facts is not the number of placeholders
   */
  public String message(Object... facts) {
    if (template == null) {
      throw new IllegalStateException(name() + " has no message template; write its message at the call site");
    }
    if (facts.length != placeholders()) {
      throw new IllegalArgumentException(name() + "'s template takes " + placeholders() + " facts, not "
          + facts.length + ": " + template);
    }
    StringBuilder out = new StringBuilder(template.length() + 64);
    int i = 0;
    while (i < template.length()) {
      int end = placeholderEnd(i);
      if (end < 0) {
        out.append(template.charAt(i++));
      } else {
        out.append(facts[Integer.parseInt(template.substring(i + 1, end))]);
        i = end + 1;
      }
    }
    return out.toString();
  }

  /** The number of distinct placeholders, which must be {0} up to {n − 1} (0 without a template). */
  int placeholders() {
    if (template == null) {
      return 0;
    }
    BitSet seen = new BitSet();
    for (int i = 0; i < template.length(); i++) {
      int end = placeholderEnd(i);
      if (end >= 0) {
        seen.set(Integer.parseInt(template.substring(i + 1, end)));
      }
    }
    if (seen.nextClearBit(0) != seen.cardinality()) {
      throw new IllegalStateException(name() + "'s template skips a placeholder: " + template);
    }
    return seen.cardinality();
  }

  /** The index of the closing brace when a placeholder {digits} starts at {@code i}, else −1. */
  private int placeholderEnd(int i) {
    if (template.charAt(i) != '{') {
      return -1;
    }
    int j = i + 1;
    while (j < template.length() && Character.isDigit(template.charAt(j))) {
      j++;
    }
    return j > i + 1 && j < template.length() && template.charAt(j) == '}' ? j : -1;
  }
}
