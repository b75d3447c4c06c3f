package dev.pg2spanner.testing;

import dev.pg2spanner.local.LocalPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Like {@link PostgresExtension}, on a server with {@code wal_level = logical} (logical replication), which the
 * machine's shared server must not be switched to. The server, found once per JVM, is the first of:
 * <ol>
 *   <li>{@code PG2SPANNER_TEST_LOGICAL_PG_URL}: a JDBC URL to a maintenance database on a server with
 *       {@code wal_level = logical}, for a superuser (or a role that may create databases and replicate);</li>
 *   <li>a private server from PostgreSQL binaries on Maven Central ({@link LocalPostgres}), started on a free port
 *       and stopped when the JVM ends.</li>
 * </ol>
 * Before a test database is dropped, the replication slots on it are dropped (they would keep it in use).
 */
public final class LogicalPostgresExtension extends PostgresExtension {

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(LogicalPostgresExtension.class);

  @Override
  PgServer server(ExtensionContext context) {
    return context.getRoot().getStore(NS)
        .getOrComputeIfAbsent(PgServer.class, k -> resolve(System.getenv()), PgServer.class);
  }

  private static PgServer resolve(Map<String, String> env) {
    String explicit = env.get("PG2SPANNER_TEST_LOGICAL_PG_URL");
    if (explicit != null && !explicit.isBlank()) {
      String level = walLevel(explicit);
      if (!"logical".equals(level)) {
        throw TestEnvironment.unavailable("PostgreSQL with wal_level = logical from PG2SPANNER_TEST_LOGICAL_PG_URL",
            "the server answers with wal_level = " + level + "; point the variable at a server with wal_level = "
                + "logical, or unset it to start a private one");
      }
      return new PgServer(explicit, "PG2SPANNER_TEST_LOGICAL_PG_URL", null);
    }
    try {
      LocalPostgres server = LocalPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "20",
          "max_wal_senders", "20", "max_connections", "100"));
      return new PgServer(server.jdbcUrl("postgres"), "private PostgreSQL on port " + server.port(), server);
    } catch (Exception | LinkageError e) {
      throw TestEnvironment.unavailable("PostgreSQL with wal_level = logical", "starting a private server from "
          + "Maven Central's PostgreSQL binaries failed (" + e.getMessage() + "); set PG2SPANNER_TEST_LOGICAL_PG_URL="
          + "jdbc:postgresql://HOST:PORT/postgres?user=USER for a server with wal_level = logical");
    }
  }

  private static String walLevel(String url) {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW wal_level")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw TestEnvironment.unavailable("PostgreSQL from PG2SPANNER_TEST_LOGICAL_PG_URL", "connecting failed ("
          + e.getMessage() + ")");
    }
  }

  @Override
  void beforeDrop(Connection admin, String database) throws SQLException {
    // A test that failed may leave its stream running: its WAL sender is ended, and the slot dropped once the sender
    // has let go of it (a few tries: a client may reconnect in between). Then the database can be dropped, and no
    // slot of it is left to hold WAL or be counted by another test.
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (PreparedStatement ps = admin.prepareStatement("SELECT pg_terminate_backend(active_pid) "
          + "FROM pg_replication_slots WHERE database = ? AND active_pid IS NOT NULL")) {
        ps.setString(1, database);
        ps.execute();
      }
      try (PreparedStatement ps = admin.prepareStatement("SELECT pg_drop_replication_slot(slot_name) "
          + "FROM pg_replication_slots WHERE database = ? AND NOT active")) {
        ps.setString(1, database);
        ps.execute();
      } catch (SQLException e) {
        // became active again between the two statements: try again
      }
      try (PreparedStatement ps = admin.prepareStatement("SELECT COUNT(*) FROM pg_replication_slots "
          + "WHERE database = ?")) {
        ps.setString(1, database);
        try (java.sql.ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getLong(1) == 0 || System.nanoTime() > deadline) {
            return;
          }
        }
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
