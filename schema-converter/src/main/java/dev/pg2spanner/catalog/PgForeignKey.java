package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A foreign key declared on a table.
 *
 * @param name the constraint name
 * @param columns referencing columns, in the constraint's order
 * @param referencedSchema the referenced table's schema
 * @param referencedTable the referenced table's name
 * @param referencedColumns referenced columns, position-matched with {@code columns}
 * @param onDelete the ON DELETE action
 * @param onUpdate the ON UPDATE action
 * @param deferrable DEFERRABLE (Spanner checks at commit anyway)
 * @param validated false for NOT VALID constraints (existing rows may violate it)
 * @param matchFull MATCH FULL (else SIMPLE)
 */
public record PgForeignKey(
    String name,
    List<String> columns,
    String referencedSchema,
    String referencedTable,
    List<String> referencedColumns,
    Action onDelete,
    Action onUpdate,
    boolean deferrable,
    boolean validated,
    boolean matchFull) {

  public enum Action { NO_ACTION, RESTRICT, CASCADE, SET_NULL, SET_DEFAULT }

  public PgForeignKey {
    Objects.requireNonNull(name, "name");
    columns = List.copyOf(columns);
    Objects.requireNonNull(referencedSchema, "referencedSchema");
    Objects.requireNonNull(referencedTable, "referencedTable");
    referencedColumns = List.copyOf(referencedColumns);
    Objects.requireNonNull(onDelete, "onDelete");
    Objects.requireNonNull(onUpdate, "onUpdate");
    if (columns.size() != referencedColumns.size()) {
      throw new IllegalArgumentException("foreign key " + name + " pairs " + columns.size() + " columns with "
          + referencedColumns.size());
    }
  }

  public String referencedQualifiedName() {
    return referencedSchema + "." + referencedTable;
  }
}
