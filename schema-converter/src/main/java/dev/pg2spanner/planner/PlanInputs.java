package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.mapping.ColumnEvidence;
import java.util.Map;
import java.util.Objects;

/**
 * Everything read from the source that the planner decides from.
 *
 * @param catalog the catalog
 * @param evidence per table ("schema.name") and column: examined values for the type mapping
 * @param samples per table: key and index-leading columns in arrival order (hotspot evidence, write skew)
 * @param keyRanges per table: min and max of the first primary-key column when it is an integer (skip ranges)
 */
public record PlanInputs(PgCatalog catalog, Map<String, Map<String, ColumnEvidence>> evidence,
    Map<String, KeySample> samples, Map<String, KeyRange> keyRanges) {

  /** The smallest and largest value of an integer key column. */
  public record KeyRange(long min, long max) {}

  public PlanInputs {
    Objects.requireNonNull(catalog, "catalog");
    evidence = Map.copyOf(evidence);
    samples = Map.copyOf(samples);
    keyRanges = Map.copyOf(keyRanges);
  }
}
