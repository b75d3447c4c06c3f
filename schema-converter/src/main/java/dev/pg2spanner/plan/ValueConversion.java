package dev.pg2spanner.plan;

/**
 * How the loader turns one PostgreSQL value into one Spanner value. For an ARRAY target column this names the
 * conversion of each element. Part of the plan's contract: the loader compiles a converter per column from it
 * once, so adding a constant means teaching the loader (and verify's canonical form) about it.
 */
public enum ValueConversion {
  /** boolean → BOOL. */
  BOOL,
  /** smallint, integer, bigint (and oid-like integers) → INT64. */
  INT64,
  /** real → FLOAT32, bit-exact (NaN, ±Infinity, −0 kept). */
  FLOAT32,
  /** double precision (or real widened) → FLOAT64, bit-exact. */
  FLOAT64,
  /** numeric that fits NUMERIC (precision 38, scale 9) → NUMERIC, exact; a value that does not fit is rejected. */
  NUMERIC,
  /** numeric written as its exact decimal text → STRING (values beyond NUMERIC's range, NaN, ±Infinity). */
  NUMERIC_TEXT,
  /** money → NUMERIC via its numeric value (never through double). */
  MONEY_NUMERIC,
  /** text, varchar, char(n) (blank padding kept), name, citext → STRING, byte-identical. */
  STRING,
  /** bytea → BYTES, byte-identical. */
  BYTES,
  /** date → DATE; infinity and BC dates are rejected unless the plan chose a fallback. */
  DATE,
  /** timestamp with time zone → TIMESTAMP (UTC, microseconds). */
  TIMESTAMP,
  /** timestamp without time zone → TIMESTAMP, the wall-clock value taken as UTC (never via the session zone). */
  TIMESTAMP_WALL_CLOCK_AS_UTC,
  /** json, jsonb → JSON (normalised by Spanner: duplicate keys collapse, numbers may be normalised). */
  JSON,
  /** json kept byte-identical as text → STRING (when duplicate keys or key order matter). */
  JSON_TEXT,
  /** uuid → STRING(36), lower-case canonical text. */
  UUID_TEXT,
  /**
   * smallint, integer, bigint → STRING(36): the version-5 UUID of the value in the column's
   * {@link ColumnPlan#uuidNamespace()} (the {@code uuid} key strategy on an integer key; see {@link KeyUuid}).
   */
  KEY_UUID,
  /** enum label → STRING, checked against the label list. */
  ENUM_TEXT,
  /** interval → STRING in ISO 8601 form ("P1M", "P30D" stay distinct). */
  INTERVAL_ISO8601,
  /** time, timetz → STRING as PostgreSQL prints it ("24:00:00" kept). */
  TIME_TEXT,
  /** bit, varbit → STRING of '0'/'1'. */
  BIT_TEXT,
  /** Any other type PostgreSQL can print: its text output → STRING (inet, cidr, macaddr, xml, tsvector, ranges, geometric types...). */
  TEXT_OUTPUT,
  /** A column the plan adds (synthetic key, shard column): never read from the source. */
  SYNTHETIC
}
