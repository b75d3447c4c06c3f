package dev.pg2spanner.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Creates a fresh PostgreSQL database for each test class and drops it afterwards.
 *
 * <p>The server, found once per JVM, is the first of:
 * <ol>
 *   <li>{@code PG2SPANNER_TEST_PG_URL}: a JDBC URL to a maintenance database on a server where the user may
 *       {@code CREATE DATABASE};</li>
 *   <li>the local server at {@code 127.0.0.1:5432} as user {@code postgres}, if it answers;</li>
 *   <li>a Testcontainers {@code postgres:15} container, when Docker is available.</li>
 * </ol>
 * When none can be had the test fails in CI and is skipped elsewhere, saying how to provide one.
 */
public class PostgresExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresExtension.class);
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(PostgresExtension.class);
  static final String LOCAL_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&connectTimeout=5";
  private static final Pattern URL = Pattern.compile("^(jdbc:postgresql://[^/?]*/)([^?]*)(\\?.*)?$");

  /** The server of this JVM's test databases, found once (subclasses provide servers of another kind). */
  PgServer server(ExtensionContext context) {
    return context.getRoot().getStore(NS)
        .getOrComputeIfAbsent(PgServer.class, k -> PgServer.resolve(System.getenv()), PgServer.class);
  }

  /** Runs before a test database is dropped (e.g. to drop what keeps it in use). */
  void beforeDrop(Connection admin, String database) throws SQLException {
    // nothing by default
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    PgServer server = server(context);
    String name = databaseName(context.getRequiredTestClass());
    try (Connection c = DriverManager.getConnection(server.adminUrl()); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8'");
    }
    context.getStore(NS).put(PgTestDatabase.class, new PgTestDatabase(name, server.urlFor(name)));
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    PgTestDatabase db = context.getStore(NS).remove(PgTestDatabase.class, PgTestDatabase.class);
    if (db == null) {
      return;
    }
    PgServer server = server(context);
    try (Connection c = DriverManager.getConnection(server.adminUrl()); Statement s = c.createStatement()) {
      beforeDrop(c, db.name());
      s.execute("DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PgTestDatabase.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    PgTestDatabase db = context.getStore(NS).get(PgTestDatabase.class, PgTestDatabase.class);
    if (db == null) {
      throw new IllegalStateException("no PgTestDatabase in this context: annotate the class with @WithPostgres");
    }
    return db;
  }

  /** A database name that says which test made it (to find leftovers) and cannot collide. */
  static String databaseName(Class<?> testClass) {
    String simple = testClass.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    if (simple.length() > 40) {
      simple = simple.substring(0, 40);
    }
    return "p2s_" + simple + "_" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** The server all test databases of this JVM live on. */
  record PgServer(String adminUrl, String description, AutoCloseable owner) implements AutoCloseable {

    static PgServer resolve(Map<String, String> env) {
      String explicit = env.get("PG2SPANNER_TEST_PG_URL");
      if (explicit != null && !explicit.isBlank()) {
        String problem = tryConnect(explicit);
        if (problem != null) {
          throw TestEnvironment.unavailable("PostgreSQL from PG2SPANNER_TEST_PG_URL",
              "connecting failed (" + problem + "); fix the URL or unset it to use 127.0.0.1:5432");
        }
        return new PgServer(explicit, "PG2SPANNER_TEST_PG_URL", null);
      }
      String localProblem = tryConnect(LOCAL_URL);
      if (localProblem == null) {
        LOG.debug("test PostgreSQL: local server at 127.0.0.1:5432");
        return new PgServer(LOCAL_URL, "127.0.0.1:5432", null);
      }
      if (dockerAvailable()) {
        PostgreSQLContainer container = new PostgreSQLContainer("postgres:15-alpine");
        container.start();
        String url = container.getJdbcUrl() + (container.getJdbcUrl().contains("?") ? "&" : "?")
            + "user=" + container.getUsername() + "&password=" + container.getPassword();
        return new PgServer(url, "Testcontainers postgres:15-alpine", container::stop);
      }
      throw TestEnvironment.unavailable("PostgreSQL",
          "127.0.0.1:5432 did not accept user postgres (" + localProblem + ") and Docker is not available. "
              + "Start the local server (e.g. `pg_ctlcluster 15 main start`), set PG2SPANNER_TEST_PG_URL="
              + "jdbc:postgresql://HOST:PORT/postgres?user=USER for a role that may CREATE DATABASE, or install Docker "
              + "so Testcontainers can start one");
    }

    String urlFor(String database) {
      Matcher m = URL.matcher(adminUrl);
      if (!m.matches()) {
        throw new IllegalStateException("cannot derive a database URL from " + description);
      }
      return m.group(1) + database + (m.group(3) == null ? "" : m.group(3));
    }

    @Override
    public void close() throws Exception {
      if (owner != null) {
        owner.close();
      }
    }

    private static String tryConnect(String url) {
      try (Connection c = DriverManager.getConnection(url)) {
        return null;
      } catch (SQLException e) {
        return e.getMessage();
      }
    }
  }

  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }
}
