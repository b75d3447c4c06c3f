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
 * @param enforced false for an informational foreign key ({@code NOT ENFORCED}): Spanner records the relationship
 *     (for the query optimiser and tools) but neither validates existing rows nor checks writes; null or true for an
 *     enforced one (the default)
 */
public record ForeignKeyPlan(String source, String target, List<String> columns, String referencedTable,
    List<String> referencedColumns, Interleave.OnDelete onDelete, Boolean enforced) {

  public ForeignKeyPlan(String source, String target, List<String> columns, String referencedTable,
      List<String> referencedColumns, Interleave.OnDelete onDelete) {
    this(source, target, columns, referencedTable, referencedColumns, onDelete, null);
  }

  /** True unless the plan asks for an informational key. */
  public boolean isEnforced() {
    return !Boolean.FALSE.equals(enforced);
  }

  @com.fasterxml.jackson.annotation.JsonCreator
  public ForeignKeyPlan {
    Objects.requireNonNull(target, "target");
    columns = List.copyOf(columns);
    Objects.requireNonNull(referencedTable, "referencedTable");
    referencedColumns = List.copyOf(referencedColumns);
    Objects.requireNonNull(onDelete, "onDelete");
  }
}
