package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What PostgreSQL reports about the database being migrated, read in one consistent snapshot. A source model
 * only: it records facts and makes no Spanner decision.
 *
 * @param serverVersion {@code server_version}, e.g. "15.20"
 * @param serverVersionNum {@code server_version_num}, e.g. 150020
 * @param database the database name
 * @param tables the tables to migrate: ordinary and partitioned parents (never partitions), sorted by schema
 *     then name
 * @param sequences every sequence in the chosen schemas, with the columns that use it
 * @param enums enum types used by, or defined in, the chosen schemas
 * @param domains domain types used by, or defined in, the chosen schemas
 * @param otherObjects everything else that exists and is not migrated as a table (views, triggers, ...)
 */
public record PgCatalog(
    String serverVersion,
    int serverVersionNum,
    String database,
    List<PgTable> tables,
    List<PgSequence> sequences,
    List<PgEnum> enums,
    List<PgDomain> domains,
    List<PgObject> otherObjects) {

  public PgCatalog {
    Objects.requireNonNull(serverVersion, "serverVersion");
    Objects.requireNonNull(database, "database");
    tables = List.copyOf(tables);
    sequences = List.copyOf(sequences);
    enums = List.copyOf(enums);
    domains = List.copyOf(domains);
    otherObjects = List.copyOf(otherObjects);
  }

  public Optional<PgTable> table(String schema, String name) {
    return tables.stream().filter(t -> t.schema().equals(schema) && t.name().equals(name)).findFirst();
  }

  public Optional<PgSequence> sequence(String schema, String name) {
    return sequences.stream().filter(s -> s.schema().equals(schema) && s.name().equals(name)).findFirst();
  }
}
