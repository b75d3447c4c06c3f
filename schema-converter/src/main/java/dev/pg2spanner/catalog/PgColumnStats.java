package dev.pg2spanner.catalog;

/**
 * {@code pg_stats} for one column (for a partitioned table, the parent's inherited statistics when present).
 *
 * @param nullFraction {@code null_frac}
 * @param distinct {@code n_distinct} (negative: a fraction of the row count)
 * @param correlation {@code correlation}: near ±1 when physical order follows the value (monotonic inserts); null
 *     when not computed (e.g. arrays, non-orderable types)
 * @param averageWidth {@code avg_width} in bytes
 */
public record PgColumnStats(double nullFraction, double distinct, Double correlation, int averageWidth) {}
