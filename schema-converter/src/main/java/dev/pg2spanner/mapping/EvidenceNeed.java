package dev.pg2spanner.mapping;

/**
 * What a column's values must show before its mapping is final. Each need is answered by a few aggregate facts
 * ({@link ColumnEvidence} names them) that {@link EvidenceCollector} computes in one query per table. For an
 * array column the value needs (NUMERIC_FIT, TEMPORAL_RANGE, JSON_DEPTH) are computed over its elements.
 */
public enum EvidenceNeed {
  /** Nothing to look at: the catalog alone decides. */
  NONE,
  /** numeric: NaN / ±Infinity counts, values with more than 29 integer or 9 significant fractional digits. */
  NUMERIC_FIT,
  /** date, timestamp, timestamptz: ±infinity, BC, and after-9999 counts (timestamptz taken in UTC). */
  TEMPORAL_RANGE,
  /** unbounded text and bytea: the largest value and the count of values over Spanner's 10 MiB cell limit. */
  TEXT_SIZE,
  /** arrays: values with more than one dimension, and values whose lower bound is not 1. */
  ARRAY_DIMENSIONS,
  /** jsonb: documents nested deeper than Spanner allows, larger than 10 MiB, or with numbers Spanner rejects. */
  JSON_DEPTH
}
