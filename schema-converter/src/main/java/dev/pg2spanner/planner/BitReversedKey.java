package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgSequence;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.naming.NamePlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyConsequences;
import dev.pg2spanner.plan.KeyDefault;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The bit-reversed strategy: a key fed by a PostgreSQL sequence keeps INT64 and every existing id; new ids come from
 * a Spanner {@code bit_reversed_positive} sequence whose skip range covers the migrated ids. Every column the
 * PostgreSQL sequence fed draws from the one Spanner sequence, so the applier keeps the sequences it creates.
 */
final class BitReversedKey {

  /** The plan's dialect: the findings name types as its DDL writes them. */
  private final SpannerDialect dialect;
  private final PgCatalog catalog;
  private final PlanInputs inputs;
  private final NamePlan names;
  private final KeyDrafts drafts;
  private final Map<String, SequenceDraft> sequences = new LinkedHashMap<>();
  /** For each PostgreSQL sequence, the (table, column) pairs of the plan it feeds. */
  private final Map<String, List<Map.Entry<KeyDraft, ColumnPlan>>> sequenceUsers = new HashMap<>();

  /** A Spanner sequence being built: the PostgreSQL sequence it replaces and who uses it. */
  private static final class SequenceDraft {
    final String source;
    final String target;
    long highestUsed = 0;
    final Set<String> usedBy = new TreeSet<>();

    SequenceDraft(String source, String target) {
      this.source = source;
      this.target = target;
    }
  }

  BitReversedKey(PgCatalog catalog, PlanInputs inputs, NamePlan names, KeyDrafts drafts, SpannerDialect dialect) {
    this.dialect = dialect;
    this.catalog = catalog;
    this.inputs = inputs;
    this.names = names;
    this.drafts = drafts;
    for (KeyDraft d : drafts.all()) {
      PgTable t = drafts.source(d);
      for (ColumnPlan c : d.columns) {
        PgColumn pc = c.source() == null ? null : t.column(c.source()).orElse(null);
        if (pc != null && pc.sequence() != null) {
          sequenceUsers.computeIfAbsent(pc.sequence(), k -> new ArrayList<>()).add(Map.entry(d, c));
        }
      }
    }
  }

  /** @return what the plan does, for the finding */
  String apply(KeyDraft d, ColumnPlan lead, PgColumn leadSource) {
    if (leadSource.sequence() == null) {
      return applyToApplicationIds(d, lead);
    }
    String pgSequence = leadSource.sequence();
    SequenceDraft sequence = sequenceFor(pgSequence);
    // Every column in the plan that PostgreSQL fed from this sequence draws from the one Spanner sequence.
    for (Map.Entry<KeyDraft, ColumnPlan> user : sequenceUsers.getOrDefault(pgSequence, List.of())) {
      KeyDraft other = user.getKey();
      PgTable t = drafts.source(other);
      ColumnPlan c = other.column(user.getValue().target()).orElseThrow();
      if (c.conversion() == ValueConversion.KEY_UUID) {
        continue; // remapped to UUIDs by a uuid request: the sequence no longer feeds it
      }
      other.replaceColumn(new ColumnPlan(c.source(), c.sourceType(), c.target(), c.targetType(), c.notNull(),
          c.conversion(), null, c.generatedExpression()), KeyDefault.nextValue(sequence.target));
      sequence.usedBy.add(other.target() + "." + c.target());
      PlanInputs.KeyRange range = inputs.keyRanges().get(t.qualifiedName());
      if (range != null && other.primaryKey.get(0).column().equals(c.target())) {
        sequence.highestUsed = Math.max(sequence.highestUsed, range.max());
      }
      other.findings.removeIf(f -> f.code() == FindingCode.DEFAULT_NOT_TRANSLATED
          && c.source().equals(f.column()));
    }
    d.strategy = KeyStrategy.bitReversed(lead.target() + " is fed by sequence " + pgSequence
        + "; existing ids are kept and new ones come from bit-reversed sequence " + sequence.target, sequence.target);
    drafts.markDescendants(d, child -> KeyStrategy.keep("interleaved in " + child.base.interleave().parent()
        + ": its key starts with " + d.target() + "'s, whose new ids are bit-reversed"));
    return "The plan keeps " + lead.target() + " as " + SpannerType.INT64.ddl(dialect) + " with every existing value, "
        + "and new rows take their ids from "
        + "Spanner sequence " + sequence.target + " (bit_reversed_positive), whose values spread evenly over the key "
        + "space; its skip range covers every migrated id, so no new id can collide"
        + (sequence.usedBy.size() > 1 ? " (the sequence stays shared by " + String.join(", ", sequence.usedBy) + ")"
            : "") + ". Child tables keep their keys. "
        + KeyConsequences.inFinding(KeyConsequences.bitReversed(lead.target()));
  }

