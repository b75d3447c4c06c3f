package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;

/**
 * One entry's behaviour in the type table: the catalog-only mapping, and how evidence changes it.
 * Implementations are small named records; {@link TypeMapper} holds the one table that keys them by type name.
 */
interface Rule {

  /** One line for the table snapshot and the docs: what the rule does and why. */
  String describe();

  /** The catalog-only mapping of a scalar (non-array) type this rule owns. */
  TypeMapping map(PgType type);

  /**
   * The final mapping once values were examined.
   *
   * @param first what {@link #map} returned for this type
   * @param evidence the facts, or null when they were not collected
   */
  default TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence) {
    return ValueLimits.refine(first, evidence);
  }
}
