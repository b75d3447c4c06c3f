package dev.pg2spanner.catalog;

import java.util.Objects;

/**
 * A database object that exists beside the tables and is not migrated as data: the report lists each by name.
 *
 * @param kind what it is
 * @param schema its schema (null for extensions, event triggers and publications)
 * @param name its name
 * @param on for triggers, rules and policies: "schema.table" they belong to; for a foreign table that is a partition:
 *     the partitioned table it belongs to (whose rows include its rows); for a table left out by
 *     {@code --exclude-tables}: null; else null
 * @param detail a short description (e.g. a trigger's timing and events, a function's signature)
 */
public record PgObject(Kind kind, String schema, String name, String on, String detail) {

  public enum Kind {
    VIEW, MATERIALIZED_VIEW, TRIGGER, EVENT_TRIGGER, FUNCTION, PROCEDURE, AGGREGATE, RULE, POLICY, EXTENSION,
    FOREIGN_TABLE, PUBLICATION, SUBSCRIPTION, COMPOSITE_TYPE, RANGE_TYPE, STATISTICS_OBJECT,
    /** A table of the planned schemas that {@code plan --exclude-tables} left out (detail: the expression). */
    EXCLUDED_TABLE
  }

  public PgObject {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
  }
}
