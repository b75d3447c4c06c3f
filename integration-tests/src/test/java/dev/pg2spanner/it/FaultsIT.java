package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8's faults: the dead-letter file on a full disk, and the Spanner emulator stopped in the middle of a load
 * (migrate retries the lost target for about 75 s before it gives up). Each ends with its documented exit code and
 * one sentence, no stack trace, and a state a new run can repair.
 */
@WithPostgres
@WithSpannerEmulator
class FaultsIT {

  private static final long ROWS = 100_000;

  @Test
  void aFullDiskForTheDeadLetterFileIsLocalIoNamingTheFile(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    // The class shares one source database: drop the other test's table so each plan holds only its own.
    pg.execute("DROP TABLE IF EXISTS big", "CREATE TABLE events (id int PRIMARY KEY, at timestamp)",
        "INSERT INTO events SELECT g, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 100) g",
        "UPDATE events SET at = 'infinity' WHERE id = 50", "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    // Back to TIMESTAMP, as the plan's warning allows: the infinity row must now go to the dead-letter file.
    MigrateSupport.editColumn(plan, "public.events", "at", "TIMESTAMP", "TIMESTAMP_WALL_CLOCK_AS_UTC");

    CliRunner.Result r = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run"), "--max-bad-rows", "10", "--dead-letter", "/dev/full"));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.LOCAL_IO.exitCode());
    assertThat(r.err()).contains("dead-letter file /dev/full").doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void theEmulatorStoppedMidLoadIsTargetConnectionAndANewRunRepairsIt(PgTestDatabase pg, @TempDir Path dir)
      throws Exception {
    pg.execute("DROP TABLE IF EXISTS events", "CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO big SELECT g, md5(g::text) || repeat('x', 64) FROM generate_series(1, " + ROWS + ") g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    String target = "projects/pg2spanner-test/instances/faults/databases/big";
    Path runDir = dir.resolve("run");
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();

    // A dedicated emulator: stopping the shared one would break every other test.
    CliRunner.Result stopped;
    try (LocalEmulator emulator = LocalEmulator.start(binaries)) {
      List<String> args = migrateArgs(plan, pg, target, emulator.hostPort(), runDir, "--workers", "1");
      CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
      Path done = runDir.resolve(Checkpoint.DONE_FILE);
      while (MigrateSupport.completeLines(done) == 0) {
        assertThat(run).as("migrate still loading when the first piece is checkpointed").isNotDone();
        Thread.sleep(50);
      }
      emulator.close();
      // The loader retries a lost target with backoff (about 75 s) before it gives up.
      stopped = run.get(5, TimeUnit.MINUTES);
    }
    assertThat(stopped.exitCode()).as(stopped.out() + stopped.err())
        .isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
    assertThat(stopped.err()).contains("big").doesNotContain("\tat ").doesNotContain("Exception");

    try (LocalEmulator fresh = LocalEmulator.start(binaries)) {
      // The new emulator has none of the tables the checkpoint says are half loaded: resuming must refuse.
      CliRunner.Result resumed = MigrateSupport.cli(migrateArgs(plan, pg, target, fresh.hostPort(), runDir,
          "--workers", "1", "--resume"));
      assertThat(resumed.exitCode()).as(resumed.out() + resumed.err())
          .isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(resumed.err()).doesNotContain("\tat ").doesNotContain("Exception");

      CliRunner.Result again = MigrateSupport.cli(migrateArgs(plan, pg, target, fresh.hostPort(),
          dir.resolve("run-again"), "--workers", "2"));
      assertThat(again.exitCode()).as(again.out() + again.err()).isZero();
      assertThat(again.out()).containsPattern("(?m)^big +\\| +100,000 \\| +100,000 \\| equal");
    }
  }
}
