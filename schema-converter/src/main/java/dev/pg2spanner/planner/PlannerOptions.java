package dev.pg2spanner.planner;

import dev.pg2spanner.plan.KeyStrategy;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the planner needs besides the catalog, parsed once by the CLI.
 *
 * @param nodes expected Spanner node count (≥ 1): sizes hash shards and the write-skew model
 * @param namedSchemas map non-public PostgreSQL schemas to Spanner named schemas (else a name prefix)
 * @param toolVersion "pg2spanner VERSION", recorded in the plan
 * @param endpoint "host:port/database" of the source (no user, no password)
 * @param schemas the schemas that were asked for (empty: all)
 * @param generatedAt the time recorded in the plan (also "now" for write rates)
 * @param lowWriteInsertsPerSecond a monotonic key is kept when the table's insert rate, measured over a trusted
 *     statistics window, is below this (0 never keeps one); a key whose only evidence is the order of its stored
 *     values is changed only when the rate is known to be at least this
 * @param keyStrategies strategies asked for by name ({@code plan --key-strategy}), by source table "schema.name";
 *     they replace the policy's choice for those (top-level) tables
 * @param interleaveWithoutRenames interleave only children whose key columns already carry the parent's key names
 *     ({@code plan --interleave no-renames}), so no application query needs a renamed column
 * @param dialect the target database's dialect ({@code plan --dialect}): GoogleSQL unless asked
 */
public record PlannerOptions(int nodes, boolean namedSchemas, String toolVersion, String endpoint,
    List<String> schemas, Instant generatedAt, double lowWriteInsertsPerSecond,
    Map<String, KeyStrategy.Kind> keyStrategies, boolean interleaveWithoutRenames,
    dev.pg2spanner.spanner.SpannerDialect dialect) {

  /** Default low-write threshold: one insert per second on average. */
  public static final double DEFAULT_LOW_WRITE_INSERTS_PER_SECOND = 1.0;

  public PlannerOptions {
    if (nodes < 1) {
      throw new IllegalArgumentException("nodes must be at least 1, was " + nodes);
    }
    Objects.requireNonNull(toolVersion, "toolVersion");
    Objects.requireNonNull(endpoint, "endpoint");
    schemas = List.copyOf(schemas);
    Objects.requireNonNull(generatedAt, "generatedAt");
    if (lowWriteInsertsPerSecond < 0 || Double.isNaN(lowWriteInsertsPerSecond)) {
      throw new IllegalArgumentException("the low-write threshold must be 0 or more");
    }
    keyStrategies = Map.copyOf(keyStrategies);
    Objects.requireNonNull(dialect, "dialect");
    if (keyStrategies.containsValue(KeyStrategy.Kind.SYNTHETIC)) {
      throw new IllegalArgumentException("synthetic is chosen by the planner for tables without a primary key; it "
          + "cannot be requested");
    }
  }

  /** Options for a GoogleSQL-dialect database. */
  public PlannerOptions(int nodes, boolean namedSchemas, String toolVersion, String endpoint, List<String> schemas,
      Instant generatedAt, double lowWriteInsertsPerSecond, Map<String, KeyStrategy.Kind> keyStrategies,
      boolean interleaveWithoutRenames) {
    this(nodes, namedSchemas, toolVersion, endpoint, schemas, generatedAt, lowWriteInsertsPerSecond, keyStrategies,
        interleaveWithoutRenames, dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL);
  }

  /** These options for a database in {@code newDialect}. */
  public PlannerOptions withDialect(dev.pg2spanner.spanner.SpannerDialect newDialect) {
    return new PlannerOptions(nodes, namedSchemas, toolVersion, endpoint, schemas, generatedAt,
        lowWriteInsertsPerSecond, keyStrategies, interleaveWithoutRenames, newDialect);
  }

  /** Options that interleave every child that can be (renaming its key columns where needed). */
  public PlannerOptions(int nodes, boolean namedSchemas, String toolVersion, String endpoint, List<String> schemas,
      Instant generatedAt, double lowWriteInsertsPerSecond, Map<String, KeyStrategy.Kind> keyStrategies) {
    this(nodes, namedSchemas, toolVersion, endpoint, schemas, generatedAt, lowWriteInsertsPerSecond, keyStrategies,
        false);
  }

  /** Options with no requested key strategies. */
  public PlannerOptions(int nodes, boolean namedSchemas, String toolVersion, String endpoint, List<String> schemas,
      Instant generatedAt, double lowWriteInsertsPerSecond) {
    this(nodes, namedSchemas, toolVersion, endpoint, schemas, generatedAt, lowWriteInsertsPerSecond, Map.of());
  }

  /** Hash shards for the hash-shard strategy: four per expected node, at least four. */
  public int shards() {
    return Math.max(4, 4 * nodes);
  }
}
