package dev.pg2spanner.schema;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The connections Flyway opens, closed by {@link #closeAll()} after each Flyway call: when its first query fails
 * (an unreachable emulator) Flyway leaves the connection it opened, and the Spanner JDBC driver then reports a
 * {@code LeakedConnectionException} with a stack trace from a finaliser, long after the run has said what failed.
 * Every connection is opened within {@link #OPEN_BOUND} ({@link #openWithin}).
 */
final class TrackedDataSource implements DataSource {

  /**
   * How long opening one JDBC connection to Spanner may take. The driver waits without a deadline for the emulator
   * to create its instance and database ({@code autoConfigEmulator}); an emulator that dies at that moment left
   * migrate waiting for good (seen: 26 minutes, until killed).
   */
  static final Duration OPEN_BOUND = Duration.ofSeconds(60);

  private final String url;
  private final Duration bound;
  private final List<Connection> opened = new ArrayList<>();

  TrackedDataSource(String url) {
    this(url, OPEN_BOUND);
  }

  TrackedDataSource(String url, Duration bound) {
    this.url = url;
    this.bound = bound;
  }

  @Override
  public synchronized Connection getConnection() throws SQLException {
    Connection c = openWithin(url, bound);
    opened.add(c);
    return c;
  }

  /**
   * Opens a connection to {@code url}, or fails once {@code bound} has passed without one; a connection that arrives
   * later is closed as it arrives. The attempt runs on a daemon thread (the driver's wait cannot be cut short).
   *
   * @throws SQLException SQLState 08001 when no connection came within the bound; the driver's own failure otherwise
   */
  static Connection openWithin(String url, Duration bound) throws SQLException {
    CompletableFuture<Connection> result = new CompletableFuture<>();
    Thread opener = new Thread(() -> {
      try {
        Connection c = DriverManager.getConnection(url);
        if (!result.complete(c)) {
          closeQuietly(c); // the caller stopped waiting
        }
      } catch (Throwable t) {
        result.completeExceptionally(t);
      }
    }, "spanner-jdbc-open");
    opener.setDaemon(true);
    opener.start();
    try {
      return result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      if (result.completeExceptionally(e)) {
        opener.interrupt();
        throw new SQLException("Spanner did not open a connection within " + bound.toSeconds() + " s (the emulator or "
            + "the network may be down)", "08001", e);
      }
      return result.join(); // it arrived just now
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      result.completeExceptionally(e);
      opener.interrupt();
      throw new SQLException("interrupted while opening a connection to Spanner", "08001", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SQLException sql) {
        throw sql;
      }
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new SQLException("cannot open a connection to Spanner: " + e.getCause(), "08001", e.getCause());
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      // best effort: nobody uses it
    }
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return getConnection();
  }

  /** Closes every connection opened so far; a connection that fails to close is dropped all the same. */
  synchronized void closeAll() {
    for (Connection c : opened) {
      closeQuietly(c); // the target may be gone
    }
    opened.clear();
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {
    // no log writer
  }

  @Override
  public void setLoginTimeout(int seconds) {
    // the Spanner JDBC driver has its own timeouts
  }

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("no parent logger");
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
