package dev.pg2spanner.catalog;

import java.util.Objects;

/**
 * A table column.
 *
 * @param name exactly as in the catalog
 * @param position {@code attnum}
 * @param type the declared type
 * @param notNull true for NOT NULL (including primary-key columns)
 * @param defaultExpression {@code pg_get_expr(adbin)}, e.g. "nextval('orders_id_seq'::regclass)", or null
 * @param identity identity kind, {@link Identity#NONE} for ordinary columns
 * @param generatedExpression the expression of a {@code GENERATED ALWAYS AS (...) STORED} column, or null
 * @param sequence "schema.name" of the sequence that feeds this column, through its identity or by parsing
 *     {@code nextval(...)} in its default (owned or not), or null
 * @param collation a non-default collation name, or null
 * @param comment the column's COMMENT, or null
 * @param stats {@code pg_stats} for this column, or null when the table was never analyzed
 */
public record PgColumn(
    String name,
    int position,
    PgType type,
    boolean notNull,
    String defaultExpression,
    Identity identity,
    String generatedExpression,
    String sequence,
    String collation,
    String comment,
    PgColumnStats stats) {

  public enum Identity { NONE, ALWAYS, BY_DEFAULT }

  public PgColumn {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(identity, "identity");
  }

  public boolean isGenerated() {
    return generatedExpression != null;
  }
}
