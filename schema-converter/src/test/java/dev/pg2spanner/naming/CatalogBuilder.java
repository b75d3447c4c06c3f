package dev.pg2spanner.naming;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgCheck;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgIndexStats;
import dev.pg2spanner.catalog.PgPrimaryKey;
import dev.pg2spanner.catalog.PgSequence;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.catalog.PgUniqueConstraint;
import java.util.ArrayList;
import java.util.List;

/** Hand-built catalogs for name tests: only what naming looks at is filled in. */
final class CatalogBuilder {

  private final List<PgTable> tables = new ArrayList<>();
  private final List<PgSequence> sequences = new ArrayList<>();

  static CatalogBuilder catalog() {
    return new CatalogBuilder();
  }

  CatalogBuilder add(PgTable table) {
    tables.add(table);
    return this;
  }

  CatalogBuilder sequence(String schema, String name) {
    sequences.add(new PgSequence(schema, name, "bigint", 1, 1, 1, Long.MAX_VALUE, false, null, null, List.of()));
    return this;
  }

  PgCatalog build() {
    return new PgCatalog("15.0", 150000, "app", tables, sequences, List.of(), List.of(), List.of());
  }

  /** Builds one table. */
  static final class Table {
    private final String schema;
    private final String name;
    private final List<PgColumn> columns = new ArrayList<>();
    private final List<PgIndex> indexes = new ArrayList<>();
    private final List<PgUniqueConstraint> uniques = new ArrayList<>();
    private final List<PgForeignKey> foreignKeys = new ArrayList<>();
    private final List<PgCheck> checks = new ArrayList<>();

    Table(String schema, String name) {
      this.schema = schema;
      this.name = name;
    }

    Table columns(String... names) {
      for (String n : names) {
        columns.add(new PgColumn(n, columns.size() + 1, PgType.builtin("int8", "bigint"), false, null,
            PgColumn.Identity.NONE, null, null, null, null, null));
      }
      return this;
    }

    Table index(String indexName) {
      indexes.add(new PgIndex(indexName, "btree", false, null,
          List.of(new PgIndex.Element(columns.get(0).name(), null, false, false)), List.of(), null, false, true,
          "CREATE INDEX ...", new PgIndexStats(null, 0)));
      return this;
    }

    Table unique(String constraintName) {
      uniques.add(new PgUniqueConstraint(constraintName, List.of(columns.get(0).name()), false));
      indexes.add(new PgIndex(constraintName, "btree", true, constraintName,
          List.of(new PgIndex.Element(columns.get(0).name(), null, false, false)), List.of(), null, false, true,
          "CREATE UNIQUE INDEX ...", new PgIndexStats(null, 0)));
      return this;
    }

    Table check(String checkName) {
      checks.add(new PgCheck(checkName, "(" + columns.get(0).name() + " > 0)", true));
      return this;
    }

    Table foreignKey(String fkName, String refSchema, String refTable) {
      foreignKeys.add(new PgForeignKey(fkName, List.of(columns.get(0).name()), refSchema, refTable, List.of("id"),
          PgForeignKey.Action.NO_ACTION, PgForeignKey.Action.NO_ACTION, false, true, false));
      return this;
    }

    PgTable build() {
      PgPrimaryKey pk = columns.isEmpty() ? null : new PgPrimaryKey(name + "_pkey", List.of(columns.get(0).name()));
      return new PgTable(schema, name, PgTable.Kind.TABLE, columns, pk, uniques, foreignKeys, checks, indexes, null,
          List.of(), false, null, PgTableStats.unknown());
    }
  }

  static Table table(String schema, String name) {
    return new Table(schema, name);
  }
}
