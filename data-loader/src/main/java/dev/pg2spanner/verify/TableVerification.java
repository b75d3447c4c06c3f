package dev.pg2spanner.verify;

import java.util.List;
import java.util.Objects;

/**
 * The verdict for one table.
 *
 * @param table the plan's target table name
 * @param sourceRows source rows compared (read and converted, not left out)
 * @param targetRows rows read from Spanner
 * @param sourceChecksum sum of the compared source rows' 128-bit row hashes mod 2^128, 32 hex digits
 * @param targetChecksum the same over the target's rows
 * @param differingKeys empty when the table matches; else at most {@link Verifier#MAX_DIFFERING_KEYS} entries
 *     "not convertible, in no dead-letter file: KEY (why)", "missing in target: KEY", "extra in target: KEY" or
 *     "different: KEY", the first kind first, then sorted by key text (keys longer than
 *     {@link Verifier#MAX_KEY_CHARS} characters are cut with "…")
 * @param leftOut source rows not compared because the run's dead-letter file lists them (accounted for there)
 * @param unconverted source rows the converter refused that no dead-letter file lists: missing in the target with
 *     nobody accounting for them, so the table does not match
 */
public record TableVerification(String table, long sourceRows, long targetRows, String sourceChecksum,
    String targetChecksum, List<String> differingKeys, long leftOut, long unconverted) {

  public TableVerification {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(sourceChecksum, "sourceChecksum");
    Objects.requireNonNull(targetChecksum, "targetChecksum");
    differingKeys = List.copyOf(differingKeys);
    if (leftOut < 0 || unconverted < 0) {
      throw new IllegalArgumentException("negative counts for " + table);
    }
  }

  /** A verdict in which every source row was compared. */
  public TableVerification(String table, long sourceRows, long targetRows, String sourceChecksum,
      String targetChecksum, List<String> differingKeys) {
    this(table, sourceRows, targetRows, sourceChecksum, targetChecksum, differingKeys, 0, 0);
  }

  /** Every source row read: compared, left out, or not convertible. */
  public long sourceRowsRead() {
    return sourceRows + leftOut + unconverted;
  }

  /**
   * True when both sides have the same number of rows and the same checksum, and every source row that was not
   * compared is accounted for by the dead-letter file.
   */
  public boolean matches() {
    return unconverted == 0 && sourceRows == targetRows && sourceChecksum.equals(targetChecksum);
  }
}
