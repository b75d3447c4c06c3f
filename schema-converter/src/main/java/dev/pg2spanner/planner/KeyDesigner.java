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
import dev.pg2spanner.plan.KeyExpression;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.KeyUuid;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Designs every table's key: for each top-level table it gathers the evidence, asks the pure {@link KeyPolicy} for a
 * decision and hands it to the strategy's applier ({@link KeepKey}, {@link SwapKey}, {@link BitReversedKey},
 * {@link UuidKey}, {@link UuidRemapKey}, {@link HashShardKey}), which reaches every interleaved descendant; then it
 * writes the decision's finding with the predicted write skew. Afterwards {@link IndexRedesign} handles monotonic
 * secondary indexes and {@link ForeignKeyRepair} the foreign keys that reference a changed key.
 *
 * <p>Tables with a uuid request go first: remapping an integer key to UUIDs ({@link KeyUuid}) changes columns of
 * other tables, whose own design must see it.
 */
final class KeyDesigner {

  /**
   * @param keyExpressions every shard column and key default the design wrote, by table target then column target:
   *     what {@link PostgresDialectPlan} prints in that dialect (typed, so nothing reads the expression text back)
   */
  record Result(List<TablePlan> tables, List<SequencePlan> sequences,
      Map<String, Map<String, KeyExpression>> keyExpressions) {}

  private final PgCatalog catalog;
  private final PlanInputs inputs;
  private final PlannerOptions options;
  private final KeyDrafts drafts;
  private final BitReversedKey bitReversed;
  private final UuidRemapKey uuidRemap;

  private KeyDesigner(PgCatalog catalog, List<TablePlan> tables, PlanInputs inputs, NamePlan names,
      PlannerOptions options, Map<String, TableExpressions> expressions) {
    this.catalog = catalog;
    this.inputs = inputs;
    this.options = options;
    this.drafts = new KeyDrafts(catalog, tables);
    this.bitReversed = new BitReversedKey(catalog, inputs, names, drafts, options.dialect());
    this.uuidRemap = new UuidRemapKey(names, drafts, expressions, options.dialect());
  }

