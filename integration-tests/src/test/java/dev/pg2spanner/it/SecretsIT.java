package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password given in the JDBC URL or in PGPASSWORD never reaches stdout, stderr, the plan, the reports, the
 * migrations, the run directory or the dead-letter file — including when a run fails.
 */
@WithPostgres
@WithSpannerEmulator
class SecretsIT {

  private static final String PASSWORD = "Sup3r-Secret-Pa55";

  @Test
  void noOutputOrFileEverHoldsThePassword(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path out)
      throws Exception {
    pg.execute("CREATE TABLE accounts (id bigserial PRIMARY KEY, email text)",
        "INSERT INTO accounts (email) SELECT 'u' || g FROM generate_series(1, 300) g", "ANALYZE");
    // The local server trusts 127.0.0.1, so any password logs in; what matters is where it travels.
    String url = pg.jdbcUrl() + "&password=" + PASSWORD;
    CliRunner cli = CliRunner.withEnv(Map.of("PGPASSWORD", PASSWORD));
    // Port 1 on this host: nothing listens there, whichever server the tests were given.
    String unreachable = url.replaceFirst("//[^/]+/", "//127.0.0.1:1/");
    StringBuilder printed = new StringBuilder();
    List<Integer> exitCodes = new java.util.ArrayList<>();
    for (List<String> args : List.of(
        List.of("check", "--source", url, "--target", spanner.path(), "--emulator", spanner.emulatorHost()),
        List.of("plan", "--source", url, "--out", out.toString()),
        List.of("migrate", "--plan", out.resolve("plan.yaml").toString(), "--source", url, "--target", spanner.path(),
            "--emulator", spanner.emulatorHost()),
        List.of("verify", "--plan", out.resolve("plan.yaml").toString(), "--source", url, "--target", spanner.path(),
            "--emulator", spanner.emulatorHost()),
        // Failures too: an unreachable port, and a target that already holds the tables.
        List.of("check", "--source", unreachable),
        List.of("migrate", "--plan", out.resolve("plan.yaml").toString(), "--source", url, "--target", spanner.path(),
            "--emulator", spanner.emulatorHost(), "--run-dir", out.resolve("second").toString()))) {
      CliRunner.Result r = cli.run(args.toArray(String[]::new));
      exitCodes.add(r.exitCode());
      printed.append(r.out()).append(r.err());
    }
    assertThat(exitCodes.get(4)).as("the unreachable source").isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
    assertThat(printed.toString()).contains("Planned").contains("all match").doesNotContain(PASSWORD);
    try (Stream<Path> files = Files.walk(out)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        assertThat(new String(Files.readAllBytes(file), StandardCharsets.UTF_8)).as(file.toString())
            .doesNotContain(PASSWORD);
      }
    }
  }

  @Test
  void noVerbosityPrintsThePasswordEvenInLibraryDebugLogs(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    // A separate JVM: library logs go to the process's stderr, which an in-process run does not capture.
    String url = pg.jdbcUrl() + "&password=" + PASSWORD;
    for (String verbosity : new String[] {null, "-v", "-vv"}) {
      List<String> command = new java.util.ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
          MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner"));
      if (verbosity != null) {
        command.add(verbosity);
      }
      command.addAll(List.of("check", "--source", url));
      Path log = dir.resolve("check" + verbosity + ".log");
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      assertThat(p.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
      String printed = Files.readString(log);
      if ("-vv".equals(verbosity)) {
        // The driver's own debug line is there, masked: the test would pass vacuously without it.
        assertThat(printed).as("pgjdbc logs its connection URL at debug level").contains("password=***");
      }
      assertThat(printed).as("output at verbosity " + verbosity).doesNotContain(PASSWORD);
    }
  }
}
