package dev.pg2spanner.catalog;

import java.util.Objects;

/**
 * A database object that exists beside the tables and is not migrated as data: the report lists each by name.
 *
 * @param kind what it is
 * @param schema its schema (null for extensions, event triggers and publications)
 * @param name its name
 * @param on for triggers, rules and policies: "schema.table" they belong to; else null
 * @param detail a short description (e.g. a trigger's timing and events, a function's signature)
 */
public record PgObject(Kind kind, String schema, String name, String on, String detail) {

  public enum Kind {
    VIEW, MATERIALIZED_VIEW, TRIGGER, EVENT_TRIGGER, FUNCTION, PROCEDURE, AGGREGATE, RULE, POLICY, EXTENSION,
    FOREIGN_TABLE, PUBLICATION, SUBSCRIPTION, COMPOSITE_TYPE, RANGE_TYPE, STATISTICS_OBJECT
  }

  public PgObject {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
  }
}