  /**
   * @param tables base table plans, parents before interleaved children
   * @param expressions the typed expressions the planner wrote, by source table ("schema.name")
   */
  static Result design(PgCatalog catalog, List<TablePlan> tables, PlanInputs inputs, NamePlan names,
      PlannerOptions options, Map<String, TableExpressions> expressions) {
    KeyDesigner designer = new KeyDesigner(catalog, tables, inputs, names, options, expressions);
    designer.checkRequests();
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
    Map<String, Map<String, KeyExpression>> keyExpressions = new java.util.HashMap<>();
    designer.drafts.all().forEach(d -> keyExpressions.put(d.target(), Map.copyOf(d.keyExpressions)));
    return new Result(designer.drafts.all().stream().map(KeyDraft::toPlan).toList(),
        designer.bitReversed.sequences(), Map.copyOf(keyExpressions));
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
    ColumnPlan lead = d.column(d.primaryKey.get(0).column()).orElseThrow();
    PgColumn leadSource = lead.source() == null ? null : table.column(lead.source()).orElse(null);
    if (leadSource == null) {
      return;
    }
    KeySample sample = inputs.samples().getOrDefault(table.qualifiedName(), KeySample.empty(table.qualifiedName()));
    KeyDraft full = drafts.fullestKey(d);
    KeyDraft wide = drafts.fullestTable(d);
    Monotonicity leadGrows = MonotonicityDetector.detect(catalog, table, leadSource, sample).orElse(null);
    // A later column that a generator feeds outweighs a leading column whose only evidence is its stored order.
    Optional<LaterGrowth> later = leadGrows == null || leadGrows.orderOnly() ? laterGrowth(d, table, sample)
        : Optional.empty();
    KeyDecision decision = KeyPolicy.decide(new KeyEvidence(table.qualifiedName(),
        d.primaryKey.stream().map(KeyPart::column).toList(), lead, leadSource,
        options.keyStrategies().get(table.qualifiedName()),
        later.map(LaterGrowth::monotonicity).orElse(leadGrows),
        WriteRate.of(table.stats(), options.generatedAt()),
        later.isPresent() ? null : swapCandidate(d, table, sample, leadSource).orElse(null),
        full == null ? null : full.target(), options.lowWriteInsertsPerSecond(), options.nodes(),
        wide == null ? null : wide.target(), later.map(LaterGrowth::few).orElse(null)));
    String plan = apply(d, table, decision);
    if (plan == null) {
      return;
    }
    KeyEvidence e = decision.evidence();
    Monotonicity mono = e.monotonicity();
    KeyStrategy.Kind requested = e.requested();
    Map<String, Object> evidence = decision.findingEvidence();
    FewLeadingValues few = e.fewLeading();
    // The column the finding is about: the one that grows.
    PgColumn grows = later.map(LaterGrowth::column).orElse(leadSource);
    List<Object> sourceKeys = few == null ? sample.values(leadSource.name())
        : tuples(sample, append(few.columns(), grows.name()));
    Optional<WriteSkewForecast> forecast = WriteSkewForecast.of(sourceKeys,
        plannedKeys(d, sample, leadSource, sourceKeys), options.nodes(), few);
    String skew = "";
    if (forecast.isPresent()) {
      evidence.put("writeSkew", forecast.get().evidence());
      skew = forecast.get().sentence();
      d.strategy = d.strategy.withReason(d.strategy.reason() + forecast.get().reasonSuffix());
    }
    if (requested != null) {
      d.findings.add(Finding.of(FindingCode.KEY_STRATEGY_REQUESTED, table.qualifiedName(), grows.name(), null,
          "Key strategy " + requested.json() + " for " + table.qualifiedName() + " was requested with --key-strategy"
              + (mono == null ? " (the key showed no sign of monotonic growth). " + plan + skew
                  : "; it replaces the policy's choice. What it does is in the HOTSPOT_KEY finding."),
          evidence));
    }
    if (decision.reason() == KeyDecision.Reason.ORDER_ONLY) {
      Severity severity = e.writeRate().trusted() ? Severity.INFO : Severity.WARNING;
      d.findings.add(new Finding(FindingCode.ORDERED_KEY_KEPT, severity, table.qualifiedName(), leadSource.name(), null,
          "The primary key of " + table.qualifiedName() + " leads with " + leadSource.name() + ", kept. "
              + mono.explanation() + " " + plan + skew, evidence));
    } else if (mono != null) {
      Severity severity = d.strategy.kind() == KeyStrategy.Kind.KEEP
          && decision.reason() != KeyDecision.Reason.NO_ROOM_FOR_SHARD ? Severity.INFO : Severity.WARNING;
      String where = few == null
          ? "The primary key of " + table.qualifiedName() + " leads with " + leadSource.name() + ". "
              + mono.explanation() + " Spanner stores rows in key order and splits tables into key ranges served by "
              + "different servers, so with this key every insert goes to the last range and one server takes all "
              + "the writes, however many nodes the instance has. "
          : "The primary key of " + table.qualifiedName() + " is (" + String.join(", ", table.primaryKey().columns())
              + "): " + few.describe() + " takes about " + few.values() + (few.values() == 1 ? " value" : " values")
              + " (" + few.source() + "), fewer than the " + WriteSkew.rangesFor(options.nodes()) + " key ranges "
              + "that spread writes over " + options.nodes() + (options.nodes() == 1 ? " node" : " nodes")
              + ", and " + grows.name() + " after it grows with every insert. " + mono.explanation() + " Spanner "
              + "stores rows in key order and splits tables into key ranges served by different servers, so with "
              + "this key every insert goes to the end of one of " + few.values() + " key ranges, one per value of "
              + few.describe() + ", and at most " + few.values() + (few.values() == 1 ? " server takes" : " servers take")
              + " the writes, however many nodes the instance has. ";
      d.findings.add(new Finding(FindingCode.HOTSPOT_KEY, severity, table.qualifiedName(), grows.name(), null,
          where + plan + skew, evidence));
    }
  }

  /**
   * A key column after the first that grows with every insert (by generator evidence: order alone does not count),
   * when the key columns before it take few values.
   *
   * @param column the growing column
   * @param monotonicity why it grows
   * @param few the key columns before it
   */
  private record LaterGrowth(PgColumn column, Monotonicity monotonicity, FewLeadingValues few) {}

