package dev.pg2spanner.catalog;

import java.util.List;

/**
 * A domain type.
 *
 * @param base the underlying type
 * @param notNull NOT NULL
 * @param defaultExpression DEFAULT, or null
 * @param checks CHECK expressions, VALUE as the placeholder
 */
public record PgDomain(String schema, String name, PgType base, boolean notNull, String defaultExpression,
    List<String> checks) {
  public PgDomain {
    checks = List.copyOf(checks);
  }
}
