package dev.pg2spanner.verify;

import java.util.List;
import java.util.Objects;

/**
 * The verdict for one table.
 *
 * @param table the plan's target table name
 * @param sourceRows rows read from the source
 * @param targetRows rows read from Spanner
 * @param sourceChecksum sum of the source's 128-bit row hashes mod 2^128, 32 hex digits
 * @param targetChecksum the same over the target's rows
 * @param differingKeys empty when the table matches; else at most {@link Verifier#MAX_DIFFERING_KEYS} entries
 *     "missing in target: KEY", "extra in target: KEY" or "different: KEY", sorted by key text (keys longer than
 *     {@link Verifier#MAX_KEY_CHARS} characters are cut with "…")
 */
public record TableVerification(String table, long sourceRows, long targetRows, String sourceChecksum,
    String targetChecksum, List<String> differingKeys) {

  public TableVerification {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(sourceChecksum, "sourceChecksum");
    Objects.requireNonNull(targetChecksum, "targetChecksum");
    differingKeys = List.copyOf(differingKeys);
  }

  /** True when both sides have the same number of rows and the same checksum. */
  public boolean matches() {
    return sourceRows == targetRows && sourceChecksum.equals(targetChecksum);
  }
}
