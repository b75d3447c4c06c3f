package dev.pg2spanner.live.stream;

import org.postgresql.replication.LogSequenceNumber;

/**
 * PostgreSQL's WAL positions as the live path holds them: a {@code long} in memory and in comparisons, the server's
 * {@code X/Y} text in files, progress lines, messages and the position table. The one place that converts.
 */
public final class Lsn {

  private Lsn() {}

  /** The server's text for {@code lsn}, e.g. {@code 0/16B3748}. */
  public static String text(long lsn) {
    // The same text as pgjdbc's LogSequenceNumber.asString() (String.format("%X/%X", ...)) without the formatter:
    // the applier names a position for every change it writes (7% of its stream thread's time in a profile).
    return Long.toHexString(lsn >>> 32).toUpperCase(java.util.Locale.ROOT) + "/"
        + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
  }

  /** The position the server's text names (as pgjdbc reads it). */
  public static long parse(String text) {
    return LogSequenceNumber.valueOf(text).asLong();
  }

  /** pgjdbc's form, for its replication API. */
  static LogSequenceNumber of(long lsn) {
    return LogSequenceNumber.valueOf(lsn);
  }
}
