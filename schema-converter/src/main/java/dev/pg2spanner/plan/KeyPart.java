package dev.pg2spanner.plan;

import java.util.Objects;

/**
 * One part of a Spanner primary key or index key.
 *
 * @param column the target column name
 * @param descending DESC
 */
public record KeyPart(String column, boolean descending) {
  public KeyPart {
    Objects.requireNonNull(column, "column");
  }

  public static KeyPart asc(String column) {
    return new KeyPart(column, false);
  }
}
