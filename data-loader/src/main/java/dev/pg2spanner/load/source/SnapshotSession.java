package dev.pg2spanner.load.source;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.source.SourceConnector;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import org.postgresql.PGConnection;

/**
 * One exported snapshot shared by every reader, so the copy is consistent while the source keeps taking writes.
 * The coordinator connection runs {@code REPEATABLE READ READ ONLY}, exports its snapshot with
 * {@code pg_export_snapshot()} and keeps that transaction open until {@link #close()}: the snapshot can be imported
 * only while it is. Each reader imports it with {@code SET TRANSACTION SNAPSHOT}, so all of them see the database
 * exactly as of that moment.
 *
 * <p>Every connection gets the same session settings, which the value parsers rely on: UTC, ISO dates, ISO 8601
 * intervals, shortest-exact float text, hex bytea; no statement or idle timeout (a piece may take long, and the
 * coordinator idles in its transaction for the whole load); a short lock timeout, so a reader never queues for ever
 * behind DDL (and, queued, never blocks the application's queries behind it); {@code row_security = off}, so a read
 * that a row-level security policy would filter fails instead of returning fewer rows (as pg_dump does), unless the
 * session was opened for a filtered copy the user accepted. Server-side prepared statements are turned off on
 * readers so pgjdbc always receives text results and no value takes its binary path.
 *
 * <p>Not thread-safe for {@link #close()} racing {@link #openReader()}; opening readers from several threads is fine.
 */
public final class SnapshotSession implements AutoCloseable {

  /** How long a reader waits for a table lock before failing the piece (DDL holding or queued on the table). */
  public static final String LOCK_TIMEOUT = "5s";

  /**
   * The settings of every source session whose text the converters parse: snapshot readers, and (as far as a
   * replication connection takes them) the logical replication stream. {@code row_security = off} makes a read
   * that row-level security would filter fail rather than silently return fewer rows; it changes nothing for a
   * superuser, a BYPASSRLS role or the owner of a table whose policies are not forced.
   */
  public static final String SESSION_SETTINGS = String.join("; ",
      "SET TimeZone = 'UTC'",
      "SET DateStyle = 'ISO, YMD'",
      "SET IntervalStyle = 'iso_8601'",
      "SET extra_float_digits = 3",
      "SET statement_timeout = 0",
      "SET idle_in_transaction_session_timeout = 0",
      "SET lock_timeout = '" + LOCK_TIMEOUT + "'",
      "SET application_name = 'pg2spanner migrate'",
      "SET bytea_output = 'hex'",
      // money's text output (logical replication sends it) depends on the locale; C prints $1,234.56.
      "SET lc_monetary = 'C'",
      "SET row_security = off");

  /**
   * {@link #SESSION_SETTINGS} for one transaction only ({@code SET LOCAL}), for a connection that is not the loader's
   * own: plan's {@link ConversionProbe} reads values in the text forms the converters parse, then leaves the session as
   * it was.
   */
  public static final String TRANSACTION_SETTINGS = SESSION_SETTINGS.replace("SET ", "SET LOCAL ");

  private static final String SNAPSHOT_TRANSACTION = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY";

  private final SourceConnector source;
  private final Connection coordinator;
  private final String snapshotId;
  private final boolean applyRowSecurity;

  private SnapshotSession(SourceConnector source, Connection coordinator, String snapshotId,
      boolean applyRowSecurity) {
    this.source = source;
    this.coordinator = coordinator;
    this.snapshotId = snapshotId;
    this.applyRowSecurity = applyRowSecurity;
  }

  /**
   * Opens the coordinator connection, starts its transaction and exports the snapshot. A read that row-level security
   * would filter fails.
   *
   * @throws Pg2SpannerException SOURCE_CONNECTION when PostgreSQL cannot be reached or refuses the snapshot
   */
  public static SnapshotSession open(SourceConnector source) {
    return open(source, false);
  }

