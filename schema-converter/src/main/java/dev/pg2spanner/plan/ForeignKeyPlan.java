package dev.pg2spanner.plan;

import java.util.List;
import java.util.Objects;

/**
 * A foreign key, created after the load (and after the indexes).
 *
 * @param source the source constraint name
 * @param target the Spanner constraint name
 * @param columns referencing target columns
 * @param referencedTable the referenced target table ("schema.table" for named schemas)
 * @param referencedColumns referenced target columns
 * @param onDelete CASCADE or NO_ACTION (Spanner has no other action)
 */
public record ForeignKeyPlan(String source, String target, List<String> columns, String referencedTable,
    List<String> referencedColumns, Interleave.OnDelete onDelete) {

  public ForeignKeyPlan {
    Objects.requireNonNull(target, "target");
    columns = List.copyOf(columns);
    Objects.requireNonNull(referencedTable, "referencedTable");
    referencedColumns = List.copyOf(referencedColumns);
    Objects.requireNonNull(onDelete, "onDelete");
  }
}
