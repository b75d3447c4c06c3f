package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A secondary index (the primary key's own index is not listed).
 *
 * @param name the index name
 * @param method access method: btree, hash, gin, gist, brin, spgist, ...
 * @param unique UNIQUE
 * @param constraint the name of the UNIQUE/EXCLUDE constraint this index backs, or null for a plain index
 * @param elements key columns and expressions, in order
 * @param include INCLUDE columns
 * @param predicate the partial-index predicate ({@code pg_get_expr(indpred)}), or null
 * @param nullsNotDistinct PostgreSQL 15's NULLS NOT DISTINCT
 * @param valid false for an index left invalid by a failed CREATE INDEX CONCURRENTLY
 * @param definition {@code pg_get_indexdef}, for the report
 * @param stats usage and size
 */
public record PgIndex(
    String name,
    String method,
    boolean unique,
    String constraint,
    List<Element> elements,
    List<String> include,
    String predicate,
    boolean nullsNotDistinct,
    boolean valid,
    String definition,
    PgIndexStats stats) {

  /**
   * One key part: a column or an expression.
   *
   * @param column the column name, or null for an expression
   * @param expression the expression text, or null for a column
   * @param descending DESC
   * @param nullsFirst NULLS FIRST (the default for DESC)
   */
  public record Element(String column, String expression, boolean descending, boolean nullsFirst) {
    public Element {
      if ((column == null) == (expression == null)) {
        throw new IllegalArgumentException("an index element is a column or an expression, not both or neither");
      }
    }

    public boolean isExpression() {
      return expression != null;
    }
  }

  public PgIndex {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(method, "method");
    elements = List.copyOf(elements);
    include = List.copyOf(include);
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(stats, "stats");
  }
}