  /**
   * Opens the coordinator connection, starts its transaction and exports the snapshot.
   *
   * @param applyRowSecurity true to read only the rows row-level security lets this role see (a filtered copy the
   *     user accepted, or verify comparing that filtered view); false to make such a read fail
   * @throws Pg2SpannerException SOURCE_CONNECTION when PostgreSQL cannot be reached or refuses the snapshot
   */
  public static SnapshotSession open(SourceConnector source, boolean applyRowSecurity) {
    Objects.requireNonNull(source, "source");
    Connection connection = source.open();
    try {
      prepare(connection, applyRowSecurity);
      try (Statement statement = connection.createStatement()) {
        statement.execute(SNAPSHOT_TRANSACTION);
        try (ResultSet rs = statement.executeQuery("SELECT pg_export_snapshot() AS snapshot_id")) {
          rs.next();
          return new SnapshotSession(source, connection, rs.getString("snapshot_id"), applyRowSecurity);
        }
      }
    } catch (SQLException e) {
      closeQuietly(connection);
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot start a consistent snapshot on PostgreSQL "
          + "at " + source.config().endpoint() + " (" + firstLine(e) + "); check that the server is reachable and "
          + "not in recovery without hot_standby, then run migrate again", e);
    } catch (RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  /**
   * Opens the coordinator inside a snapshot another session exported — a logical replication slot's, so the load
   * reads exactly the state the slot's change stream starts after — and exports it again: a slot's snapshot can
   * be imported only until its replication connection runs another command, this one for as long as this session
   * is open.
   *
   * @param snapshotName the name {@code CREATE_REPLICATION_SLOT} returned
   * @throws Pg2SpannerException SOURCE_CONNECTION when the snapshot can no longer be imported
   */
  public static SnapshotSession importing(SourceConnector source, String snapshotName) {
    Objects.requireNonNull(source, "source");
    Connection connection = source.open();
    try {
      // A live run streams every row (logical replication ignores row-level security), so its load must read them
      // all too: never a filtered read.
      prepare(connection, false);
      try (Statement statement = connection.createStatement()) {
        statement.execute(SNAPSHOT_TRANSACTION);
        statement.execute("SET TRANSACTION SNAPSHOT " + PgNames.literal(snapshotName));
        try (ResultSet rs = statement.executeQuery("SELECT pg_export_snapshot() AS snapshot_id")) {
          rs.next();
          return new SnapshotSession(source, connection, rs.getString("snapshot_id"), false);
        }
      }
    } catch (SQLException e) {
      closeQuietly(connection);
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot import the replication slot's snapshot "
          + snapshotName + " on PostgreSQL at " + source.config().endpoint() + " (" + firstLine(e) + ")", e);
    } catch (RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  /** The source this session reads. */
  public SourceConnector source() {
    return source;
  }

  /** The exported snapshot's id, as {@code SET TRANSACTION SNAPSHOT} takes it. */
  public String snapshotId() {
    return snapshotId;
  }

  /**
   * The exporting connection, inside the snapshot transaction (auto-commit off): for catalog queries that must see
   * the same state as the readers, such as {@link PiecePlanner#cut}. Do not commit or close it; {@link #close()}
   * does.
   */
  public Connection coordinator() {
    return coordinator;
  }

  /**
   * A new connection with the session settings, inside a {@code REPEATABLE READ READ ONLY} transaction that has
   * imported the snapshot (auto-commit off). The caller closes it; it stays valid after this session closes, but
   * must be opened before.
   *
   * @throws Pg2SpannerException SOURCE_CONNECTION when the connection or the snapshot import fails
   */
  public Connection openReader() {
    Connection connection = source.open();
    try {
      prepare(connection, applyRowSecurity);
      connection.unwrap(PGConnection.class).setPrepareThreshold(0);
      try (Statement statement = connection.createStatement()) {
        statement.execute(SNAPSHOT_TRANSACTION);
        statement.execute("SET TRANSACTION SNAPSHOT " + PgNames.literal(snapshotId));
      }
      return connection;
    } catch (SQLException e) {
      closeQuietly(connection);
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot open a reader on snapshot " + snapshotId
          + " at " + source.config().endpoint() + " (" + firstLine(e) + "); the exporting transaction must still be "
          + "open, and the server must allow one more connection (max_connections)", e);
    }
  }

  /** Session settings, then auto-commit off so the next statement starts the transaction. */
  private static void prepare(Connection connection, boolean applyRowSecurity) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(SESSION_SETTINGS);
      if (applyRowSecurity) {
        statement.execute("SET row_security = on");
      }
    }
    connection.setAutoCommit(false);
  }

  /** Ends the snapshot transaction and closes the coordinator; readers already open keep their snapshot. */
  @Override
  public void close() {
    try {
      if (!coordinator.isClosed()) {
        coordinator.rollback();
      }
    } catch (SQLException e) {
      // The connection is going away either way; a failed rollback of a read-only transaction loses nothing.
    } finally {
      closeQuietly(coordinator);
    }
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // Nothing to do: the server ends the session (and its transaction) when the socket closes.
    }
  }

  private static String firstLine(SQLException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }
}
