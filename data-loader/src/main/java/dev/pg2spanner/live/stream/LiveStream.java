package dev.pg2spanner.live.stream;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.source.SourceConnector;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change stream of a live run: reads pgoutput messages from the slot, hands them to the {@link ChangeSink} (the
 * applier) in order, and confirms positions to PostgreSQL only once Spanner holds them, so the slot frees WAL behind
 * what is safely applied and nothing not yet applied is ever confirmed (pgjdbc's automatic flush is off for that
 * reason).
 *
 * <p>Positions: after a restart the slot streams from its confirmed position, which may be earlier than what
 * Spanner holds (a crash between a Spanner commit and the confirmation); the applier skips those transactions.
 * When the stream is idle with nothing half received and nothing waiting, everything the server has sent is
 * applied, so its position is confirmed too — the slot then also frees WAL written for other tables.
 */
public final class LiveStream implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LiveStream.class);

  /** How often PostgreSQL hears our position (also keeps the connection alive). */
  private static final int STATUS_INTERVAL_SECONDS = 10;
  /** The longest one {@link #poll} processes messages before it returns. */
  private static final long MAX_POLL_NANOS = 250_000_000L;
  /** Pause when nothing arrived, between polls of the non-blocking stream. */
  private static final long IDLE_SLEEP_MILLIS = 10;

  private final ReplicationStream stream;
  private final ChangeSink applier;
  private long confirmed;
  private boolean caughtUp;

  /**
   * @param confirmed the position the stream starts from: nothing at or before it is confirmed again
   */
  LiveStream(ReplicationStream stream, ChangeSink applier, long confirmed) {
    this.stream = stream;
    this.applier = applier;
    this.confirmed = confirmed;
  }

  /**
   * Starts streaming {@code slot} from {@code startLsn} (the server starts at its confirmed position when that is
   * later).
   *
   * @throws Pg2SpannerException SOURCE_NOT_READY when the slot is missing or streamed by another process
   */
  public static LiveStream open(SourceConnector source, String slot, String publication, long startLsn,
      ChangeSink applier) {
    Connection connection = source.openReplication();
    try {
      applySessionSettings(connection);
      PGReplicationStream stream = connection.unwrap(PGConnection.class).getReplicationAPI().replicationStream()
          .logical()
          .withSlotName(slot)
          .withStartPosition(Lsn.of(startLsn))
          .withSlotOption("proto_version", "1")
          .withSlotOption("publication_names", publication)
          .withSlotOption("messages", "true")
          .withStatusInterval(STATUS_INTERVAL_SECONDS, TimeUnit.SECONDS)
          // Never confirm a position Spanner does not hold yet: we confirm ourselves, after each commit.
          .withAutomaticFlush(false)
          .start();
      return new LiveStream(ReplicationStream.of(connection, stream), applier, startLsn);
    } catch (SQLException e) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // failing anyway
      }
      String message = String.valueOf(e.getMessage());
      if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
        // The connection broke while the stream was starting (a cut, a restart): the source's, not the slot's.
        throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
            "cannot stream the replication slot " + slot
            + ": the connection to the source broke (" + message + "); nothing was lost (the slot keeps what is not "
            + "applied): check the source, then rerun migrate --live --resume", e);
      }
      String why = message.contains("is active for PID")
          ? "it is being streamed by another process (" + message + "); stop that migrate --live first (or wait a "
              + "minute for a killed one's connection to time out)"
          : message.contains("does not exist")
              ? "it does not exist (" + message + "); it was dropped, so the changes since the load are lost to this "
                  + "run: start over with a new run directory and an empty target database"
              : message;
      throw new Pg2SpannerException(ExitCode.SOURCE_NOT_READY, "cannot stream the replication slot " + slot + ": "
          + why, e);
    }
  }

  /**
   * The session settings the value parsers rely on, as SQL SET commands (a walsender takes them; pgjdbc overrides
   * TimeZone given in the startup options, so SET is the one way that works).
   */
  static void applySessionSettings(Connection replication) throws SQLException {
    try (Statement s = replication.createStatement()) {
      for (String setting : SnapshotSession.SESSION_SETTINGS.split("; ")) {
        if (!setting.contains("statement_timeout") && !setting.contains("lock_timeout")
            && !setting.contains("idle_in_transaction")) {
          s.execute(setting);
        }
      }
    }
  }

  /**
   * Processes what has arrived, until nothing waits or {@code stop} says so; then commits what waits.
   *
   * @return true when at least one message was processed
   */
  public boolean poll(BooleanSupplier stop) {
    boolean any = false;
    long until = System.nanoTime() + MAX_POLL_NANOS;
    try {
      ByteBuffer message;
      // Bounded, so a stream that never runs dry still lets progress be reported and stops be noticed.
      while (!stop.getAsBoolean() && System.nanoTime() < until && (message = stream.readPending()) != null) {
        any = true;
        caughtUp = false;
        applier.accept(PgOutput.decode(message));
        confirmApplied();
      }
      if (!any) {
        idle();
      }
      return any;
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
          "the change stream from the source broke ("
          + e.getMessage() + "); nothing was lost (the slot keeps what is not applied): rerun migrate --live "
          + "--resume", e);
    }
  }

  /**
   * Runs {@link #poll} until {@code stop}, sleeping briefly when idle. A stop in the middle of a source transaction
   * commits what is applied of it as a partial position (as a transaction too big for one commit is written), so a
   * stop is prompt whatever the transaction's size and a resume replays that transaction whole.
   */
  public void run(BooleanSupplier stop, Runnable everyPoll) throws InterruptedException {
    while (!stop.getAsBoolean()) {
      boolean any = poll(stop);
      everyPoll.run();
      if (!any) {
        Thread.sleep(IDLE_SLEEP_MILLIS);
      }
    }
    applier.flush();
    confirmApplied();
    forceStatus();
  }

  /** The stream had nothing: commit what waits; if nothing is half done, all the server sent is applied. */
  private void idle() throws SQLException {
    applier.idle();
    confirmApplied();
    if (!applier.inTransaction()) {
      long received = stream.lastReceiveLsn();
      applier.caughtUp(received);
      if (received > confirmed) {
        confirm(received);
      }
      caughtUp = true;
    }
  }

  private void confirmApplied() {
    long applied = applier.appliedEndLsn();
    if (applied > confirmed) {
      confirm(applied);
    }
  }

  private void confirm(long lsn) {
    stream.confirm(lsn);
    confirmed = lsn;
  }

  /** Sends our position now (before closing, so the slot frees what is applied). */
  void forceStatus() {
    try {
      stream.forceStatus();
    } catch (SQLException e) {
      LOG.debug("Sending the final position failed: {}", e.getMessage());
    }
  }


  /** The end of the last message the server sent (its keepalives carry its position too). */
  public long received() {
    return stream.lastReceiveLsn();
  }

  /** The position confirmed to the source. */
  public long confirmed() {
    return confirmed;
  }

  /** True when the last poll found nothing waiting and nothing half received: all sent is applied. */
  public boolean caughtUp() {
    return caughtUp;
  }


  @Override
  public void close() {
    forceStatus();
    stream.close();
  }
}
