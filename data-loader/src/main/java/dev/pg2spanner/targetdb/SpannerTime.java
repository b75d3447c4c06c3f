package dev.pg2spanner.targetdb;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ReadOnlyTransaction;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;

/** Spanner's own clock. */
public final class SpannerTime {

  private SpannerTime() {}

  /**
   * The timestamp of a strong read: every commit that finished before this call returns is visible at it, so a read
   * at it sees them all (consistent cuts, cutover's barrier, fallback's start).
   */
  public static Timestamp strongTimestamp(DatabaseClient client) {
    try (ReadOnlyTransaction tx = client.singleUseReadOnlyTransaction(TimestampBound.strong());
        ResultSet rs = tx.executeQuery(Statement.of("SELECT 1"))) {
      rs.next();
      return tx.getReadTimestamp();
    }
  }
}
