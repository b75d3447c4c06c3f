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
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.HashShard;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.ValueConversion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * After the key strategies: a secondary index that leads with a monotonic column is interleaved in the parent (when
 * it leads with the parent's key), kept (order alone on a table not proven busy, a low write rate, or no room for
 * another column), or prefixed with a stored shard column derived from the indexed value.
 */
final class IndexRedesign {

  private final PgCatalog catalog;
  private final PlanInputs inputs;
  private final PlannerOptions options;
  private final KeyDrafts drafts;

  private IndexRedesign(PgCatalog catalog, PlanInputs inputs, PlannerOptions options, KeyDrafts drafts) {
    this.catalog = catalog;
    this.inputs = inputs;
    this.options = options;
    this.drafts = drafts;
  }

  /** Redesigns the monotonic indexes of every table, in plan order. */
  static void redesign(PgCatalog catalog, PlanInputs inputs, PlannerOptions options, KeyDrafts drafts) {
    IndexRedesign redesign = new IndexRedesign(catalog, inputs, options, drafts);
    for (KeyDraft d : drafts.all()) {
      redesign.redesign(d);
    }
  }

  private void redesign(KeyDraft d) {
    PgTable table = drafts.source(d);
    for (int i = 0; i < d.indexes.size(); i++) {
      IndexPlan index = d.indexes.get(i);
      if (index.interleaveIn() != null || index.columns().isEmpty()) {
        continue;
      }
      ColumnPlan lead = d.column(index.columns().get(0).column()).orElse(null);
      PgColumn leadSource = lead == null || lead.source() == null ? null : table.column(lead.source()).orElse(null);
      // Skipped: no source column; values remapped to UUIDs (random now); the old ids a uuid key keeps, which no
      // new row writes (NULL, filtered out of its index).
      if (leadSource == null || lead.conversion() == ValueConversion.KEY_UUID
          || lead.target().equals(d.strategy.keptKeyColumn())) {
        continue;
      }
      KeySample sample = inputs.samples().getOrDefault(table.qualifiedName(), KeySample.empty(table.qualifiedName()));
      Optional<Monotonicity> found = MonotonicityDetector.detect(catalog, table, leadSource, sample);
      if (found.isEmpty()) {
        continue;
      }
      Monotonicity mono = found.get();
      Map<String, Object> evidence = new LinkedHashMap<>(mono.evidence());
      evidence.put("cause", mono.cause().name());
      String indexName = index.source() == null ? index.target() : index.source();
      KeyDraft parent = drafts.parent(d);
      Optional<List<KeyPart>> interleavable = parent == null ? Optional.empty() : interleavedKey(index, parent);
      if (interleavable.isPresent()) {
        d.indexes.set(i, new IndexPlan(index.source(), index.target(), interleavable.get(), index.unique(),
            index.nullFiltered(), index.storing(), parent.target()));
        d.findings.add(Finding.of(FindingCode.MONOTONIC_INDEX, table.qualifiedName(), leadSource.name(), indexName,
            FindingCode.MONOTONIC_INDEX.message(indexName, leadSource.name(), mono.explanation(), "It also leads "
                + "with the parent's key, so the plan interleaves it in " + parent.target() + ": its entries live "
                + "beside their parent rows and follow the parent key's distribution."), evidence));
        continue;
      }
      WriteRate rate = WriteRate.of(table.stats(), options.generatedAt());
      if (mono.orderOnly() && !KeyPolicy.provenBusy(rate, options.lowWriteInsertsPerSecond())) {
        evidence.put("writeRate", rate.describe());
        d.findings.add(new Finding(FindingCode.ORDERED_KEY_KEPT, rate.trusted() ? Severity.INFO : Severity.WARNING,
            table.qualifiedName(), leadSource.name(), indexName, "Index " + indexName + " leads with "
                + leadSource.name() + ", kept as it is. " + mono.explanation() + " Nothing generates these values, and "
                + "a natural or externally assigned column loaded in order looks exactly like this, so the plan does "
                + "not add a shard column on order alone. Insert rate: " + rate.describe() + "; order alone changes an "
                + "index only at " + KeyPolicy.threshold(options.lowWriteInsertsPerSecond()) + " inserts/s or more, "
                + "measured over at least "
                + WriteRate.MIN_TRUSTED_WINDOW.toHours() + " hours of statistics. If new rows do take ever larger "
                + "values, every insert lands at the end of this index: plan again once the statistics cover a day "
                + "of normal load.", evidence));
        continue;
      }
      if (KeyPolicy.lowWrite(rate, options.lowWriteInsertsPerSecond())) {
        d.findings.add(Finding.of(FindingCode.MONOTONIC_INDEX, table.qualifiedName(), leadSource.name(), indexName,
            FindingCode.MONOTONIC_INDEX.message(indexName, leadSource.name(), mono.explanation(), "It is kept as "
                + "it is because the table is written rarely (" + rate.describe() + "); every insert still lands at "
                + "the end of this index."), evidence));
        continue;
      }
      if (index.columns().size() >= KeyDrafts.LIMITS.maxIndexKeyColumns()) {
        d.findings.add(Finding.of(FindingCode.MONOTONIC_INDEX, table.qualifiedName(), leadSource.name(), indexName,
            FindingCode.MONOTONIC_INDEX.message(indexName, leadSource.name(), mono.explanation(), "It already "
                + "has " + index.columns().size() + " key columns, Spanner's limit, so the plan cannot put a shard "
                + "column in front of it: it is kept as it is and every insert lands at the end of it. Drop a column "
                + "from the index in plan.yaml to make room for one."), evidence));
        continue;
      }
      int shards = options.shards();
      String shardColumn = KeyDrafts.freeName(lead.target() + "_shard", List.of(d));
      // One expression for the DDL and the advice, so the report shows exactly what is created, in its dialect.
      HashShard shard = KeyDrafts.hashShard(d, List.of(lead.target()), shards);
      String expression = shard.expression(options.dialect());
      d.addShardColumn(shardColumn, lead.notNull(), shard, false);
      List<KeyPart> parts = new ArrayList<>();
      parts.add(KeyPart.asc(shardColumn));
      parts.addAll(index.columns());
      d.indexes.set(i, new IndexPlan(index.source(), index.target(), parts, index.unique(), index.nullFiltered(),
          index.storing(), null));
      d.findings.add(Finding.of(FindingCode.MONOTONIC_INDEX, table.qualifiedName(), leadSource.name(), indexName,
          FindingCode.MONOTONIC_INDEX.message(indexName, leadSource.name(), mono.explanation(), "A Spanner index "
              + "is a table keyed by its columns, so every insert would land at the end of it. The plan prefixes the "
              + "index with " + shardColumn + " = " + expression
              + ", a stored generated column (a function of the indexed value, so "
              + "uniqueness is unchanged). Application-visible: a range scan on " + lead.target() + " must query each "
              + "shard (WHERE " + shardColumn + " BETWEEN 0 AND " + (shards - 1) + ") and merge."),
          evidence));
    }
  }

  /** The index key with the parent's key as its prefix (adding a missing leading shard column), or empty. */
  private static Optional<List<KeyPart>> interleavedKey(IndexPlan index, KeyDraft parent) {
    List<String> parentKey = parent.primaryKey.stream().map(KeyPart::column).toList();
    List<String> indexKey = index.columns().stream().map(KeyPart::column).toList();
    List<KeyPart> parts = new ArrayList<>(index.columns());
    if (parent.strategy.kind() == KeyStrategy.Kind.HASH_SHARD && !indexKey.contains(parent.strategy.shardColumn())) {
      parts.add(0, KeyPart.asc(parent.strategy.shardColumn()));
      indexKey = parts.stream().map(KeyPart::column).toList();
    }
    return indexKey.size() > parentKey.size() && indexKey.subList(0, parentKey.size()).equals(parentKey)
        ? Optional.of(parts) : Optional.empty();
  }
}
