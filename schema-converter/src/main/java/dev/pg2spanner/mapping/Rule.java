package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.spanner.SpannerDialect;

/**
 * One entry's behaviour in the type table: the catalog-only mapping, and how evidence changes it.
 * Implementations are small named records; {@link TypeMapper} holds the one table that keys them by type name.
 */
interface Rule {

  /** One line for the table snapshot and the docs: what the rule does and why. */
  String describe();

  /**
   * The catalog-only mapping of a scalar (non-array) type this rule owns.
   *
   * @param dialect the target database's dialect: what its types hold, and how the notes spell them
   */
  TypeMapping map(PgType type, SpannerDialect dialect);

  /**
   * The final mapping once values were examined.
   *
   * @param first what {@link #map} returned for this type
   * @param evidence the facts, or null when they were not collected
   * @param dialect as for {@link #map}
   */
  default TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence, SpannerDialect dialect) {
    return ValueLimits.refine(first, evidence, dialect);
  }
}
