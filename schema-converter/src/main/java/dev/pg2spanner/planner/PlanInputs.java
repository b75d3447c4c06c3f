package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.mapping.ColumnEvidence;
import dev.pg2spanner.mapping.ProbedValues;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything read from the source that the planner decides from.
 *
 * @param catalog the catalog
 * @param evidence per table ("schema.name") and column: examined values for the type mapping
 * @param samples per table: key and index-leading columns in arrival order (hotspot evidence, write skew)
 * @param keyRanges per table: min and max of the first primary-key column when it is an integer (skip ranges)
 * @param probes per table and column: what the load's converter did with the values, once per type tried
 *     ({@link ValueProbe}); none for a column that was not probed
 * @param keyBytes per table: the longest key in bytes of its primary key ({@link KeyBytes#PRIMARY_KEY}) and of each
 *     index (by source name), measured from the data; none for a key that was not measured
 */
public record PlanInputs(PgCatalog catalog, Map<String, Map<String, ColumnEvidence>> evidence,
    Map<String, KeySample> samples, Map<String, KeyRange> keyRanges,
    Map<String, Map<String, List<ProbedValues>>> probes, Map<String, Map<String, Long>> keyBytes) {

  /** The smallest and largest value of an integer key column. */
  public record KeyRange(long min, long max) {}

  public PlanInputs {
    Objects.requireNonNull(catalog, "catalog");
    evidence = Map.copyOf(evidence);
    samples = Map.copyOf(samples);
    keyRanges = Map.copyOf(keyRanges);
    probes = Map.copyOf(probes);
    keyBytes = Map.copyOf(keyBytes);
  }

  /** Inputs without probes: the values were examined by the aggregate evidence only. */
  public PlanInputs(PgCatalog catalog, Map<String, Map<String, ColumnEvidence>> evidence,
      Map<String, KeySample> samples, Map<String, KeyRange> keyRanges) {
    this(catalog, evidence, samples, keyRanges, Map.of(), Map.of());
  }

  /** These inputs with {@code probes} in place of the ones they had. */
  public PlanInputs withProbes(Map<String, Map<String, List<ProbedValues>>> probes) {
    return new PlanInputs(catalog, evidence, samples, keyRanges, probes, keyBytes);
  }

  /** These inputs with {@code catalog} in place of the one they had. */
  public PlanInputs withCatalog(PgCatalog catalog) {
    return new PlanInputs(catalog, evidence, samples, keyRanges, probes, keyBytes);
  }
}
