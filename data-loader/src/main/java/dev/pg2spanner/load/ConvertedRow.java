package dev.pg2spanner.load;

import com.google.cloud.spanner.Mutation;
import java.util.Objects;

/**
 * One source row ready for Spanner.
 *
 * @param mutation an insert-or-update of every loaded column (blind and idempotent: a retried or resumed piece
 *     cannot duplicate rows)
 * @param key the row's primary key as printable text, for dead-letter entries and verify diffs
 * @param bytes estimated size of the mutation's values, for commit sizing
 * @param cells number of columns written, for Spanner's mutation-count limit
 */
public record ConvertedRow(Mutation mutation, String key, long bytes, int cells) {
  public ConvertedRow {
    Objects.requireNonNull(mutation, "mutation");
    Objects.requireNonNull(key, "key");
  }
}
