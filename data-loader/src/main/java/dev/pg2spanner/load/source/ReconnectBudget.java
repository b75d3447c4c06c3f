package dev.pg2spanner.load.source;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * How often, and after how long, a long-running process reconnects to the source after its connection broke: the
 * live stream (the change stream from the source) and fallback (its writes to the source) share it. Seven tries in
 * a row, 1, 2, 4, 8, 15, 15 and 15 s apart (about a minute in all), then the caller stops with its own message; a
 * connection that worked for a minute before breaking earns the whole budget again, so a source that breaks once an
 * hour is reconnected every time, and one that is gone stops the process within about a minute. "Worked" means
 * progress, as the caller judges it (a change applied, a position moved): a connection that stays open a minute and
 * then breaks at the same place again is not renewed, so a break that time does not cure still stops the process.
 */
public final class ReconnectBudget {

  /** Consecutive delays before each try: 7 tries over about a minute. */
  public static final long[] DELAYS_MILLIS = {1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000};
  /** A connection that worked this long before breaking earns the whole budget again. */
  public static final long HEALTHY_NANOS = 60_000_000_000L;

  private final LongSupplier clock;
  private int tries;
  private int total;
  private long firstBreak;
  private long opened;

  public ReconnectBudget() {
    this(System::nanoTime);
  }

  /** @param clock nanoseconds, as {@link System#nanoTime} (a test's own clock) */
  ReconnectBudget(LongSupplier clock) {
    this.clock = clock;
    this.opened = clock.getAsLong();
  }

  /**
   * The connection broke (or could not be opened again): the delay before the next try, or -1 when the budget is
   * spent.
   *
   * @param worked true when an open connection broke after making progress; false when it made none, or opening a
   *     new one failed
   */
  public long broke(boolean worked) {
    long now = clock.getAsLong();
    if (worked && now - opened > HEALTHY_NANOS) {
      tries = 0;
    }
    if (tries == 0) {
      firstBreak = now;
    }
    if (tries >= DELAYS_MILLIS.length) {
      return -1;
    }
    long delay = DELAYS_MILLIS[tries];
    tries++;
    total++;
    return delay;
  }

  /** A new connection works: the next break is measured from now. */
  public void opened() {
    opened = clock.getAsLong();
  }

  /** Tries in the current run of breaks. */
  public int tries() {
    return tries;
  }

  /** Tries over the whole process (0: it never broke). */
  public int total() {
    return total;
  }

  /** Seconds since the first break of the current run of breaks. */
  public long secondsSinceFirstBreak() {
    return (clock.getAsLong() - firstBreak) / 1_000_000_000L;
  }

  /** "try 2 of 7, about a minute in all", for the line that says a reconnect is coming. */
  public String describeTry() {
    return "try " + tries + " of " + DELAYS_MILLIS.length + ", about a minute in all";
  }

  /** What the source said when a connection attempt failed, as far as waiting is concerned ({@link #judge}). */
  public enum Failure {
    /** It could not be reached, said to come back, or gave up on a statement: waiting may cure it. */
    TRANSIENT,
    /** It answered, and said no: waiting will not cure it. */
    REFUSED,
    /** Nothing in the failure says which (no SQLState). */
    UNKNOWN
  }

  /**
   * The one rule for whether a failed connection to the source is worth trying again, shared by the live stream and
   * fallback. The first SQLState in the cause chain decides: class 08 (cannot reach, connection lost; but not 08004,
   * the server rejecting the connection), 57P01–57P03 (shut down, crash recovery, starting up), 53300 (too many
   * connections), 57014 (a statement cancelled, e.g. by a timeout) and class 40 (a deadlock or serialization failure)
   * are {@link Failure#TRANSIENT}; any other state is {@link Failure#REFUSED}: a wrong or changed password (28P01), a
   * database that takes no connections (55000), a dropped database (3D000), a revoked privilege (42501), a lock
   * another session holds past lock_timeout (55P03).
   */
  public static Failure judge(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException q && q.getSQLState() != null) {
        String state = q.getSQLState();
        return state.startsWith("08") && !state.equals("08004") || state.matches("57P0[123]")
            || state.equals("53300") || state.equals("57014") || state.startsWith("40")
            ? Failure.TRANSIENT : Failure.REFUSED;
      }
    }
    return Failure.UNKNOWN;
  }

  /**
   * Waits {@code millis}, in short steps so {@code stop} (Ctrl-C) is noticed at once.
   *
   * @return true when the wait ran out; false when {@code stop} said so or the thread was interrupted
   */
  public static boolean await(long millis, BooleanSupplier stop) {
    long until = System.nanoTime() + millis * 1_000_000L;
    while (!stop.getAsBoolean() && System.nanoTime() < until) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !stop.getAsBoolean();
  }
}
