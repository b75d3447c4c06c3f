package dev.pg2spanner.planner;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** After the key strategies: foreign keys that reference a key which now starts with a shard column. */
final class ForeignKeyRepair {

  private ForeignKeyRepair() {}

  /**
   * A foreign key that references the original key columns of a table whose key now starts with a shard column gets
   * a matching generated shard column on the referencing side, so the key it references is the full primary key
   * and Spanner needs no (monotonic) backing index on the bare id.
   */
  static void repair(KeyDrafts drafts) {
    for (KeyDraft referencing : drafts.all()) {
      for (int i = 0; i < referencing.foreignKeys.size(); i++) {
        ForeignKeyPlan fk = referencing.foreignKeys.get(i);
        KeyDraft referenced = drafts.get(fk.referencedTable());
        if (referenced == null || referenced.strategy.kind() != KeyStrategy.Kind.HASH_SHARD) {
          continue;
        }
        String shardColumn = referenced.strategy.shardColumn();
        List<String> restOfKey = referenced.primaryKey.stream().map(KeyPart::column)
            .filter(c -> !c.equals(shardColumn)).toList();
        if (fk.referencedColumns().contains(shardColumn) || !Set.copyOf(fk.referencedColumns())
            .equals(Set.copyOf(restOfKey))) {
          continue;
        }
        // The hash input is the referenced key in key order; take the referencing columns in the same order.
        List<String> sourceOrder = referenced.strategy.shardSource();
        List<String> mine = sourceOrder.stream().map(c -> fk.columns().get(fk.referencedColumns().indexOf(c))).toList();
        boolean nullable = mine.stream().anyMatch(c -> !referencing.column(c).orElseThrow().notNull());
        String column = KeyDrafts.freeName(referenced.base.targetName() + "_shard", List.of(referencing));
        referencing.addShardColumn(column, !nullable,
            KeyDrafts.hashShard(referencing, mine, referenced.strategy.shards()), false);
        List<String> columns = new ArrayList<>();
        columns.add(column);
        columns.addAll(fk.columns());
        List<String> referencedColumns = new ArrayList<>();
        referencedColumns.add(shardColumn);
        referencedColumns.addAll(fk.referencedColumns());
        referencing.foreignKeys.set(i, new ForeignKeyPlan(fk.source(), fk.target(), columns, fk.referencedTable(),
            referencedColumns, fk.onDelete(), fk.enforced()));
        referencing.findings.add(Finding.of(FindingCode.FOREIGN_KEY_CHANGED, referencing.base.source(), null,
            fk.source(), "Foreign key " + fk.source() + " references " + referenced.target() + ", whose key now starts "
                + "with " + shardColumn + "; the plan adds " + column + " (the same hash of " + String.join(", ", mine)
                + ") to " + referencing.target() + " and includes it in the foreign key, so it references the full "
                + "primary key and no index on the bare, monotonic id is needed.",
            Map.of("shardColumn", column, "references", referenced.target())));
      }
    }
  }
}
