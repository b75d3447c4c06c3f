package dev.pg2spanner.load.source;

import java.util.Objects;

/**
 * One physical relation the load reads for a planned table, as {@link PiecePlanner} found it in the snapshot.
 *
 * @param table the plan's target table
 * @param source the plan's source table, "schema.name"
 * @param schema the relation's schema
 * @param name the relation's name (a leaf partition's, for a partitioned table)
 * @param kind pg_class.relkind: "r" table, "m" materialized view, "f" foreign table
 * @param bytes the main fork's size in bytes
 * @param rowEstimate pg_class.reltuples; negative when never analyzed
 * @param level the table's interleave depth
 */
record SourceRelation(String table, String source, String schema, String name, String kind, long bytes,
    double rowEstimate, int level) {

  SourceRelation {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
  }

  long blocks(long blockSize) {
    return bytes / blockSize;
  }
}
