package dev.pg2spanner.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A PostgreSQL database created for one test class and dropped after it.
 *
 * @param name the database name
 * @param jdbcUrl a JDBC URL for the database, with the user (and, for throwaway test servers only, the
 *     password) as URL parameters
 */
public record PgTestDatabase(String name, String jdbcUrl) {

  /** Opens a new connection; the caller closes it. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl);
  }

  /** Runs each statement in its own auto-committed execution. */
  public void execute(String... statements) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  /** Runs a SQL script (several statements, dollar-quoted bodies allowed) in one simple-query execution. */
  public void runScript(Path script) throws Exception {
    String sql = Files.readString(script, StandardCharsets.UTF_8);
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** A single value of a query's first row and column, or null. */
  public Object queryValue(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement(); var rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getObject(1) : null;
    }
  }
}
