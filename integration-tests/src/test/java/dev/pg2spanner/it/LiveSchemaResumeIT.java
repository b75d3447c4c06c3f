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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: a {@code migrate --live} killed with SIGKILL just after it changed the target's schema to follow the
 * source — the moment Spanner has the new column (before the run directory or the position record it), and after a
 * new index and the changes behind it are in — resumes: the change is recognised as applied, not applied twice, and
 * cutover finds the target exact.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveSchemaResumeIT {

  @Test
  void killedRightAfterFollowingASchemaChangeResumesAndCutsOverExact(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, qty int)",
        "INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(1, 200) g", "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live",
        "--progress-interval", "1", "--verify-interval", "1"));
    List<String> resume = new ArrayList<>(command);
    resume.add("--resume");

    // 1. Killed the moment Spanner has the column the source added.
    Path log1 = dir.resolve("first.log");
    Process first = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log1.toFile()).start();
    try {
      await(first, log1, "streaming", () -> streaming(run));
      pg.execute("INSERT INTO items VALUES (201, 'before', 1)",
          "ALTER TABLE items ADD COLUMN note text NOT NULL DEFAULT 'none'",
          "INSERT INTO items VALUES (202, 'after the column', 2, 'noted')",
          "UPDATE items SET note = 'changed' WHERE id <= 10");
      await(first, log1, "the column in Spanner", () -> columnExists(spanner, "note"));
    } finally {
      first.destroyForcibly();
      assertThat(first.waitFor(1, TimeUnit.MINUTES)).isTrue();
    }
    pg.execute("UPDATE items SET note = 'while stopped' WHERE id BETWEEN 11 AND 15");

    // 2. Resumed, then killed once a new index and the changes after it are in Spanner.
    Path log2 = dir.resolve("second.log");
    Process second = new ProcessBuilder(resume).redirectErrorStream(true).redirectOutput(log2.toFile()).start();
    try {
      await(second, log2, "the resumed run to follow the column", () -> spannerLong(spanner,
          "SELECT COUNT(*) FROM items WHERE note = 'while stopped'") == 5);
      pg.execute("CREATE INDEX items_name ON items (name)", "INSERT INTO items VALUES (203, 'after the index', 3, "
          + "'x')");
      await(second, log2, "the index and row 203 in Spanner", () -> indexes(spanner) == 1
          && spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id = 203") == 1);
    } finally {
      second.destroyForcibly();
      assertThat(second.waitFor(1, TimeUnit.MINUTES)).isTrue();
    }
    pg.execute("UPDATE items SET qty = qty + 100 WHERE id > 190", "DELETE FROM items WHERE id BETWEEN 50 AND 59");

    // 3. Resumed again (in this JVM), cut over.
    CompletableFuture<CliRunner.Result> resumed = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--resume",
            "--progress-interval", "1", "--verify-interval", "1")));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id BETWEEN 50 AND 59") > 0) {
      if (resumed.isDone() || System.nanoTime() > deadline) {
        CliRunner.Result r = resumed.isDone() ? resumed.get() : null;
        fail("the last resumed run did not apply the deletes" + (r == null ? "" : " (exit " + r.exitCode() + "):\n"
            + r.out() + r.err()));
      }
      Thread.sleep(200);
    }
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result done = resumed.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- resumed:\n" + done.out() + done.err()
        + "\n--- first:\n" + Files.readString(log1) + "\n--- second:\n" + Files.readString(log2)).isZero();
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items")).isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM items"))
        .isEqualTo(193);
    for (String note : List.of("none", "noted", "changed", "while stopped", "x")) {
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE note = '" + note + "'")).as(note)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM items WHERE note = '" + note + "'"));
    }
    assertThat(spannerLong(spanner, "SELECT SUM(qty) FROM items")).isEqualTo(pgLong(pg, "SELECT SUM(qty) FROM items"));
    assertThat(indexes(spanner)).isEqualTo(1);
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()")).isZero();
  }

  private static boolean streaming(Path run) {
    try {
      return Files.exists(run.resolve(LiveState.FILE))
          && LiveState.read(run).orElseThrow().phase() == LiveState.Phase.STREAM
          && dev.pg2spanner.load.JsonLinesFile.read(run.resolve("progress.jsonl")).stream()
              .anyMatch(l -> l.path("type").asText().equals("live"));
    } catch (Exception e) {
      return false; // being written
    }
  }

  private static void await(Process process, Path log, String what, BooleanSupplier done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (!done.getAsBoolean()) {
      if (!process.isAlive()) {
        fail("migrate --live ended (exit " + process.exitValue() + ") before " + what + ":\n"
            + Files.readString(log));
      }
      if (System.nanoTime() > deadline) {
        fail("no " + what + " within 3 minutes:\n" + Files.readString(log));
      }
      Thread.sleep(20);
    }
  }

  private static boolean columnExists(SpannerTestDatabase spanner, String column) {
    return spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '' AND "
        + "TABLE_NAME = 'items' AND COLUMN_NAME = '" + column + "'") > 0;
  }

  private static long indexes(SpannerTestDatabase spanner) {
    return spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = '' AND "
        + "TABLE_NAME = 'items' AND INDEX_TYPE = 'INDEX'");
  }
}
