package dev.pg2spanner.schema;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The connections Flyway opens, closed by {@link #closeAll()} after each Flyway call: when its first query fails
 * (an unreachable emulator) Flyway leaves the connection it opened, and the Spanner JDBC driver then reports a
 * {@code LeakedConnectionException} with a stack trace from a finaliser, long after the run has said what failed.
 */
final class TrackedDataSource implements DataSource {

  private final String url;
  private final List<Connection> opened = new ArrayList<>();

  TrackedDataSource(String url) {
    this.url = url;
  }

  @Override
  public synchronized Connection getConnection() throws SQLException {
    Connection c = DriverManager.getConnection(url);
    opened.add(c);
    return c;
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return getConnection();
  }

  /** Closes every connection opened so far; a connection that fails to close is dropped all the same. */
  synchronized void closeAll() {
    for (Connection c : opened) {
      try {
        c.close();
      } catch (SQLException | RuntimeException e) {
        // closing is best effort: the target may be gone
      }
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
