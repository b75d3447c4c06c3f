package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: Ctrl-C (here SIGTERM, the same shutdown path) while a large source transaction is being applied says at
 * once what it leaves and how to go on, stops in the middle of the transaction instead of waiting for its end (what
 * is applied of it is recorded as a partial position), and the resumed run replays the transaction and ends exact.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveStopIT {

  private static final int ROWS = 150_000;

  @Test
  void aStopInTheMiddleOfALargeTransactionIsPromptAndTheResumeEndsExact(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE events (id bigint PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO events SELECT g, 'seed' FROM generate_series(1, 10) g", "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live",
        "--progress-interval", "1"));
    Path log = dir.resolve("stopped.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long stoppedAt;
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (!(Files.exists(run.resolve(LiveState.FILE))
          && LiveState.read(run).orElseThrow().phase() == LiveState.Phase.STREAM)) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          fail("migrate --live did not stream:\n" + Files.readString(log));
        }
        Thread.sleep(100);
      }
      // One transaction of 150,000 rows: several commits' worth for the applier.
      pg.execute("INSERT INTO events SELECT g, repeat('x', 100) FROM generate_series(11, " + (ROWS + 10) + ") g");
      // Wait until the applier is inside it (some of its rows are in Spanner, far from all).
      while (spannerLong(spanner, "SELECT COUNT(*) FROM events") < 20_000) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          fail("the large transaction was not being applied:\n" + Files.readString(log));
        }
        Thread.sleep(50);
      }
      stoppedAt = System.nanoTime();
      process.destroy(); // SIGTERM: the shutdown hooks run as on Ctrl-C
      assertThat(process.waitFor(1, TimeUnit.MINUTES)).as("a stopped stream ends").isTrue();
    } finally {
      process.destroyForcibly();
    }
    long stopSeconds = (System.nanoTime() - stoppedAt) / 1_000_000_000L;
    String out = Files.readString(log);
    assertThat(out).contains("live: stopping (Ctrl-C)").contains("migrate --live --resume")
        .contains("pg_drop_replication_slot(");
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM events")).as("stopped inside the transaction ("
        + stopSeconds + " s after the signal)").isLessThan(ROWS + 10);

    // Resumed: the transaction is replayed whole, then cut over exactly.
    CompletableFuture<CliRunner.Result> resumed = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--resume",
            "--progress-interval", "1")));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (spannerLong(spanner, "SELECT COUNT(*) FROM events") < ROWS + 10) {
      if (resumed.isDone() || System.nanoTime() > deadline) {
        fail("the resumed run did not replay the transaction: " + (resumed.isDone() ? resumed.get().out() : ""));
      }
      Thread.sleep(200);
    }
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result r = resumed.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- resumed:\n" + r.out() + r.err())
        .isZero();
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM events")).isEqualTo(pgLong(pg,
        "SELECT COUNT(*) FROM events"));
  }
}
