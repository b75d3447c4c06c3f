package dev.pg2spanner.catalog;

import java.util.List;

/** An enum type with its labels in sort order. */
public record PgEnum(String schema, String name, List<String> labels) {
  public PgEnum {
    labels = List.copyOf(labels);
  }
}
