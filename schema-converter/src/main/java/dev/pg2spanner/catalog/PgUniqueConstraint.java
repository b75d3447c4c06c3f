package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;

/**
 * @param name the constraint name
 * @param columns constrained columns in order
 * @param nullsNotDistinct PostgreSQL 15's {@code UNIQUE NULLS NOT DISTINCT}
 */
public record PgUniqueConstraint(String name, List<String> columns, boolean nullsNotDistinct) {
  public PgUniqueConstraint {
    Objects.requireNonNull(name, "name");
    columns = List.copyOf(columns);
  }
}
