package dev.pg2spanner.planner;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.HashShard;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyDefault;
import dev.pg2spanner.plan.KeyExpression;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A table whose key is being designed: a mutable copy of a {@link TablePlan}, local to the key design (the
 * strategy appliers, the index redesign and the foreign-key repair change it; {@link #toPlan()} freezes it again).
 */
final class KeyDraft {
  /** The dialect the key design writes its drafts in (PostgresDialectPlan writes the other one afterwards). */
  static final SpannerDialect DIALECT = SpannerDialect.GOOGLE_STANDARD_SQL;

  final TablePlan base;
  final List<ColumnPlan> columns;
  List<KeyPart> primaryKey;
  KeyStrategy strategy;
  final List<IndexPlan> indexes;
  final List<ForeignKeyPlan> foreignKeys;
  final List<CheckPlan> checks;
  final List<Finding> findings;
  /**
   * The expressions the key design gave columns of this table (target name → its shard or key default): kept in
   * step with {@link #columns} by {@link #addShardColumn} and {@link #replaceColumn}.
   */
  final Map<String, KeyExpression> keyExpressions = new LinkedHashMap<>();

  /** @param t a base table plan; a synthetic key's column takes a random UUID by default ({@link Planner}) */
  KeyDraft(TablePlan t) {
    base = t;
    columns = new ArrayList<>(t.columns());
    primaryKey = new ArrayList<>(t.primaryKey());
    strategy = t.keyStrategy();
    indexes = new ArrayList<>(t.indexes());
    foreignKeys = new ArrayList<>(t.foreignKeys());
    checks = new ArrayList<>(t.checks());
    findings = new ArrayList<>(t.findings());
    if (t.keyStrategy() != null && t.keyStrategy().kind() == KeyStrategy.Kind.SYNTHETIC) {
      keyExpressions.put(t.primaryKey().get(0).column(), KeyDefault.UUID);
    }
  }

  String target() {
    return base.target();
  }

  Optional<ColumnPlan> column(String target) {
    return columns.stream().filter(c -> c.target().equals(target)).findFirst();
  }

  boolean hasColumn(String name) {
    return columns.stream().anyMatch(c -> c.target().equalsIgnoreCase(name));
  }

  /** Replaces the column of the same target name; an expression the key design gave it no longer holds. */
  void replaceColumn(ColumnPlan updated) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).target().equals(updated.target())) {
        columns.set(i, updated);
        keyExpressions.remove(updated.target());
        return;
      }
    }
    throw new IllegalStateException("no column " + updated.target() + " in " + target());
  }

  /** Replaces the column of the same target name by {@code updated} with {@code keyDefault} as its DEFAULT. */
  void replaceColumn(ColumnPlan updated, KeyDefault keyDefault) {
    replaceColumn(new ColumnPlan(updated.source(), updated.sourceType(), updated.target(), updated.targetType(),
        updated.notNull(), updated.conversion(), keyDefault.expression(DIALECT),
        updated.generatedExpression(), updated.uuidNamespace()));
    keyExpressions.put(updated.target(), keyDefault);
  }

  /** Adds a stored shard column computing {@code shard}, in front when {@code first}, and records its shard. */
  void addShardColumn(String name, boolean notNull, HashShard shard, boolean first) {
    ColumnPlan column = new ColumnPlan(null, null, name, "INT64", notNull, ValueConversion.SYNTHETIC, null,
        shard.expression(DIALECT));
    if (first) {
      columns.add(0, column);
    } else {
      columns.add(column);
    }
    keyExpressions.put(name, shard);
  }

  TablePlan toPlan() {
    return new TablePlan(base.source(), base.readOnly(), base.target(), base.rowsEstimate(), base.bytesEstimate(),
        columns, primaryKey, strategy, base.interleave(), indexes, foreignKeys, checks, findings, base.splitPoints(),
        base.rowHash());
  }
}
