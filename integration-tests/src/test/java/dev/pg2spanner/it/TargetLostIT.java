package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.TcpFaultProxy;
import dev.pg2spanner.testing.WithPostgres;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33: Spanner disappears in the middle of a load with several workers. When the first worker has spent its
 * retries, the whole run stops at once (the other workers' commits in flight and backoffs are cancelled, not left to
 * run into their own deadlines), with the TARGET_CONNECTION exit, one sentence naming the table and {@code --resume};
 * once Spanner is back, {@code --resume} ends exact. Each test starts its own emulator: losing the shared one would
 * break every other test. The stop time (from the loss to the exit) is printed; only a hang guard bounds it here.
 */
@WithPostgres
class TargetLostIT {

  private static final long ROWS = 150_000;
  private static final String TARGET = "projects/pg2spanner-test/instances/lost/databases/big";

  /** The loader's retry budget for one commit (RetryPolicy.DEFAULT: ten attempts, backoff capped at 16 s). */
  private static final long HANG_GUARD_MINUTES = 4;

  private static void source(PgTestDatabase pg) throws Exception {
    pg.execute("DROP TABLE IF EXISTS big", "CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO big SELECT g, md5(g::text) || repeat('x', 64) FROM generate_series(1, " + ROWS + ") g",
        "ANALYZE");
  }

  /** Waits until the run has checkpointed a piece (so the load is under way), failing if it already ended. */
  private static void awaitFirstPiece(Path runDir, CompletableFuture<CliRunner.Result> run) throws Exception {
    Path done = runDir.resolve(Checkpoint.DONE_FILE);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(HANG_GUARD_MINUTES);
    while (MigrateSupport.completeLines(done) == 0) {
      assertThat(run).as("migrate still loading when the first piece is checkpointed").isNotDone();
      assertThat(System.nanoTime()).as("a piece checkpointed within " + HANG_GUARD_MINUTES + " minutes").isLessThan(
          deadline);
      Thread.sleep(20);
    }
  }

  private static void assertStoppedClearly(CliRunner.Result stopped) {
    assertThat(stopped.exitCode()).as(stopped.out() + stopped.err())
        .isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
    // No stack trace and no exception class (gRPC's own words may name a Netty handler, e.g. "...ExceptionHandler#0").
    assertThat(stopped.err()).contains("big").contains("--resume").doesNotContain("\tat ")
        .doesNotContainPattern("Exception[:\\s]");
  }

  @Test
  void spannerUnreachableMidLoadStopsTheWholeRunAndResumeEndsExact(PgTestDatabase pg, @TempDir Path dir)
      throws Exception {
    source(pg);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path runDir = dir.resolve("run");
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();
    try (LocalEmulator emulator = LocalEmulator.start(binaries);
        TcpFaultProxy proxy = TcpFaultProxy.start("127.0.0.1", port(emulator.hostPort()))) {
      String viaProxy = "127.0.0.1:" + proxy.port();
      List<String> args = migrateArgs(plan, pg, TARGET, viaProxy, runDir, "--workers", "4");
      CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
      awaitFirstPiece(runDir, run);
      // Spanner disappears (every connection reset, new ones refused) but keeps its data, as in a partition.
      long lost = System.currentTimeMillis();
      proxy.down();
      CliRunner.Result stopped = run.get(HANG_GUARD_MINUTES, TimeUnit.MINUTES);
      report("unreachable", lost, runDir, stopped);
      assertStoppedClearly(stopped);
      long checkpointed = MigrateSupport.completeLines(runDir.resolve(Checkpoint.DONE_FILE));

      proxy.up();
      List<String> resume = new ArrayList<>(args);
      resume.add("--resume");
      CliRunner.Result resumed = MigrateSupport.cli(resume);
      assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
      assertThat(resumed.out()).containsPattern("(?m)^big +\\| +150,000 \\| +150,000 \\| equal");
      assertThat(MigrateSupport.completeLines(runDir.resolve(Checkpoint.DONE_FILE))).isGreaterThan(checkpointed);
      // An independent verify compares every value.
      CliRunner.Result verify = MigrateSupport.cli(List.of("verify", "--plan", plan.toString(), "--source",
          pg.jdbcUrl(), "--target", TARGET, "--emulator", viaProxy));
      assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    }
  }

  @Test
  void theEmulatorKilledMidLoadStopsTheWholeRunPromptly(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    source(pg);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path runDir = dir.resolve("run");
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();
    CliRunner.Result stopped;
    try (LocalEmulator emulator = LocalEmulator.start(binaries)) {
      List<String> args = migrateArgs(plan, pg, TARGET, emulator.hostPort(), runDir, "--workers", "4");
      CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
      awaitFirstPiece(runDir, run);
      long killed = System.currentTimeMillis();
      emulator.close();
      stopped = run.get(HANG_GUARD_MINUTES, TimeUnit.MINUTES);
      report("killed", killed, runDir, stopped);
    }
    assertStoppedClearly(stopped);
    // A killed emulator keeps no data: resuming into a new one is refused (FaultsIT), a new run repairs it.
  }

  /**
   * Prints the stop time, split at the load's last progress line (written when its workers have ended): from the loss
   * to the load's end (the retries of the worker that gave up, which its message states, and the others' stop), and
   * from there to the exit.
   */
  private static void report(String how, long lostMillis, Path runDir, CliRunner.Result stopped) throws Exception {
    long exited = System.currentTimeMillis();
    long loadEnded = java.nio.file.Files.getLastModifiedTime(runDir.resolve(RunFiles.PROGRESS)).toMillis();
    System.out.printf("TARGET-LOST %s: 4 workers, exit %d %.1f s after the loss; the load ended %.1f s after it, "
        + "the exit %.1f s after that: %s%n", how, stopped.exitCode(), (exited - lostMillis) / 1e3,
        (loadEnded - lostMillis) / 1e3, (exited - loadEnded) / 1e3, stopped.err().strip());
  }

  private static int port(String hostPort) {
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }
}
