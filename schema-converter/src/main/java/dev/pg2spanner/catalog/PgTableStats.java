package dev.pg2spanner.catalog;

import java.time.Instant;

/**
 * Size and activity of a table. Unknown values are null (e.g. a table never analyzed has no row estimate).
 *
 * @param rowEstimate {@code pg_class.reltuples} summed over partitions, or null if never analyzed/vacuumed
 * @param pages {@code relpages} summed over partitions
 * @param totalBytes {@code pg_total_relation_size} (table, TOAST and indexes), summed over partitions
 * @param tableBytes {@code pg_table_size} (heap and TOAST, no indexes), summed over partitions
 * @param inserts {@code pg_stat_user_tables.n_tup_ins} since the statistics were reset, or null
 * @param updates {@code n_tup_upd}, or null
 * @param deletes {@code n_tup_del}, or null
 * @param statsSince when the activity counters started ({@code pg_stat_database.stats_reset}, else the
 *     postmaster start time), or null
 * @param lastAnalyzed the later of last_analyze and last_autoanalyze, or null
 */
public record PgTableStats(
    Double rowEstimate,
    long pages,
    long totalBytes,
    long tableBytes,
    Long inserts,
    Long updates,
    Long deletes,
    Instant statsSince,
    Instant lastAnalyzed) {

  public static PgTableStats unknown() {
    return new PgTableStats(null, 0, 0, 0, null, null, null, null, null);
  }
}
