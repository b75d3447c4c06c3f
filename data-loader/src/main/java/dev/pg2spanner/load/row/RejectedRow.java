package dev.pg2spanner.load.row;

import java.util.Objects;

/**
 * A row that could not be loaded, as written to the dead-letter file.
 *
 * @param table the target table
 * @param key the row's key as printable text (or its ctid when the key itself is the problem)
 * @param column the offending column, or null when the whole row was rejected (e.g. by Spanner)
 * @param valueExcerpt at most 200 characters of the offending value, or null
 * @param reason why, in one sentence
 */
public record RejectedRow(String table, String key, String column, String valueExcerpt, String reason) {
  public RejectedRow {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reason, "reason");
  }
}
