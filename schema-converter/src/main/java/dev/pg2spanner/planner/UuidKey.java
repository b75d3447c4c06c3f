package dev.pg2spanner.planner;

import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyConsequences;
import dev.pg2spanner.plan.KeyDefault;
import dev.pg2spanner.plan.KeyStrategy;

/**
 * The uuid strategy on a key that already holds UUIDs (time-ordered ones): every existing value is kept, new rows get
 * random version-4 UUIDs from the column's default. An integer key turned into UUIDs is {@link UuidRemapKey}.
 */
final class UuidKey {

  private UuidKey() {}

  /** @return what the plan does, for the finding */
  static String apply(KeyDrafts drafts, KeyDraft d, ColumnPlan lead, dev.pg2spanner.spanner.SpannerDialect dialect) {
    d.replaceColumn(new ColumnPlan(lead.source(), lead.sourceType(), lead.target(), lead.targetType(), lead.notNull(),
        lead.conversion(), null, lead.generatedExpression()), KeyDefault.UUID);
    d.strategy = KeyStrategy.uuid(lead.target() + " holds time-ordered UUIDs; existing values are kept and new rows "
        + "get random (v4) UUIDs", null);
    drafts.markDescendants(d, child -> KeyStrategy.keep("interleaved in " + child.base.interleave().parent()
        + ": its key starts with " + d.target() + "'s, whose new keys are random UUIDs"));
    return "The plan keeps every existing value of " + lead.target() + " and gives new rows random version-4 UUIDs "
        + "(DEFAULT " + KeyDefault.UUID.expression(dialect) + "). " + KeyConsequences.inFinding(KeyConsequences.uuidNewRows(lead.target()));
  }
}
