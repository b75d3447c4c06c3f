package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.completeLines;
import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5: a migrate process killed with SIGKILL in the middle of the load leaves a target that {@code --resume}
 * completes — every row once, none twice — and a plain rerun refuses to start over on that target.
 */
@WithPostgres
@WithSpannerEmulator
class MigrateResumeIT {

  private static final long ORDERS = 200_000;
  private static final long ORDER_LINES = 6_000;
  private static final long AUDIT = 500;

  @Test
  void aKilledLoadIsCompletedByResumeWithoutDuplicates(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute(
        "CREATE TABLE orders (id bigserial PRIMARY KEY, customer text NOT NULL, amount numeric(12,2) NOT NULL, "
            + "placed_at timestamptz NOT NULL, note text)",
        "INSERT INTO orders (customer, amount, placed_at, note) SELECT 'customer ' || (g % 5000), "
            + "(g % 100000) / 100.0, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second', "
            // Six rows in seven without a note: the NULL-heavy column.
            + "CASE WHEN g % 7 = 0 THEN 'note ' || g END FROM generate_series(1, " + ORDERS + ") g",
        "CREATE TABLE order_lines (order_id bigint NOT NULL REFERENCES orders (id), line int NOT NULL, "
            + "sku text NOT NULL, PRIMARY KEY (order_id, line))",
        "INSERT INTO order_lines SELECT o, l, 'sku-' || (o * l % 997) FROM generate_series(1, "
            + ORDER_LINES / 3 + ") o, generate_series(1, 3) l",
        "CREATE TABLE audit_log (happened timestamptz NOT NULL, message text NOT NULL)",
        "INSERT INTO audit_log SELECT timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', 'event ' || g "
            + "FROM generate_series(1, " + AUDIT + ") g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");

    // 1. A separate JVM, so that it can really be killed, and killed without any chance to clean up.
    List<String> command = new ArrayList<>(List.of(javaExecutable(), "-cp", cliClasspath(),
        "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--workers", "2",
        "--no-verify"));
    Path log = dir.resolve("killed-run.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Path doneFile = run.resolve(Checkpoint.DONE_FILE);
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (completeLines(doneFile) < 1) {
        if (!process.isAlive()) {
          fail("migrate ended (exit " + process.exitValue() + ") before a piece was done:\n" + Files.readString(log));
        }
        if (System.nanoTime() > deadline) {
          fail("no piece was done within 2 minutes:\n" + Files.readString(log));
        }
        Thread.sleep(50);
      }
    } finally {
      process.destroyForcibly();
      assertThat(process.waitFor(1, TimeUnit.MINUTES)).as("the killed process ended").isTrue();
    }
    String killedLog = Files.readString(log);
    assertThat(killedLog).as("the load was cut short, not completed").doesNotContain("Migrated ");
    long loadedBeforeKill = spannerLong(spanner, "SELECT COUNT(*) FROM orders")
        + spannerLong(spanner, "SELECT COUNT(*) FROM order_lines")
        + spannerLong(spanner, "SELECT COUNT(*) FROM audit_log");
    assertThat(loadedBeforeKill).as("rows committed before the kill").isPositive()
        .isLessThan(ORDERS + ORDER_LINES + AUDIT);
    long piecesDone = completeLines(doneFile);

    // 2. --resume, same run directory, same target.
    CliRunner.Result resumed = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run,
        "--resume", "--workers", "2"));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    assertThat(resumed.out()).contains("resuming: " + piecesDone + " of ")
        .contains("3 table(s) verified: all match.")
        .containsPattern("(?m)^orders +\\| +200,000 \\| +200,000 \\| equal")
        .containsPattern("(?m)^order_lines +\\| +6,000 \\| +6,000 \\| equal")
        .containsPattern("(?m)^audit_log +\\| +500 \\| +500 \\| equal");

    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM orders")).isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM orders"))
        .isEqualTo(ORDERS);
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT id) FROM orders")).isEqualTo(ORDERS);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM orders WHERE note IS NULL"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM orders WHERE note IS NULL"));
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM order_lines"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM order_lines")).isEqualTo(ORDER_LINES);
    // The interleaved child repeats its parent's key name (order_id becomes id in Spanner).
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM (SELECT DISTINCT id, line FROM order_lines)"))
        .isEqualTo(ORDER_LINES);
    // No source key: every message is unique in the source, so a row loaded twice would show as a repeated message.
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM audit_log"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM audit_log")).isEqualTo(AUDIT);
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT message) FROM audit_log")).isEqualTo(AUDIT);

    // 3. A plain rerun on that target must not start over: it says to use --resume.
    CliRunner.Result again = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("another-run"), "--workers", "2"));
    assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
    assertThat(again.err()).contains("--resume").doesNotContain("\tat ");
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM orders")).isEqualTo(ORDERS);
  }

  static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The packaged CLI: {@code cli/target/pg2spanner-cli.jar} and its {@code lib/} folder. */
  static String cliClasspath() {
    // Under failsafe the working directory is the integration-tests module; the repository root is its parent.
    Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    Path target = root.resolve("cli").resolve("target");
    Path jar = target.resolve("pg2spanner-cli.jar");
    if (!Files.isRegularFile(jar) || !Files.isDirectory(target.resolve("lib"))) {
      fail("The packaged CLI is missing (" + jar + " and its lib/ folder): run ./mvnw package first (./mvnw verify "
          + "packages the cli module before the integration tests run).");
    }
    return jar + File.pathSeparator + target.resolve("lib") + File.separator + "*";
  }
}
