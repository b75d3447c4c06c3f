package dev.pg2spanner.source;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.preflight.TableLocks;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A PostgreSQL failure while a command reads a source table, as the expected failure it is: the source's normal
 * operation (another session's lock, a cancelled statement, a lost connection, a server shutting down, a missing
 * privilege) is never an internal error. Each gets its documented exit code and a message that names the table, what
 * happened and the next step; a lock names the lock and, as far as PostgreSQL can tell ({@code pg_locks}), the
 * sessions that hold it or wait for it.
 */
public final class SourceErrors {

  /** How a failure finds the sessions that block readers of a table; {@link #NONE} when it cannot look. */
  @FunctionalInterface
  public interface Blockers {
    /** The sessions holding or waiting for ACCESS EXCLUSIVE on {@code relation} ("schema.name"). */
    List<TableLocks.Holder> on(String relation) throws SQLException;
  }

  /** Looks nothing up (the message then says a lock without naming its holder). */
  public static final Blockers NONE = relation -> List.of();

  private SourceErrors() {}

  /** Looks the blockers up on a new connection of {@code source} (the failed one is in an aborted transaction). */
  public static Blockers lookingUp(SourceConnector source) {
    return relation -> {
      try (Connection c = source.open()) {
        return TableLocks.onRelation(c, relation);
      }
    };
  }

  /**
   * The failure of reading {@code relation} as a {@link Pg2SpannerException}.
   *
   * @param relation the source table or partition read, "schema.name"
   * @param command what was reading, for the message: "verify", "migrate"
   * @param nextStep what to do once the cause is gone, e.g. "run verify again", "rerun with --resume", and whether
   *     that continues the run
   * @param lockWait how long the reader waited for a lock (its {@code lock_timeout}), for the message
   */
  public static Pg2SpannerException reading(SQLException e, String relation, String command, WayOn nextStep,
      String lockWait, Blockers blockers) {
    return reading(e, relation, "", command, nextStep, lockWait, blockers);
  }

  /**
   * As {@link #reading(SQLException, String, String, WayOn, String, Blockers)}, with {@code detail} written after
   * the relation's name (e.g. " (piece orders#3)").
   */
  public static Pg2SpannerException reading(SQLException e, String relation, String detail, String command,
      WayOn nextStep, String lockWait, Blockers blockers) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String reason = firstLine(e.getMessage());
    if (state.equals("55P03")) {
      List<TableLocks.Holder> who;
      try {
        who = blockers.on(relation);
      } catch (SQLException | RuntimeException lookup) {
        who = List.of();
      }
      boolean waiting = who.stream().anyMatch(TableLocks.Holder::waiting);
      String pids = who.stream().filter(h -> h.pid() != null).map(h -> String.valueOf(h.pid())).distinct()
          .collect(Collectors.joining(", "));
      return new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, nextStep.next(), command + " could not read "
          + relation + detail + ": " + (who.isEmpty() ? "another session held or waited for an ACCESS EXCLUSIVE lock on it (ALTER TABLE, "
              + "TRUNCATE, DROP, VACUUM FULL, CLUSTER or LOCK TABLE; it was gone before it could be named)"
              : "another session holds or waits for an ACCESS EXCLUSIVE lock on it: " + who.stream()
                  .map(TableLocks.Holder::describe).collect(Collectors.joining("; ")))
          + ". PostgreSQL makes every reader wait behind that lock, and " + command + " waited " + lockWait
          + " (lock_timeout) before it stopped. "
          + (waiting ? "A session that waits for the lock waits for " + command + "'s own snapshot, which reads the "
              + "table, so it could not finish first. " : "")
          + "Let " + (who.size() == 1 ? "that session" : "those sessions") + " finish"
          + (pids.isEmpty() ? "" : " (or end " + (who.size() == 1 ? "it" : "them") + ": SELECT pg_cancel_backend("
              + pids.replace(", ", "), pg_cancel_backend(") + "))") + ", then " + nextStep.words(), e);
    }
    if (state.equals("42501")) {
      return new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, nextStep.next(), command + " could not read "
          + relation + detail + " (" + reason + "): this role may not read all of it; run pg2spanner check for what "
          + "is missing, then " + nextStep.words(), e);
    }
    String what;
    if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
      what = "the connection to PostgreSQL was lost or the server is shutting down (" + reason + "); check that the "
          + "server is up";
    } else if (state.equals("57014")) {
      what = "PostgreSQL cancelled the statement (" + reason + "): a statement_timeout, or another session ran "
          + "pg_cancel_backend on it";
    } else if (state.equals("40001") || state.equals("40P01")) {
      what = "PostgreSQL ended the transaction (" + reason + ")";
    } else if (state.startsWith("53")) {
      what = "PostgreSQL ran out of a resource (" + reason + "): disk, memory or connections";
    } else {
      what = "PostgreSQL failed (" + (state.isEmpty() ? "" : "SQLSTATE " + state + ": ") + reason + ")";
    }
    return new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, nextStep.next(), command + " could not read "
        + relation + detail + ": " + what + ". Then " + nextStep.words(), e);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }
}
