package dev.pg2spanner.catalog;

import java.util.Objects;

/**
 * @param name the constraint name
 * @param expression the boolean expression without the CHECK keyword, as {@code pg_get_constraintdef} prints
 *     it inside {@code CHECK (...)}
 * @param validated false for NOT VALID constraints
 */
public record PgCheck(String name, String expression, boolean validated) {
  public PgCheck {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(expression, "expression");
  }
}
