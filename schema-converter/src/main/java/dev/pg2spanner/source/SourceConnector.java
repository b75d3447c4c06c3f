package dev.pg2spanner.source;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.InvalidValueException;
import dev.pg2spanner.error.Pg2SpannerException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/** Opens connections to the source and turns connection failures into one clear sentence each. */
public final class SourceConnector {

  /** Seconds to wait for a TCP connection; a firewalled host otherwise hangs for minutes. */
  private static final String CONNECT_TIMEOUT_SECONDS = "10";
  /**
   * Seconds the whole connection may take (pgjdbc's loginTimeout: the TCP connection, the startup and the
   * authentication): a server or proxy that accepts the connection and never answers otherwise holds it forever.
   */
  static final String LOGIN_TIMEOUT_SECONDS = "20";

  private final SourceConfig config;
  private final Driver driver = new Driver();

  public SourceConnector(SourceConfig config) {
    this.config = config;
  }

  public SourceConfig config() {
    return config;
  }

  /**
   * Opens a connection (auto-commit on); the caller closes it.
   *
   * @throws Pg2SpannerException with {@link ExitCode#SOURCE_CONNECTION} and a message naming the endpoint,
   *     the cause and the next step
   */
  public Connection open() {
    return open(new Properties());
  }

  /**
   * Opens a logical replication connection ({@code replication=database}: replication commands and plain SQL in
   * the simple query protocol, which is all a walsender accepts); the caller closes it.
   *
   * @throws Pg2SpannerException like {@link #open()}; a role without the REPLICATION attribute is named as such
   */
  public Connection openReplication() {
    Properties props = new Properties();
    props.setProperty(PGProperty.REPLICATION.getName(), "database");
    props.setProperty(PGProperty.PREFER_QUERY_MODE.getName(), "simple");
    props.setProperty(PGProperty.ASSUME_MIN_SERVER_VERSION.getName(), "10");
    return open(props);
  }

  private Connection open(Properties props) {
    withDefaults(props);
    try {
      Connection connection = driver.connect(config.jdbcUrl(), props);
      if (connection == null) {
        throw new InvalidValueException("--source " + config.redactedUrl() + " is not a PostgreSQL JDBC URL: use "
            + "jdbc:postgresql://HOST:PORT/DATABASE?user=USER");
      }
      return connection;
    } catch (SQLException e) {
      throw translate(e);
    }
  }

  /**
   * The password, the application name, the bounds on connecting and TCP keepalive, where the URL does not set its
   * own. Keepalive is what ends a read on a connection whose peer is gone without a word (a black-holed network, a
   * firewall or NAT that forgot the connection): pgjdbc leaves it off, and such a read otherwise waits forever. The
   * sockets come from {@link KeepaliveSocketFactory}, whose timers give up on a dead peer in about two minutes (the
   * OS's own would take over two hours); a live server is not affected, however long a read legitimately waits.
   */
  Properties withDefaults(Properties props) {
    if (config.password() != null && !config.urlHasPassword()) {
      props.setProperty(PGProperty.PASSWORD.getName(), config.password().reveal());
    }
    props.setProperty(PGProperty.APPLICATION_NAME.getName(), "pg2spanner");
    if (!config.urlSets(PGProperty.CONNECT_TIMEOUT.getName())) {
      props.setProperty(PGProperty.CONNECT_TIMEOUT.getName(), CONNECT_TIMEOUT_SECONDS);
    }
    if (!config.urlSets(PGProperty.LOGIN_TIMEOUT.getName())) {
      props.setProperty(PGProperty.LOGIN_TIMEOUT.getName(), LOGIN_TIMEOUT_SECONDS);
    }
    if (!config.urlSets(PGProperty.TCP_KEEP_ALIVE.getName())) {
      props.setProperty(PGProperty.TCP_KEEP_ALIVE.getName(), "true");
    }
    if (!config.urlSets(PGProperty.SOCKET_FACTORY.getName())) {
      props.setProperty(PGProperty.SOCKET_FACTORY.getName(), KeepaliveSocketFactory.class.getName());
    }
    return props;
  }

  Pg2SpannerException translate(SQLException e) {
    String where = "PostgreSQL at " + config.endpoint();
    String user = config.user().orElse("(the OS user)");
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String reason = firstLine(e.getMessage());
    if (reason.contains("must be superuser or replication role")) {
      return new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, where + " refused a replication connection for "
          + "user " + user + " (" + reason + "). A live migration streams changes through logical replication: "
          + "run `ALTER ROLE " + user + " WITH REPLICATION` as a superuser (on Amazon RDS/Aurora `GRANT rds_replication"
          + " TO " + user + "`), and allow it in pg_hba.conf.", e);
    }
    if (reason.startsWith("Connection attempt timed out")) {
      return new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, where + " did not complete the connection in time "
          + "(" + reason + "): it took the connection and did not answer, or did not take it soon enough. The server "
          + "is stuck or overloaded, or a proxy or network in between holds the traffic. Check the server (and any "
          + "pooler in front of it), then try again; loginTimeout=N in --source sets how many seconds the whole "
          + "connection may take.", e);
    }
    String message = switch (state) {
      case "28P01" -> where + " refused the password for user " + user
          + ". Provide the right password through PGPASSWORD or --password-file (never on the command line).";
      case "28000" -> where + " rejected user " + user + " (" + reason
          + "). Check the user name in --source and the server's pg_hba.conf.";
      case "3D000" -> "database " + databaseName() + " does not exist on " + where.substring("PostgreSQL at ".length())
          .replaceAll("/.*$", "") + ". List the databases with `psql -l` and fix --source.";
      case "08004" -> reason.contains("password")
          ? where + " wants a password for user " + user + ". Set PGPASSWORD or pass --password-file FILE."
          : where + " rejected the connection (" + reason + ").";
      case "08001", "08006", "08003" -> "cannot reach " + where + " (" + firstSentence(reason)
          + "). Check host and port in --source, that the server is running, and that it accepts TCP connections "
          + "from this machine (listen_addresses, pg_hba.conf, firewalls).";
      // Anything else (an SSL negotiation a proxy answered, a protocol error): still the next step.
      default -> "cannot connect to " + where + " as " + user + " (" + reason + "). Check that --source names a "
          + "PostgreSQL server (host, port, database, sslmode) and run `pg2spanner check --source ...` for details.";
    };
    return new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, message, e);
  }

  private String databaseName() {
    String endpoint = config.endpoint();
    return endpoint.substring(endpoint.indexOf('/') + 1);
  }

  /** pgjdbc appends its own advice after the first sentence; ours replaces it. */
  private static String firstSentence(String message) {
    int end = message.indexOf(". ");
    return end < 0 ? message : message.substring(0, end);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }
}