  /** The first key column after the leading one that grows, if the columns before it take few values. */
  private Optional<LaterGrowth> laterGrowth(KeyDraft d, PgTable table, KeySample sample) {
    List<PgColumn> before = new ArrayList<>();
    for (KeyPart part : d.primaryKey) {
      ColumnPlan c = d.column(part.column()).orElseThrow();
      PgColumn pc = c.source() == null ? null : table.column(c.source()).orElse(null);
      if (pc == null) {
        return Optional.empty();
      }
      if (!before.isEmpty()) {
        Optional<Monotonicity> grows = MonotonicityDetector.detect(catalog, table, pc, sample)
            .filter(m -> !m.orderOnly());
        if (grows.isPresent()) {
          return FewLeadingValues.of(table, before, sample, options.nodes())
              .map(few -> new LaterGrowth(pc, grows.get(), few));
        }
      }
      before.add(pc);
    }
    return Optional.empty();
  }

  private static List<String> append(List<String> columns, String column) {
    List<String> out = new ArrayList<>(columns);
    out.add(column);
    return out;
  }

  /** The sampled rows' values of {@code columns} as one comparable key each (rows with a null left out). */
  private static List<Object> tuples(KeySample sample, List<String> columns) {
    List<Integer> at = columns.stream().map(c -> sample.columns().indexOf(c)).toList();
    List<Object> keys = new ArrayList<>();
    rows:
    for (List<Object> row : sample.rows()) {
      Object key = null;
      for (int i : at) {
        Object v = row.get(i);
        if (v == null) {
          continue rows;
        }
        key = key == null ? v : WriteSkew.Pair.of(key, v);
      }
      keys.add(key);
    }
    return keys;
  }

  /**
   * Applies {@code decision} to {@code d} through its strategy's applier.
   *
   * @return what the plan does, for the finding; null when there is nothing to report
   */
  private String apply(KeyDraft d, PgTable table, KeyDecision decision) {
    KeyEvidence e = decision.evidence();
    ColumnPlan lead = e.lead();
    String plan = switch (decision.kind()) {
      case KEEP -> KeepKey.apply(d, decision);
      case SWAP -> SwapKey.apply(drafts, d, lead, decision.temporal(), e.swapColumn());
      case BIT_REVERSED -> bitReversed.apply(d, lead, e.leadSource());
      case UUID -> decision.remapsIntegerKey() ? uuidRemap.apply(d, lead, table)
          : UuidKey.apply(drafts, d, lead, options.dialect());
      case HASH_SHARD -> decision.reason() == KeyDecision.Reason.FEW_LEADING_VALUES
          ? HashShardKey.apply(drafts, d, options, e.fewLeading().describe() + " takes about "
              + e.fewLeading().values() + " values before " + e.monotonicity().column() + ", which grows, so inserts "
              + "land at the ends of " + e.fewLeading().values() + " key ranges; a stored shard column derived from "
              + "the key leads it")
          : HashShardKey.apply(drafts, d, options);
      case SYNTHETIC -> throw new IllegalStateException("synthetic keys are planned for tables without a key");
    };
    if (decision.reason() == KeyDecision.Reason.REQUESTED && decision.kind() != KeyStrategy.Kind.KEEP) {
      d.strategy = d.strategy.withReason("requested with --key-strategy: " + requestedReason(d, decision));
    }
    return plan;
  }

  /** The reason of a requested strategy that the policy would not have chosen for the same evidence. */
  private static String requestedReason(KeyDraft d, KeyDecision decision) {
    Monotonicity mono = decision.evidence().monotonicity();
    if (decision.kind() == KeyStrategy.Kind.UUID && !decision.remapsIntegerKey()
        && (mono == null || mono.cause() != Monotonicity.Cause.TIME_ORDERED_UUID)) {
      return "existing values of " + decision.evidence().lead().target() + " are kept and new rows get random (v4) "
          + "UUIDs";
    }
    if (decision.kind() == KeyStrategy.Kind.HASH_SHARD && mono == null) {
      return "a stored shard column derived from the key leads it, spreading inserts over " + d.strategy.shards()
          + " shards";
    }
    return d.strategy.reason();
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
}