  /**
   * A key of 64-bit ids the application makes itself (nothing in PostgreSQL feeds it): a new Spanner sequence, skipping
   * every migrated id, becomes the column's default, and the application stops making ids or bit-reverses them.
   */
  private String applyToApplicationIds(KeyDraft d, ColumnPlan lead) {
    PgTable table = drafts.source(d);
    String name = names.newObject(table, d.base.targetName() + "_" + lead.target() + "_seq");
    String target = d.base.targetSchema() == null ? name : d.base.targetSchema() + "." + name;
    SequenceDraft sequence = new SequenceDraft(null, target);
    sequences.put("application ids of " + d.target() + "." + lead.target(), sequence);
    sequence.highestUsed = highestId(table, lead);
    d.replaceColumn(new ColumnPlan(lead.source(), lead.sourceType(), lead.target(), lead.targetType(), lead.notNull(),
        lead.conversion(), null, lead.generatedExpression()), KeyDefault.nextValue(target));
    sequence.usedBy.add(d.target() + "." + lead.target());
    d.strategy = KeyStrategy.bitReversed(lead.target() + " holds ids the application makes with their time in the "
        + "top bits; existing ids are kept and new ones come from bit-reversed sequence " + target
        + " (or are bit-reversed by the application)", target);
    drafts.markDescendants(d, child -> KeyStrategy.keep("interleaved in " + child.base.interleave().parent()
        + ": its key starts with " + d.target() + "'s, whose new ids are bit-reversed"));
    return "The plan keeps " + lead.target() + " as " + SpannerType.INT64.ddl(dialect) + " with every existing value "
        + "and gives it a default from a new "
        + "Spanner sequence, " + target + " (bit_reversed_positive), whose values spread evenly over the key space; "
        + "its skip range covers every migrated id, so no id it hands out can collide. Child tables keep their keys. "
        + KeyConsequences.inFinding(KeyConsequences.bitReversedOwnIds(lead.target()));
  }

  /** The largest id of {@code column} seen: the key's range where plan read it, else the sampled values. */
  private long highestId(PgTable table, ColumnPlan column) {
    PlanInputs.KeyRange range = inputs.keyRanges().get(table.qualifiedName());
    long highest = range == null ? 0 : range.max();
    dev.pg2spanner.hotspot.KeySample sample = inputs.samples().get(table.qualifiedName());
    if (sample != null) {
      List<Object> seen = new ArrayList<>(sample.values(column.source()));
      sample.tail(column.source()).ifPresent(t -> t.entries(column.source()).forEach(e -> seen.add(e.value())));
      for (Object v : seen) {
        if (v instanceof Long id) {
          highest = Math.max(highest, id);
        }
      }
    }
    return highest;
  }

  private SequenceDraft sequenceFor(String pgSequence) {
    return sequences.computeIfAbsent(pgSequence, name -> {
      int dot = name.indexOf('.');
      PgSequence seq = catalog.sequence(name.substring(0, dot), name.substring(dot + 1)).orElse(null);
      SequenceDraft draft = new SequenceDraft(name, seq == null ? name.substring(dot + 1) : names.sequence(seq));
      if (seq != null && seq.lastValue() != null) {
        draft.highestUsed = Math.max(draft.highestUsed, seq.lastValue());
      }
      return draft;
    });
  }

  /** The Spanner sequences the applied strategies created, in the order they were first used. */
  List<SequencePlan> sequences() {
    return sequences.values().stream()
        .map(s -> new SequencePlan(s.source, s.target, 1, skipRangeMax(s.highestUsed), List.copyOf(s.usedBy)))
        .toList();
  }

  /**
   * New ids must never collide with migrated ones, including ids the source hands out between plan and cut-over:
   * the skip range covers twice the highest id seen, and at least a million more.
   */
  static long skipRangeMax(long highestUsed) {
    long headroom = Math.max(1_000_000L, highestUsed);
    return highestUsed > Long.MAX_VALUE - headroom ? Long.MAX_VALUE : Math.max(1, highestUsed + headroom);
  }
}
