package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;

/**
 * @param name the constraint name as read from the catalog (never guessed from "table_pkey")
 * @param columns key columns in key order
 */
public record PgPrimaryKey(String name, List<String> columns) {
  public PgPrimaryKey {
    Objects.requireNonNull(name, "name");
    columns = List.copyOf(columns);
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("a primary key needs columns: " + name);
    }
  }
}
