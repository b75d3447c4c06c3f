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
    return LogSequenceNumber.valueOf(lsn).asString();
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
