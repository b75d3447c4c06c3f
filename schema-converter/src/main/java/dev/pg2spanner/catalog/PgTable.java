package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A table to migrate.
 *
 * @param schema the schema name, exactly as in the catalog (case preserved)
 * @param name the table name, exactly as in the catalog
 * @param kind ordinary or partitioned parent
 * @param columns in {@code attnum} order, dropped columns left out
 * @param primaryKey the primary key, or null when the table has none
 * @param uniqueConstraints UNIQUE constraints (not plain unique indexes: those are in {@code indexes})
 * @param foreignKeys foreign keys declared on this table
 * @param checks CHECK constraints (NOT NULL is on the column)
 * @param indexes every index except the one backing the primary key; constraint-backed ones are marked
 * @param partitioning for a partitioned parent, the partition key and the partitions' names; else null
 * @param inheritanceParents tables this one INHERITS from ("schema.name"), empty usually
 * @param hasInheritanceChildren true when other tables inherit from this one (its rows must be read with ONLY)
 * @param comment the table's COMMENT, or null
 * @param stats size and activity statistics
 */
public record PgTable(
    String schema,
    String name,
    Kind kind,
    List<PgColumn> columns,
    PgPrimaryKey primaryKey,
    List<PgUniqueConstraint> uniqueConstraints,
    List<PgForeignKey> foreignKeys,
    List<PgCheck> checks,
    List<PgIndex> indexes,
    Partitioning partitioning,
    List<String> inheritanceParents,
    boolean hasInheritanceChildren,
    String comment,
    PgTableStats stats) {

  public enum Kind { TABLE, PARTITIONED }

  /**
   * @param strategy RANGE, LIST or HASH
   * @param key the partition key as {@code pg_get_partkeydef} prints it, e.g. "RANGE (payment_date)"
   * @param partitions the partitions, "schema.name", leaves and intermediate levels alike
   */
  public record Partitioning(String strategy, String key, List<String> partitions) {
    public Partitioning {
      Objects.requireNonNull(strategy, "strategy");
      Objects.requireNonNull(key, "key");
      partitions = List.copyOf(partitions);
    }
  }

  public PgTable {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    columns = List.copyOf(columns);
    uniqueConstraints = List.copyOf(uniqueConstraints);
    foreignKeys = List.copyOf(foreignKeys);
    checks = List.copyOf(checks);
    indexes = List.copyOf(indexes);
    inheritanceParents = List.copyOf(inheritanceParents);
    Objects.requireNonNull(stats, "stats");
  }

  /** "schema.name" with no quoting: the key findings and the plan use to name a source table. */
  public String qualifiedName() {
    return schema + "." + name;
  }

  public Optional<PgColumn> column(String columnName) {
    return columns.stream().filter(c -> c.name().equals(columnName)).findFirst();
  }
}
