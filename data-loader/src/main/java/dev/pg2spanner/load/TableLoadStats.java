package dev.pg2spanner.load;

import java.time.Duration;
import java.util.Objects;

/**
 * What one run loaded into one table (pieces skipped because an earlier run finished them are not counted).
 *
 * @param table the target table
 * @param rows rows committed
 * @param bytes estimated bytes committed ({@link ConvertedRow#bytes()})
 * @param rejected rows sent to the dead-letter file (by the source or by Spanner)
 * @param busy worker time spent on the table's pieces, summed over workers
 */
public record TableLoadStats(String table, long rows, long bytes, long rejected, Duration busy) {
  public TableLoadStats {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(busy, "busy");
  }
}
