package dev.pg2spanner.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The translation of server answers that the local test server (trust authentication) cannot produce; the
 * reachable cases (wrong port, missing database, missing privileges) are covered against a real server in
 * CheckCommandIT.
 */
class SourceConnectorTest {

  private final SourceConnector connector =
      new SourceConnector(new SourceConfig("jdbc:postgresql://db.internal:6432/app?user=migrator", Secret.of("pw")));

  @Test
  void wrongPasswordNamesUserAndWhereTheRightOneGoes() {
    Pg2SpannerException e = connector.translate(
        new SQLException("FATAL: password authentication failed for user \"migrator\"", "28P01"));
    assertThat(e.code()).isEqualTo(ExitCode.SOURCE_CONNECTION);
    assertThat(e.getMessage())
        .isEqualTo("PostgreSQL at db.internal:6432/app refused the password for user migrator. Provide the right "
            + "password through PGPASSWORD or --password-file (never on the command line).");
  }

  @Test
  void missingPasswordSaysHowToGiveOne() {
    Pg2SpannerException e = connector.translate(new SQLException(
        "The server requested SCRAM-based authentication, but no password was provided.", "08004"));
    assertThat(e.getMessage()).contains("wants a password for user migrator").contains("PGPASSWORD");
  }

  @Test
  void pgHbaRejectionPointsAtPgHba() {
    Pg2SpannerException e = connector.translate(new SQLException(
        "FATAL: no pg_hba.conf entry for host \"10.0.0.9\", user \"migrator\", database \"app\"", "28000"));
    assertThat(e.getMessage()).contains("rejected user migrator").contains("pg_hba.conf");
  }

  @Test
  void anUnforeseenAnswerStillSaysWhatToDoNext() {
    // What pgjdbc reports when something other than PostgreSQL answers the port (seen through a proxy).
    Pg2SpannerException e = connector.translate(new SQLException(
        "An error occurred while setting up the SSL connection.", "08P01"));
    assertThat(e.code()).isEqualTo(ExitCode.SOURCE_CONNECTION);
    assertThat(e.getMessage()).startsWith("cannot connect to PostgreSQL at db.internal:6432/app as migrator (An "
        + "error occurred while setting up the SSL connection.)").contains("pg2spanner check --source");
  }

  @Test
  void connectingIsBoundedUnlessTheUrlSaysOtherwise() {
    java.util.Properties props = connector.withDefaults(new java.util.Properties());
    assertThat(props.getProperty("loginTimeout")).isEqualTo(SourceConnector.LOGIN_TIMEOUT_SECONDS);
    assertThat(props.getProperty("connectTimeout")).isEqualTo("10");
    // A read whose peer vanished without a word ends when TCP keepalive gives up, not never.
    assertThat(props.getProperty("tcpKeepAlive")).isEqualTo("true");
    assertThat(props.getProperty("socketFactory")).isEqualTo(KeepaliveSocketFactory.class.getName());
    SourceConnector own = new SourceConnector(new SourceConfig(
        "jdbc:postgresql://db.internal:6432/app?user=migrator&loginTimeout=5&connectTimeout=3&tcpKeepAlive=false"
            + "&socketFactory=javax.net.ssl.SSLSocketFactory", null));
    assertThat(own.withDefaults(new java.util.Properties())).doesNotContainKeys("loginTimeout", "connectTimeout",
        "tcpKeepAlive", "socketFactory");
  }

  @Test
  void theSourceSocketsGiveUpOnAVanishedPeerInMinutes() throws Exception {
    try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        java.net.Socket s = new KeepaliveSocketFactory().createSocket(java.net.InetAddress.getLoopbackAddress(),
            server.getLocalPort())) {
      assertThat(s.getKeepAlive()).isTrue();
      // Linux (where pg2spanner runs in CI) takes the timers; the factory leaves the OS's where it cannot.
      assertThat(s.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(KeepaliveSocketFactory.IDLE_SECONDS);
      assertThat(s.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL))
          .isEqualTo(KeepaliveSocketFactory.INTERVAL_SECONDS);
      assertThat(s.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(KeepaliveSocketFactory.PROBES);
    }
  }

  @Test
  void aServerThatAcceptsAndNeverAnswersIsGivenUpOnWithWhatToCheck() throws Exception {
    // A port that takes the connection and says nothing: a stuck server, or a proxy holding every byte.
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50,
        java.net.InetAddress.getLoopbackAddress())) {
      SourceConnector stuck = new SourceConnector(new SourceConfig("jdbc:postgresql://127.0.0.1:"
          + silent.getLocalPort() + "/app?user=migrator&loginTimeout=1", null));
      org.assertj.core.api.Assertions.assertThatThrownBy(stuck::open)
          .isInstanceOfSatisfying(Pg2SpannerException.class,
              e -> assertThat(e.code()).isEqualTo(ExitCode.SOURCE_CONNECTION))
          .hasMessageContaining("did not complete the connection in time")
          .hasMessageContaining("loginTimeout=N");
    }
  }
}
