package dev.pg2spanner.finding;

/**
 * Every kind of finding, with its default severity and a one-line title for reports. Codes are part of
 * report.json's stable contract: add new ones, never rename or remove one.
 */
public enum FindingCode {
  HOTSPOT_KEY(Severity.WARNING, "Primary key would hotspot"),
  MONOTONIC_INDEX(Severity.WARNING, "Secondary index leads with a monotonic column"),
  NO_PRIMARY_KEY(Severity.WARNING, "Table has no primary key"),
  INTERLEAVE_CANDIDATE(Severity.INFO, "Child table can be interleaved in its parent"),
  NOT_INTERLEAVED(Severity.INFO, "Child table is not interleaved"),
  LOSSY_TYPE(Severity.WARNING, "Values change representation or may not fit"),
  UNSUPPORTED_TYPE(Severity.ERROR, "Type has no Spanner equivalent"),
  NOT_MIGRATED(Severity.WARNING, "Object is not migrated"),
  NAME_CHANGED(Severity.INFO, "Name changed for Spanner"),
  UNUSED_INDEX(Severity.INFO, "Index never used: candidate for pruning"),
  DEFAULT_NOT_TRANSLATED(Severity.WARNING, "Column default cannot be expressed in Spanner"),
  CHECK_NOT_TRANSLATED(Severity.WARNING, "CHECK constraint cannot be expressed in Spanner"),
  FOREIGN_KEY_CHANGED(Severity.WARNING, "Foreign key action changed"),
  INDEX_CHANGED(Severity.WARNING, "Index changed or dropped for Spanner"),
  KEY_LIMIT(Severity.ERROR, "Key exceeds a Spanner limit"),
  LOW_WRITE_RATE(Severity.INFO, "Low write rate: key kept"),
  KEY_STRATEGY_REQUESTED(Severity.INFO, "Key strategy chosen with --key-strategy"),
  KEY_REMAPPED(Severity.WARNING, "Integer key values become UUIDs"),
  STATISTICS_MISSING(Severity.INFO, "Statistics missing: evidence incomplete"),
  PARTITIONED_TABLE(Severity.INFO, "Partitioned table migrates as one table"),
  INHERITANCE(Severity.WARNING, "Table uses inheritance: parent read with ONLY");

  private final Severity defaultSeverity;
  private final String title;

  FindingCode(Severity defaultSeverity, String title) {
    this.defaultSeverity = defaultSeverity;
    this.title = title;
  }

  public Severity defaultSeverity() {
    return defaultSeverity;
  }

  public String title() {
    return title;
  }
}
