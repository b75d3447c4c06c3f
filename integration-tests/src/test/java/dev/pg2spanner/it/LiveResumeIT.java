package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.error.ExitCode;
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
 * Issue 14: a {@code migrate --live} killed with SIGKILL while it streams loses nothing and applies nothing twice:
 * the position Spanner holds (written in the same commits as the changes) is where {@code --resume} continues;
 * {@code check} meanwhile names the slot it left and the WAL it holds.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveResumeIT {

  @Test
  void aKilledStreamResumesFromThePositionSpannerHolds(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    LiveWorkload.createSchema(pg);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");

    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--workers", "2",
        "--progress-interval", "1"));
    List<String> resumeCommand = new ArrayList<>(command);
    resumeCommand.add("--resume");
    Path stoppedLog = dir.resolve("stopped.log");
    Path log = dir.resolve("killed.log");
    try (LiveWorkload workload = new LiveWorkload(pg).start()) {
      // 1. Stopped like Ctrl-C (SIGTERM runs the same shutdown path): it says what it leaves and how to go on.
      Process stopped = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(stoppedLog.toFile())
          .start();
      try {
        awaitApplied(stopped, run, 0, 20, stoppedLog);
      } finally {
        stopped.destroy();
        assertThat(stopped.waitFor(1, TimeUnit.MINUTES)).as("a stopped stream ends in bounded time").isTrue();
      }
      assertThat(Files.readString(stoppedLog)).contains("live: streaming stopped")
          .contains("pg_drop_replication_slot(").contains("migrate --live --resume");

      // 2. Resumed in a new process, then killed with SIGKILL: no chance to clean up anything.
      int linesBefore = dev.pg2spanner.load.JsonLinesFile.read(run.resolve("progress.jsonl")).size();
      Process process = new ProcessBuilder(resumeCommand).redirectErrorStream(true).redirectOutput(log.toFile())
          .start();
      try {
        awaitApplied(process, run, linesBefore, 30, log);
      } finally {
        process.destroyForcibly();
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
      }
      long before = workload.transactions();
      while (workload.transactions() < before + 100) {
        Thread.sleep(50);
      }
    }
    assertThat(LiveState.read(run).orElseThrow().phase()).isEqualTo(LiveState.Phase.STREAM);

    // The slot is left behind and check says so, with the WAL it holds and the command that drops it.
    CliRunner.Result check = MigrateSupport.cli(List.of("check", "--source", pg.jdbcUrl()));
    String slot = LiveState.read(run).orElseThrow().slot();
    assertThat(check.out()).contains("slot " + slot).contains("holds").contains("pg_drop_replication_slot('" + slot
        + "')");

    // A plain rerun in that run directory refuses and says how to continue.
    CliRunner.Result again = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run,
        "--live"));
    assertThat(again.exitCode()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
    assertThat(again.err()).contains("--live --resume");

    // Resume (in this JVM), stream the backlog, cut over.
    CompletableFuture<CliRunner.Result> resumed = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--resume",
            "--progress-interval", "1")));
    long seenBefore = dev.pg2spanner.load.JsonLinesFile.read(run.resolve("progress.jsonl")).size();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (dev.pg2spanner.load.JsonLinesFile.read(run.resolve("progress.jsonl")).size() <= seenBefore + 1) {
      if (resumed.isDone()) {
        CliRunner.Result r = resumed.get();
        fail("the resumed run ended (exit " + r.exitCode() + "):\n" + r.out() + r.err());
      }
      if (System.nanoTime() > deadline) {
        fail("the resumed run reported nothing within 3 minutes");
      }
      Thread.sleep(100);
    }
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result r = resumed.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- resumed:\n" + r.out() + r.err())
        .isZero();
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("(the position Spanner holds)").contains("5 table(s) verified: all match.");
    for (String table : List.of("accounts", "entries", "tags", "audit", "scratch")) {
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
    }
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()")).isZero();
  }

  /** Waits until the process has applied {@code changes} changes (its progress lines after {@code from} say so). */
  private static void awaitApplied(Process process, Path run, int from, long changes, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (appliedChanges(run, from) < changes) {
      if (!process.isAlive()) {
        fail("migrate --live ended (exit " + process.exitValue() + "):\n" + Files.readString(log));
      }
      if (System.nanoTime() > deadline) {
        fail("migrate --live did not reach " + changes + " applied changes within 3 minutes:\n"
            + Files.readString(log));
      }
      Thread.sleep(100);
    }
  }

  private static long appliedChanges(Path run, int from) throws Exception {
    long changes = 0;
    List<JsonNode> lines = dev.pg2spanner.load.JsonLinesFile.read(run.resolve("progress.jsonl"));
    for (JsonNode line : lines.subList(Math.min(from, lines.size()), lines.size())) {
      if (line.path("type").asText().equals("live")) {
        changes = line.path("changes").asLong();
      }
    }
    return changes;
  }
}
