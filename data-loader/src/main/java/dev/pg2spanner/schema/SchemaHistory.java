package dev.pg2spanner.schema;

import dev.pg2spanner.ddl.Migration;
import java.util.List;

/**
 * Where a target database records which of the plan's migrations (V1 tables, V2 indexes, V3 foreign keys, V4
 * checks) are applied, so that {@code migrate --resume} and the team's later schema changes know where the schema
 * stands. A GoogleSQL database keeps Flyway's own history ({@link FlywayMigrator}); a PostgreSQL-dialect database,
 * which flyway-gcp-spanner does not support, keeps a table of the same name and columns written by pg2spanner
 * ({@link PostgresDialectHistory}).
 */
public interface SchemaHistory {

  /** Creates the history table if it does not exist yet, before V1. */
  void ensureHistoryTable();

  /** The versioned migrations recorded, in the order they were installed; empty when there is no history yet. */
  List<AppliedMigration> applied();

  /** Records {@code migration}, whose statements the caller has applied, as applied and successful. */
  void recordApplied(Migration migration, long executionMillis);
}
