package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithPostgres
@WithSpannerEmulator
class CheckCommandIT {

  private static final String PASSWORD = "n0t-in-any-output";

  @BeforeAll
  static void schema(PgTestDatabase pg) throws Exception {
    pg.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, placed_at timestamptz NOT NULL DEFAULT now())",
        "CREATE SCHEMA billing",
        "CREATE TABLE billing.\"Invoice\" (id bigint PRIMARY KEY)",
        "ANALYZE");
  }

  @Test
  void readyDatabaseReportsVersionAndExitsZero(PgTestDatabase pg, SpannerTestDatabase spanner) {
    CliRunner.Result r = CliRunner.withEnv(Map.of())
        .run("check", "--source", pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost());
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("PostgreSQL 1").contains("SELECT on every table").contains("snapshot export")
        .contains("GoogleSQL").contains("is empty").contains("Ready");
  }

  @Test
  void missingSelectPrivilegeIsNamedPerTable(PgTestDatabase pg) throws Exception {
    String role = "p2s_reader_" + Long.toHexString(System.nanoTime());
    pg.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + PASSWORD + "'",
        "GRANT USAGE ON SCHEMA billing TO " + role,
        "GRANT SELECT ON public.orders TO " + role);
    try {
      String url = pg.jdbcUrl().replaceAll("user=[^&]*", "user=" + role);
      CliRunner.Result r = CliRunner.withEnv(Map.of("PGPASSWORD", PASSWORD)).run("check", "--source", url);
      assertThat(r.exitCode()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
      assertThat(r.out()).contains("FAIL").contains("billing.\"Invoice\"").contains("GRANT SELECT")
          .doesNotContain(PASSWORD);
      assertThat(r.err()).doesNotContain(PASSWORD);
    } finally {
      pg.execute("DROP OWNED BY " + role, "DROP ROLE " + role);
    }
  }

  @Test
  void passwordFileIsUsedAndNeverPrinted(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    String role = "p2s_pwfile_" + Long.toHexString(System.nanoTime());
    pg.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + PASSWORD + "'");
    try {
      Path file = Files.writeString(dir.resolve("pw"), PASSWORD + "\n");
      String url = pg.jdbcUrl().replaceAll("user=[^&]*", "user=" + role);
      CliRunner.Result r = CliRunner.withEnv(Map.of()).run("check", "--source", url, "--password-file", file.toString());
      // Connected (the report has a version line); privileges may be missing, which is a different exit code.
      assertThat(r.out()).contains("server version");
      assertThat(r.exitCode()).isNotEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
      assertThat(r.out() + r.err()).doesNotContain(PASSWORD);
    } finally {
      pg.execute("DROP ROLE " + role);
    }
  }

  @Test
  void wrongPortIsOneSentenceWithTheEndpointAndNoStackTrace() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    CliRunner.Result r = CliRunner.withEnv(Map.of())
        .run("check", "--source", "jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres?user=postgres");
    assertThat(r.exitCode()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
    assertThat(r.err()).contains("cannot reach PostgreSQL at 127.0.0.1:" + closedPort)
        .contains("Check host and port").doesNotContain("\tat ").doesNotContain("Exception");
  }

  /**
   * A port that takes the connection and never answers (a hung server, a proxy or network holding every byte): the
   * command gives up after its login bound, saying so, instead of waiting forever (it did, before the bound).
   */
  @Test
  void aServerThatAcceptsAndNeverAnswersIsGivenUpOnByDefault() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      long started = System.nanoTime();
      CliRunner.Result r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofMinutes(2),
          () -> CliRunner.withEnv(Map.of()).run("check", "--source", "jdbc:postgresql://127.0.0.1:"
              + silent.getLocalPort() + "/postgres?user=postgres"),
          "check waited for a silent server past any bound");
      System.out.printf("check gave up on a silent server after %.1f s%n", (System.nanoTime() - started) / 1e9);
      assertThat(r.exitCode()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
      assertThat(r.err()).contains("127.0.0.1:" + silent.getLocalPort())
          .contains("did not complete the connection in time").contains("loginTimeout=N")
          .doesNotContain("\tat ");
    }
  }

  @Test
  void missingDatabaseIsNamed(PgTestDatabase pg) {
    String url = pg.jdbcUrl().replace(pg.name(), "no_such_db_p2s");
    CliRunner.Result r = CliRunner.withEnv(Map.of()).run("check", "--source", url);
    assertThat(r.exitCode()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
    assertThat(r.err()).contains("database no_such_db_p2s does not exist").doesNotContain("\tat ");
  }

  @Test
  void unreachableEmulatorIsReportedAsTargetFailure(PgTestDatabase pg) throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    CliRunner.Result r = CliRunner.withEnv(Map.of("SPANNER_EMULATOR_HOST", "127.0.0.1:" + closedPort))
        .run("check", "--source", pg.jdbcUrl(), "--target", "projects/p/instances/inst/databases/db");
    assertThat(r.exitCode()).isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
    assertThat(r.out()).contains("nothing listens at 127.0.0.1:" + closedPort);
  }
}
