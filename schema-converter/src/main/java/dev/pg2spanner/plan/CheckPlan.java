package dev.pg2spanner.plan;

import java.util.Objects;

/**
 * A CHECK constraint in Spanner's expression language.
 *
 * @param source the source constraint (or domain/enum) it comes from
 * @param target the Spanner constraint name
 * @param expression the GoogleSQL boolean expression, without CHECK
 */
public record CheckPlan(String source, String target, String expression) {
  public CheckPlan {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(expression, "expression");
  }
}
