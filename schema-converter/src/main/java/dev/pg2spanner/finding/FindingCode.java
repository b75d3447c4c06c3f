package dev.pg2spanner.finding;

/**
 * Every kind of finding, with its default severity. Codes are part of
 * report.json's stable contract: add new ones, never rename or remove one.
 */
public enum FindingCode {
  HOTSPOT_KEY(Severity.WARNING),
  MONOTONIC_INDEX(Severity.WARNING),
  NO_PRIMARY_KEY(Severity.WARNING),
  INTERLEAVE_CANDIDATE(Severity.INFO),
  NOT_INTERLEAVED(Severity.INFO),
  LOSSY_TYPE(Severity.WARNING),
  UNSUPPORTED_TYPE(Severity.ERROR),
  NOT_MIGRATED(Severity.WARNING),
  NAME_CHANGED(Severity.INFO),
  UNUSED_INDEX(Severity.INFO),
  DEFAULT_NOT_TRANSLATED(Severity.WARNING),
  CHECK_NOT_TRANSLATED(Severity.WARNING),
  FOREIGN_KEY_CHANGED(Severity.WARNING),
  INDEX_CHANGED(Severity.WARNING),
  KEY_LIMIT(Severity.ERROR),
  LOW_WRITE_RATE(Severity.INFO),
  KEY_STRATEGY_REQUESTED(Severity.INFO),
  KEY_REMAPPED(Severity.WARNING),
  STATISTICS_MISSING(Severity.INFO),
  PARTITIONED_TABLE(Severity.INFO),
  INHERITANCE(Severity.WARNING),
  ROWS_NOT_VISIBLE(Severity.ERROR),
  /**
   * A key or index column whose values are stored in ascending (or descending) order but that nothing generates: kept,
   * because a natural key bulk-loaded in order looks the same; warning while the insert rate is unknown, info when a
   * trusted statistics window shows it low.
   */
  ORDERED_KEY_KEPT(Severity.WARNING);

  private final Severity defaultSeverity;
  FindingCode(Severity defaultSeverity) {
    this.defaultSeverity = defaultSeverity;
  }

  public Severity defaultSeverity() {
    return defaultSeverity;
  }
}
