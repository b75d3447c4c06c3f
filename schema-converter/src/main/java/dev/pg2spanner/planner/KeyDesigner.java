package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.hotspot.Monotonicity;
import dev.pg2spanner.hotspot.MonotonicityDetector;
import dev.pg2spanner.hotspot.WriteRate;
import dev.pg2spanner.hotspot.WriteSkew;
import dev.pg2spanner.naming.NamePlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.KeyUuid;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses each table's key strategy from evidence and applies it so the schema stays valid: a strategy on a parent
 * reaches every interleaved descendant and every foreign key that references a changed key; monotonic secondary
 * indexes are interleaved or shard-prefixed.
 *
 * <p>The policy, in order, for a top-level table whose key leads with a monotonic column:
 * <ol>
 *   <li>keep it when the table's insert rate, over a statistics window of at least a day, is below the low-write
 *       threshold (Spanner's "accept the hotspot for low-write tables");</li>
 *   <li>swap, when another key column is well distributed: it leads, the monotonic column follows (DESC for time);</li>
 *   <li>bit-reversed, when the column is an integer fed by a sequence: every existing id is kept and new ids come from
 *       a {@code bit_reversed_positive} sequence whose skip range covers the migrated ids;</li>
 *   <li>uuid, when the key holds time-ordered UUIDs: values are kept, new rows get random ones;</li>
 *   <li>hash-shard otherwise: a stored shard column, derived from the key by FARM_FINGERPRINT, leads the key.</li>
 * </ol>
 * A strategy requested for a table ({@code plan --key-strategy}) replaces the policy for it. That is the only way to
 * get {@code uuid} for an integer key: the key's values become UUIDs derived from the old ids ({@link KeyUuid}), every
 * column that holds a copy of them is remapped the same way, and the old id is kept in a uniquely indexed column.
 */
final class KeyDesigner {

  /** Sampled values fewer than this give no write-skew figure. */
  private static final int MIN_SKEW_SAMPLE = 40;
  record Result(List<TablePlan> tables, List<SequencePlan> sequences) {}

  private final PgCatalog catalog;
  private final PlanInputs inputs;
  private final NamePlan names;
  private final PlannerOptions options;
  private KeyDrafts drafts;
  private BitReversedKey bitReversed;
  private UuidRemapKey uuidRemap;
  private KeyDesigner(PgCatalog catalog, PlanInputs inputs, NamePlan names, PlannerOptions options) {
    this.catalog = catalog;
    this.inputs = inputs;
    this.names = names;
    this.options = options;
  }

  /** @param tables base table plans, parents before interleaved children */
  static Result design(PgCatalog catalog, List<TablePlan> tables, PlanInputs inputs, NamePlan names,
      PlannerOptions options) {
    KeyDesigner designer = new KeyDesigner(catalog, inputs, names, options);
    designer.drafts = new KeyDrafts(catalog, tables);
    designer.checkRequests();
    designer.bitReversed = new BitReversedKey(catalog, inputs, names, designer.drafts);
    designer.uuidRemap = new UuidRemapKey(names, designer.drafts);
    // Tables with a uuid request first: their remap changes columns of other tables, whose own design must see it
    // (whatever the tables' names, so the outcome does not depend on their order).
    List<KeyDraft> roots = new ArrayList<>();
    for (KeyDraft d : designer.drafts.all()) {
      if (d.base.interleave() == null && d.strategy.kind() == KeyStrategy.Kind.KEEP) {
        roots.add(d);
      }
    }
    roots.sort(java.util.Comparator.comparing((KeyDraft d) ->
        options.keyStrategies().get(d.base.source()) != KeyStrategy.Kind.UUID));
    for (KeyDraft d : roots) {
      designer.designRoot(d);
    }
    IndexRedesign.redesign(catalog, inputs, options, designer.drafts);
    ForeignKeyRepair.repair(designer.drafts);
    return new Result(designer.drafts.all().stream().map(KeyDraft::toPlan).toList(),
        designer.bitReversed.sequences());
  }

  /** Every requested strategy names a top-level table with a primary key. */
  private void checkRequests() {
    Map<String, KeyDraft> bySource = new java.util.TreeMap<>();
    drafts.all().forEach(d -> bySource.put(d.base.source(), d));
    for (Map.Entry<String, KeyStrategy.Kind> request : new java.util.TreeMap<>(options.keyStrategies()).entrySet()) {
      KeyDraft d = bySource.get(request.getKey());
      if (d == null) {
        List<String> near = bySource.keySet().stream()
            .filter(n -> n.endsWith("." + request.getKey()) || n.substring(n.indexOf('.') + 1)
                .equalsIgnoreCase(request.getKey().substring(request.getKey().indexOf('.') + 1)))
            .toList();
        throw new KeyStrategyRequestException("--key-strategy " + request.getKey() + "=" + request.getValue().json()
            + ": no table " + request.getKey() + " in this plan" + (near.isEmpty() ? "" : " (did you mean "
                + String.join(" or ", near) + "?)") + "; name it as schema.table, as the plan's source field does");
      }
      if (d.base.interleave() != null) {
        throw new KeyStrategyRequestException(request.getKey(), request.getValue(), "the table is interleaved in "
            + d.base.interleave().parent() + " and its key follows the parent's strategy; request it for the root "
            + "of the hierarchy instead");
      }
      if (d.strategy.kind() == KeyStrategy.Kind.SYNTHETIC) {
        throw new KeyStrategyRequestException(request.getKey(), request.getValue(), "the table has no primary key, "
            + "so the plan gives it a random synthetic key already");
      }
    }
  }

  private void designRoot(KeyDraft d) {
    PgTable table = drafts.source(d);
    KeyStrategy.Kind requested = options.keyStrategies().get(table.qualifiedName());
    ColumnPlan lead = d.column(d.primaryKey.get(0).column()).orElseThrow();
    PgColumn leadSource = lead.source() == null ? null : table.column(lead.source()).orElse(null);
    if (leadSource == null) {
      return;
    }
    if (lead.conversion() == ValueConversion.KEY_UUID) {
      if (requested != null && requested != KeyStrategy.Kind.KEEP) {
        throw new KeyStrategyRequestException(table.qualifiedName(), requested, "the key leads with "
            + lead.target() + ", which holds copies of another table's key that a uuid request already remaps to "
            + "UUIDs (spread evenly); drop this request");
      }
      // A referencing column remapped by another table's uuid strategy: its values are now random UUIDs.
      d.strategy = KeyStrategy.keep("the key leads with " + lead.target() + ", whose values become UUIDs of the key it "
          + "references, spread evenly");
      return;
    }
    KeySample sample = inputs.samples().getOrDefault(table.qualifiedName(), KeySample.empty(table.qualifiedName()));
    Optional<Monotonicity> found = MonotonicityDetector.detect(catalog, table, leadSource, sample);
    if (found.isEmpty() && (requested == null || requested == KeyStrategy.Kind.KEEP)) {
      d.strategy = KeyStrategy.keep("the key leads with " + lead.target() + ", which shows no sign of growing "
          + "monotonically (no sequence or time default" + correlationNote(leadSource) + ")"
          + (requested == null ? "" : "; keep was also requested with --key-strategy"));
      return;
    }
    Monotonicity mono = found.orElse(null);
    WriteRate rate = WriteRate.of(table.stats(), options.generatedAt());
    List<Object> sourceKeys = sample.values(leadSource.name());
    Map<String, Object> evidence = new LinkedHashMap<>();
    if (mono != null) {
      evidence.putAll(mono.evidence());
      evidence.put("cause", mono.cause().name());
    }
    evidence.put("writeRate", rate.describe());

    String plan;
    List<Object> plannedKeys;
    boolean orderedKept = false;
    boolean hotspotRemains = false;
    if (requested != null) {
      evidence.put("requested", requested.json());
      if (requested == KeyStrategy.Kind.KEEP) {
        d.strategy = KeyStrategy.keep("requested with --key-strategy: the hotspot is accepted");
        plan = "The plan keeps the key because --key-strategy asked for it: every insert still goes to the end of "
            + "the key range.";
        plannedKeys = sourceKeys;
      } else {
        plan = applyRequested(d, table, lead, leadSource, mono, sample, requested);
        plannedKeys = plannedKeys(d, sample, leadSource, sourceKeys);
        d.strategy = d.strategy.withReason("requested with --key-strategy: " + d.strategy.reason());
      }
    } else if (mono.orderOnly() && !KeyPolicy.provenBusy(rate, options.lowWriteInsertsPerSecond())) {
      orderedKept = true;
      String optIn = swapCandidate(d, table, sample, leadSource).isPresent() ? KeyStrategy.Kind.SWAP.json()
          : KeyStrategy.Kind.HASH_SHARD.json();
      evidence.put("optIn", optIn);
      d.strategy = KeyStrategy.keep("values arrive in order but nothing generates them (no sequence, identity or time "
          + "default): kept without a trusted insert rate of at least " + KeyPolicy.threshold(options.lowWriteInsertsPerSecond()) + " inserts/s (" + rate.describe()
          + ")");
      plan = "Nothing generates these values, and a natural or externally assigned key that was loaded in order "
          + "(product codes, device ids from another system, invoice numbers) looks exactly like this, so the plan "
          + "keeps the key: changing a key is the most invasive change pg2spanner makes to an application. Insert "
          + "rate: " + rate.describe() + "; order alone changes a key only at " + KeyPolicy.threshold(options.lowWriteInsertsPerSecond()) + " inserts/s or more, "
          + "measured over at least " + WriteRate.MIN_TRUSTED_WINDOW.toHours() + " hours of statistics. If new rows do take ever "
          + "larger values, every insert goes to the last key range: opt in with --key-strategy "
          + table.qualifiedName() + "=" + optIn + ".";
      plannedKeys = sourceKeys;
    } else if (KeyPolicy.lowWrite(rate, options.lowWriteInsertsPerSecond())) {
      d.strategy = KeyStrategy.keep("low write rate: " + rate.describe() + ", below "
          + options.lowWriteInsertsPerSecond() + " inserts/s; the hotspot is accepted");
      plan = "The plan keeps the key because the table is written rarely (" + rate.describe() + "): a single split "
          + "absorbs that easily. Change keyStrategy in plan.yaml if the write load will grow.";
      plannedKeys = sourceKeys;
      d.findings.add(Finding.of(FindingCode.LOW_WRITE_RATE, table.qualifiedName(), leadSource.name(), null,
          "Key of " + table.qualifiedName() + " kept despite the hotspot: " + rate.describe() + ".",
          Map.of("insertsPerSecond", rate.insertsPerSecond(), "threshold", options.lowWriteInsertsPerSecond())));
    } else {
      Optional<String> swapLead = swapCandidate(d, table, sample, leadSource);
      if (swapLead.isPresent()) {
        plan = SwapKey.apply(drafts, d, lead, mono.cause() == Monotonicity.Cause.TEMPORAL, swapLead.get());
      } else if (mono.cause() == Monotonicity.Cause.SEQUENCE && lead.targetType().equals("INT64")
          && leadSource.sequence() != null) {
        plan = bitReversed.apply(d, lead, leadSource);
      } else if (mono.cause() == Monotonicity.Cause.TIME_ORDERED_UUID && lead.targetType().startsWith("STRING")) {
        plan = UuidKey.apply(drafts, d, lead);
      } else if (drafts.fullestKey(d) != null) {
        hotspotRemains = true;
        KeyDraft full = drafts.fullestKey(d);
        d.strategy = KeyStrategy.keep("no room for a shard column: " + full.target() + " already has "
            + KeyDrafts.LIMITS.maxKeyColumns() + " key columns, Spanner's limit; the hotspot remains");
        plan = "The plan cannot add a shard column in front of the key: " + full.target() + (full == d ? "" : ", "
            + "interleaved under it,") + " already has " + KeyDrafts.LIMITS.maxKeyColumns() + " key columns, Spanner's limit, "
            + "and the shard column would lead every key in the hierarchy. The key is kept and every insert still goes "
            + "to the end of the key range: shorten " + full.target() + "'s key in plan.yaml (or make it top-level) "
            + "and plan again with --key-strategy " + table.qualifiedName() + "=hash-shard.";
      } else {
        plan = HashShardKey.apply(drafts, d, options);
      }
      plannedKeys = plannedKeys(d, sample, leadSource, sourceKeys);
    }

    String skew = "";
    if (sourceKeys.size() >= MIN_SKEW_SAMPLE) {
      int ranges = WriteSkew.effectiveRanges(sourceKeys.size(), WriteSkew.rangesFor(options.nodes()));
      double before = concentration(sourceKeys, ranges);
      double after = concentration(plannedKeys, ranges);
      evidence.put("writeSkew", Map.of("ranges", ranges, "sampledKeys", sourceKeys.size(),
          "sourceKey", round(before), "plannedKey", round(after)));
      skew = String.format(Locale.ROOT, " Predicted write skew (share of concurrent inserts that land on one of %d "
          + "key ranges, from %d sampled keys; an even spread is %s): %s under the current key, %s under the planned "
          + "key.", ranges, sourceKeys.size(), percent(1.0 / ranges), percent(before), percent(after));
      d.strategy = d.strategy.withReason(d.strategy.reason() + String.format(Locale.ROOT,
          " (write skew %s → %s)", percent(before), percent(after)));
    }
    if (requested != null) {
      d.findings.add(Finding.of(FindingCode.KEY_STRATEGY_REQUESTED, table.qualifiedName(), leadSource.name(), null,
          "Key strategy " + requested.json() + " for " + table.qualifiedName() + " was requested with --key-strategy"
              + (mono == null ? " (the key showed no sign of monotonic growth). " + plan + skew
                  : "; it replaces the policy's choice. What it does is in the HOTSPOT_KEY finding."),
          evidence));
    }
    if (orderedKept) {
      Severity severity = rate.trusted() ? Severity.INFO : Severity.WARNING;
      d.findings.add(new Finding(FindingCode.ORDERED_KEY_KEPT, severity, table.qualifiedName(), leadSource.name(), null,
          "The primary key of " + table.qualifiedName() + " leads with " + leadSource.name() + ", kept. "
              + mono.explanation() + " " + plan + skew, evidence));
    } else if (mono != null) {
      Severity severity = d.strategy.kind() == KeyStrategy.Kind.KEEP && !hotspotRemains ? Severity.INFO
          : Severity.WARNING;
      d.findings.add(new Finding(FindingCode.HOTSPOT_KEY, severity, table.qualifiedName(), leadSource.name(), null,
          "The primary key of " + table.qualifiedName() + " leads with " + leadSource.name() + ". "
              + mono.explanation() + " Spanner stores rows in key order and splits tables into key ranges served by "
              + "different servers, so with this key every insert goes to the last range and one server takes all "
              + "the writes, however many nodes the instance has. " + plan + skew,
          evidence));
    }
  }

  /** Applies a strategy asked for with --key-strategy, or explains why it cannot apply to this table. */
  private String applyRequested(KeyDraft d, PgTable table, ColumnPlan lead, PgColumn leadSource, Monotonicity mono,
      KeySample sample, KeyStrategy.Kind requested) {
    String name = table.qualifiedName();
    switch (requested) {
      case SWAP -> {
        Optional<String> swapLead = swapCandidate(d, table, sample, leadSource);
        if (swapLead.isEmpty()) {
          throw new KeyStrategyRequestException(name, requested, "no other key column is well distributed in the "
              + "sampled rows (a swap needs a composite key with another column that is not monotonic and has at "
              + "least " + WriteSkew.rangesFor(options.nodes()) + " distinct values); choose hash-shard");
        }
        return SwapKey.apply(drafts, d, lead, mono != null && mono.cause() == Monotonicity.Cause.TEMPORAL, swapLead.get());
      }
      case BIT_REVERSED -> {
        if (!lead.targetType().equals("INT64") || leadSource.sequence() == null) {
          throw new KeyStrategyRequestException(name, requested, "bit-reversed keeps the ids of a key fed by a "
              + "sequence, but " + leadSource.name() + " is " + leadSource.type().display()
              + (leadSource.sequence() == null ? " with no sequence default" : "") + "; choose hash-shard (or uuid, "
              + "for a single-column integer key)");
        }
        return bitReversed.apply(d, lead, leadSource);
      }
      case UUID -> {
        if (lead.conversion() == ValueConversion.INT64) {
          if (d.primaryKey.size() > 1) {
            throw new KeyStrategyRequestException(name, requested, "uuid replaces a single-column integer key by "
                + "UUIDs, but the key is (" + String.join(", ", d.primaryKey.stream().map(KeyPart::column).toList())
                + "), where " + lead.target() + " alone does not identify a row; choose hash-shard");
          }
          return uuidRemap.apply(d, lead, table);
        }
        if (lead.conversion() == ValueConversion.UUID_TEXT) {
          String plan = UuidKey.apply(drafts, d, lead);
          if (mono == null || mono.cause() != Monotonicity.Cause.TIME_ORDERED_UUID) {
            d.strategy = d.strategy.withReason("existing values of " + lead.target() + " are kept and new rows get "
                + "random (v4) UUIDs");
          }
          return plan;
        }
        throw new KeyStrategyRequestException(name, requested, "uuid needs a key that leads with an integer or uuid "
            + "column, but " + leadSource.name() + " is " + leadSource.type().display() + "; choose hash-shard");
      }
      case HASH_SHARD -> {
        KeyDraft full = drafts.fullestKey(d);
        if (full != null) {
          throw new KeyStrategyRequestException(name, requested, "the shard column would lead the key of "
              + full.target() + ", which already has " + KeyDrafts.LIMITS.maxKeyColumns() + " key columns (Spanner's limit); "
              + "shorten that key in plan.yaml first, or choose " + (d.primaryKey.size() > 1 ? "swap or " : "")
              + "keep");
        }
        String plan = HashShardKey.apply(drafts, d, options);
        if (mono == null) {
          d.strategy = d.strategy.withReason("a stored shard column derived from the key leads it, spreading "
              + "inserts over " + d.strategy.shards() + " shards");
        }
        return plan;
      }
      default -> throw new IllegalStateException("not a requestable strategy: " + requested);
    }
  }

  /** The sampled keys as they would be under the strategy just applied, for the write-skew model. */
  private List<Object> plannedKeys(KeyDraft d, KeySample sample, PgColumn leadSource, List<Object> sourceKeys) {
    return switch (d.strategy.kind()) {
      case SWAP -> pairs(sample, d.column(d.primaryKey.get(0).column()).orElseThrow().source(), leadSource.name());
      case BIT_REVERSED -> sourceKeys.stream().map(v -> v instanceof Long l ? (Object) WriteSkew.bitReversedPositive(l)
          : v).toList();
      case UUID -> {
        ColumnPlan key = d.column(d.primaryKey.get(0).column()).orElseThrow();
        if (key.conversion() == ValueConversion.KEY_UUID) {
          java.util.UUID namespace = java.util.UUID.fromString(key.uuidNamespace());
          yield sourceKeys.stream().map(v -> v instanceof Long l ? (Object) KeyUuid.of(namespace, l).toString() : v)
              .toList();
        }
        yield sourceKeys.stream().map(v -> (Object) WriteSkew.mix(v)).toList();
      }
      case HASH_SHARD -> sourceKeys.stream().map(v -> (Object) WriteSkew.Pair.of(Math.floorMod(WriteSkew.mix(v),
          d.strategy.shards()), v)).toList();
      case KEEP, SYNTHETIC -> sourceKeys;
    };
  }

  /** A well-distributed other key column, or empty. */
  private Optional<String> swapCandidate(KeyDraft d, PgTable table, KeySample sample, PgColumn monotonic) {
    if (d.primaryKey.size() < 2) {
      return Optional.empty();
    }
    int wanted = WriteSkew.rangesFor(options.nodes());
    for (KeyPart part : d.primaryKey.subList(1, d.primaryKey.size())) {
      ColumnPlan c = d.column(part.column()).orElseThrow();
      PgColumn pc = c.source() == null ? null : table.column(c.source()).orElse(null);
      if (pc == null || pc.name().equals(monotonic.name())
          || MonotonicityDetector.detect(catalog, table, pc, sample).isPresent()) {
        continue;
      }
      long distinct = sample.values(pc.name()).stream().distinct().count();
      if (distinct >= wanted) {
        return Optional.of(c.target());
      }
    }
    return Optional.empty();
  }

  private static List<Object> pairs(KeySample sample, String first, String second) {
    int a = sample.columns().indexOf(first);
    int b = sample.columns().indexOf(second);
    List<Object> keys = new ArrayList<>();
    for (List<Object> row : sample.rows()) {
      if (row.get(a) != null && row.get(b) != null) {
        keys.add(WriteSkew.Pair.of(row.get(a), row.get(b)));
      }
    }
    return keys;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static double concentration(List<Object> keys, int ranges) {
    List<Comparable> comparable = new ArrayList<>();
    for (Object k : keys) {
      if (k instanceof Comparable c && (comparable.isEmpty() || comparable.get(0).getClass() == c.getClass())) {
        comparable.add(c);
      }
    }
    return WriteSkew.concentration((List) comparable, ranges);
  }

  private static String correlationNote(PgColumn c) {
    return c.stats() == null || c.stats().correlation() == null ? ""
        : String.format(Locale.ROOT, "; pg_stats.correlation %.2f", c.stats().correlation());
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  private static String percent(double v) {
    return v >= 0.995 ? "100%" : String.format(Locale.ROOT, "%.1f%%", v * 100);
  }
}
