package dev.pg2spanner.catalog;

/**
 * @param scans {@code pg_stat_user_indexes.idx_scan} since statistics were reset, or null when unknown
 * @param bytes the index size
 */
public record PgIndexStats(Long scans, long bytes) {}
