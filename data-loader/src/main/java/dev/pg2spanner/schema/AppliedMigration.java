package dev.pg2spanner.schema;

import java.time.Instant;
import java.util.Objects;

/**
 * One row of Flyway's schema history table, for a versioned migration.
 *
 * @param version the migration version
 * @param description Flyway's description ("foreign keys"), never null
 * @param checksum Flyway's CRC32 checksum of the script, or null when Flyway recorded none
 * @param success false when the migration failed half-way (Spanner runs DDL outside transactions, so a failed
 *     migration may have created some of its objects)
 * @param installedOn when it was applied, or null when the history row holds none
 */
public record AppliedMigration(int version, String description, Integer checksum, boolean success,
    Instant installedOn) {

  public AppliedMigration {
    Objects.requireNonNull(description, "description");
  }
}
