package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
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
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a resumed live run makes of a table the load filled that is empty in Spanner. Before streaming began it can
 * only mean the target lost it: refused, nothing changed. Once streaming began the source may have emptied it (a
 * TRUNCATE the stream applied): the resume goes on, says so, and compares every table whole again.
 */
class LiveResumeTargetRowsIT {

  private static final String[] SCHEMA = {
      "CREATE TABLE items (id bigint PRIMARY KEY, c int NOT NULL, note text)",
      "INSERT INTO items SELECT g, g % 97, 'note ' || g FROM generate_series(1, 3000) g",
      "CREATE INDEX items_c_idx ON items (c)",
      "CREATE TABLE scratch (id int PRIMARY KEY, v text)",
      "INSERT INTO scratch SELECT g, 'v' || g FROM generate_series(1, 50) g",
      "ANALYZE"};

  /** Each case on its own source and target database. */
  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class AfterStreamingBegan {

    @Test
    void aTableTheSourceTruncatedWhileStreamingDoesNotStopTheResume(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      Process first = start(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live",
          "--progress-interval", "1"), dir.resolve("first.log"));
      try {
        awaitPhase(run, LiveState.Phase.STREAM, first, dir.resolve("first.log"));
        pg.execute("TRUNCATE scratch");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (spannerLong(spanner, "SELECT COUNT(*) FROM scratch") > 0) {
          if (System.nanoTime() > deadline) {
            fail("the TRUNCATE was not applied:\n" + Files.readString(dir.resolve("first.log")));
          }
          Thread.sleep(100);
        }
      } finally {
        first.destroyForcibly();
        assertThat(first.waitFor(1, TimeUnit.MINUTES)).isTrue();
      }
      pg.execute("INSERT INTO items VALUES (5001, 1, 'after the kill')");

      CompletableFuture<CliRunner.Result> resumed = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--resume",
              "--progress-interval", "1")));
      LiveMigrateIT.awaitStreaming(run, resumed);
      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result migrated = resumed.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
          + migrated.err()).isZero();
      assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
      assertThat(migrated.out()).contains("warning: scratch is empty in Spanner, though the load filled it");
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM scratch")).isZero();
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items"))
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM items")).isEqualTo(3001);
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class BeforeStreamingBegan {

    @Test
    void aTableTheTargetLostBeforeStreamingBeganRefusesTheResume(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      // The bulk phase on Beam's DirectRunner (no checkpoint: the run records which tables held rows), killed while
      // the post-load phases run, before anything is streamed.
      Process first = start(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live",
          "--runner", "direct", "--progress-interval", "1"), dir.resolve("first.log"));
      try {
        awaitPhase(run, LiveState.Phase.SCHEMA, first, dir.resolve("first.log"));
      } finally {
        first.destroyForcibly();
        assertThat(first.waitFor(1, TimeUnit.MINUTES)).isTrue();
      }
      LiveState killed = LiveState.read(run).orElseThrow();
      assertThat(killed.phase()).as("killed before streaming").isEqualTo(LiveState.Phase.SCHEMA);
      assertThat(killed.loadedTables()).containsExactlyInAnyOrder("items", "scratch");

      // The target loses scratch's rows (a table recreated, restored from an old backup ...).
      List<Mutation> rows = new ArrayList<>();
      try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT id, v FROM scratch"))) {
        while (rs.next()) {
          rows.add(Mutation.newInsertBuilder("scratch").set("id").to(rs.getLong(0)).set("v")
              .to(rs.isNull(1) ? null : rs.getString(1)).build());
        }
      }
      assertThat(rows).hasSize(50);
      spanner.client().writeAtLeastOnce(List.of(Mutation.delete("scratch", KeySet.all())));
      List<String> resume = migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--resume",
          "--runner", "direct", "--progress-interval", "1");
      CliRunner.Result refused = MigrateSupport.cli(resume);
      assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(refused.err()).contains("no longer holds the live run")
          .contains("table scratch is empty, but it held rows when the load ended").contains("new --run-dir");
      assertThat(LiveState.read(run).orElseThrow()).as("the refusal changed nothing").isEqualTo(killed);

      // With the rows back, the same resume finishes the schema phases, streams and cuts over exact.
      spanner.client().writeAtLeastOnce(rows);
      CompletableFuture<CliRunner.Result> resumed = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(resume));
      LiveMigrateIT.awaitStreaming(run, resumed);
      pg.execute("UPDATE scratch SET v = 'changed' WHERE id <= 5");
      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result migrated = resumed.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
          + migrated.err()).isZero();
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM scratch WHERE v = 'changed'")).isEqualTo(5);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items")).isEqualTo(3000);
    }
  }

  private static Process start(List<String> args, Path log) throws Exception {
    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(args);
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void awaitPhase(Path run, LiveState.Phase phase, Process process, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (true) {
      try {
        if (LiveState.read(run).map(s -> s.phase() == phase).orElse(false)) {
          return;
        }
      } catch (RuntimeException e) {
        // written while read: look again
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        fail("migrate --live did not reach its " + phase + " phase:\n" + Files.readString(log));
      }
      Thread.sleep(5);
    }
  }
}
