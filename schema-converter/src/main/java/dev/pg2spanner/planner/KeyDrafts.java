package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.plan.HashShard;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Every table of one key design, in plan order (parents before interleaved children), with what the strategies, the
 * index redesign and the foreign-key repair ask of the whole: a table's source, its interleaved descendants, a free
 * column name in a family of tables, a shard column's {@link HashShard}.
 */
final class KeyDrafts {

  /** Key and index column limits: a shard column needs one free place in every key it leads. */
  static final SpannerLimits LIMITS = SpannerLimits.GOOGLE_STANDARD_SQL;

  private final Map<String, KeyDraft> byTarget = new LinkedHashMap<>();
  /** Source tables by "schema.name", resolved once (the catalog's own lookup is linear). */
  private final Map<String, PgTable> sourceTables = new HashMap<>();

  /** @param tables base table plans, parents before interleaved children */
  KeyDrafts(PgCatalog catalog, List<TablePlan> tables) {
    catalog.tables().forEach(t -> sourceTables.put(t.qualifiedName(), t));
    tables.forEach(t -> byTarget.put(t.target(), new KeyDraft(t)));
  }

  /** Every draft, in plan order. */
  Collection<KeyDraft> all() {
    return byTarget.values();
  }

  /** The draft of the table named {@code target} in Spanner, or null. */
  KeyDraft get(String target) {
    return byTarget.get(target);
  }

  /** The interleave parent's draft, or null for a top-level table. */
  KeyDraft parent(KeyDraft d) {
    return d.base.interleave() == null ? null : byTarget.get(d.base.interleave().parent());
  }

  PgTable source(KeyDraft d) {
    PgTable t = sourceTables.get(d.base.source());
    if (t == null) {
      throw new IllegalStateException("no source table " + d.base.source());
    }
    return t;
  }

  /** Every table interleaved under {@code root}, at any depth, parents before children. */
  List<KeyDraft> descendants(KeyDraft root) {
    List<KeyDraft> out = new ArrayList<>();
    Set<String> family = new HashSet<>();
    family.add(root.target());
    for (KeyDraft d : byTarget.values()) {
      if (d.base.interleave() != null && family.contains(d.base.interleave().parent())) {
        family.add(d.target());
        out.add(d);
      }
    }
    return out;
  }

  /** {@code root} and every table interleaved under it, parents before children. */
  List<KeyDraft> family(KeyDraft root) {
    List<KeyDraft> family = new ArrayList<>();
    family.add(root);
    family.addAll(descendants(root));
    return family;
  }

  /** Gives every interleaved descendant of {@code root} the strategy {@code strategy} makes for it. */
  void markDescendants(KeyDraft root, Function<KeyDraft, KeyStrategy> strategy) {
    for (KeyDraft child : descendants(root)) {
      child.strategy = strategy.apply(child);
    }
  }

  /**
   * The first table of {@code root}'s hierarchy (itself or an interleaved descendant) whose key has no room for
   * another column, or null: a hash-shard column leads every key in the hierarchy.
   */
  KeyDraft fullestKey(KeyDraft root) {
    return family(root).stream().filter(m -> m.primaryKey.size() >= LIMITS.maxKeyColumns()).findFirst()
        .orElse(null);
  }

  /**
   * The first table of {@code root}'s hierarchy that already has Spanner's maximum number of columns, or null: a
   * hash-shard column is added to every table in the hierarchy.
   */
  KeyDraft fullestTable(KeyDraft root) {
    return family(root).stream().filter(m -> m.columns.size() >= LIMITS.maxColumnsPerTable()).findFirst()
        .orElse(null);
  }

  /** A column name free (case-insensitively) in every table of the family. */
  static String freeName(String desired, List<KeyDraft> family) {
    int n = 1;
    while (true) {
      String candidate = n == 1 ? desired : desired + "_" + n;
      if (family.stream().noneMatch(d -> d.hasColumn(candidate))) {
        return candidate;
      }
      n++;
    }
  }

  /** The hash shard of {@code columns} of {@code d} (typed as planned), over {@code shards} shards. */
  static HashShard hashShard(KeyDraft d, List<String> columns, int shards) {
    return HashShard.over(columns, shards, c -> SpannerType.parse(KeyDraft.DIALECT, d.column(c).orElseThrow().targetType()));
  }
}
