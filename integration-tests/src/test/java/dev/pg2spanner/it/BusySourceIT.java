package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.completeLines;
import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27, locks and DDL on a busy source: another session's lock while verify reads is a source error with its
 * documented exit code naming the table, the lock and the blocking session; a column added during a load leads to a
 * way forward, not a dead end; a plain migrate whose source took writes after its snapshot says so.
 */
@WithPostgres
@WithSpannerEmulator
class BusySourceIT {

  private static final CliRunner CLI = CliRunner.withEnv(Map.of());

  private static Path plan(PgTestDatabase pg, String schema, Path out, String... extra) {
    List<String> args = new ArrayList<>(List.of("plan", "--source", pg.jdbcUrl(), "--out", out.toString(),
        "--schemas", schema));
    args.addAll(List.of(extra));
    CliRunner.Result r = CLI.run(args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    return out.resolve("plan.yaml");
  }

  private static String target(SpannerTestDatabase spanner, String database) {
    return spanner.id().getInstanceId().getName() + "/databases/" + database;
  }

  @Test
  void aLockTakenWhileVerifyReadsIsASourceErrorNamingTableLockAndSession(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA locked", "CREATE TABLE locked.a_big (id int PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO locked.a_big SELECT g, md5(g::text) || repeat('x', 64) FROM generate_series(1, 100000) g",
        "CREATE TABLE locked.b_small (id int PRIMARY KEY)", "INSERT INTO locked.b_small SELECT generate_series(1, 10)",
        "ANALYZE");
    Path planFile = plan(pg, "locked", dir.resolve("plan"));
    CliRunner.Result migrated = CLI.run(migrateArgs(planFile, pg, target(spanner, "locked"), spanner.emulatorHost(),
        dir.resolve("run"), "--no-verify").toArray(String[]::new));
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();

    // verify locks every table in its snapshot, then reads a_big and b_small one after the other; a LOCK TABLE
    // queued behind it on b_small makes the reader of b_small wait.
    CompletableFuture<CliRunner.Result> verify = CompletableFuture.supplyAsync(() -> CLI.run("verify", "--plan",
        planFile.toString(), "--source", pg.jdbcUrl(), "--target", target(spanner, "locked"), "--emulator",
        spanner.emulatorHost(), "--threads", "1"));
    awaitLock(pg, "b_small", "AccessShareLock", true, verify);
    try (Locker locker = new Locker(pg, "LOCK TABLE locked.b_small IN ACCESS EXCLUSIVE MODE")) {
      awaitLock(pg, "b_small", "AccessExclusiveLock", false, verify);
      CliRunner.Result r = verify.get(3, TimeUnit.MINUTES);
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
      assertThat(r.err()).contains("verify could not read locked.b_small")
          .contains("ACCESS EXCLUSIVE lock").contains("pid " + locker.pid).contains("waiting for the lock")
          .contains("LOCK TABLE locked.b_small IN ACCESS EXCLUSIVE MODE")
          .contains("SELECT pg_cancel_backend(" + locker.pid + ")").contains("run verify again")
          .doesNotContain("internal error").doesNotContain("\tat ");
    }
  }

  @Test
  void aColumnAddedDuringTheLoadStopsVerifyNamingTheAlterAndLeadsToAStartOver(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA grown", "CREATE TABLE grown.items (id int PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO grown.items SELECT g, md5(g::text) || repeat('x', 64) FROM generate_series(1, 150000) g",
        "ANALYZE");
    Path planFile = plan(pg, "grown", dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> CLI.run(migrateArgs(planFile,
        pg, target(spanner, "grown"), spanner.emulatorHost(), run, "--workers", "1").toArray(String[]::new)));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (completeLines(run.resolve(RunFiles.DONE)) < 1) {
      if (migrate.isDone() || System.nanoTime() > deadline) {
        fail("the load did not get going: " + (migrate.isDone() ? migrate.join().out() + migrate.join().err() : ""));
      }
      Thread.sleep(20);
    }
    CliRunner.Result failed;
    int alterPid;
    try (Locker alter = new Locker(pg, "ALTER TABLE grown.items ADD COLUMN note text")) {
      alterPid = alter.pid;
      failed = migrate.get(5, TimeUnit.MINUTES);
    }
    assertThat(failed.exitCode()).as(failed.out() + failed.err()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
    assertThat(failed.err()).contains("could not read grown.items").contains("pid " + alterPid)
        .contains("ALTER TABLE grown.items ADD COLUMN note text").contains("waits for verify's own snapshot")
        .contains("start over with a new plan").doesNotContain("internal error");
    assertThat(MigrateSupport.pgLong(pg, "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = "
        + "'grown' AND column_name = 'note'")).as("the ALTER went through once migrate let go").isEqualTo(1);

    // The run cannot continue under its plan (the source changed) ...
    CliRunner.Result resumed = CLI.run(migrateArgs(planFile, pg, target(spanner, "grown"), spanner.emulatorHost(),
        run, "--resume").toArray(String[]::new));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(resumed.err()).contains("column grown.items.note was added").contains("cannot continue")
        .contains("pg2spanner plan --source").contains("--replace").contains("rm -r " + run);
    // ... nor under a new one: --resume names the difference and the same way forward ...
    plan(pg, "grown", dir.resolve("plan"), "--replace");
    CliRunner.Result replanned = CLI.run(migrateArgs(planFile, pg, target(spanner, "grown"), spanner.emulatorHost(),
        run, "--resume").toArray(String[]::new));
    assertThat(replanned.exitCode()).as(replanned.out() + replanned.err()).isEqualTo(ExitCode.RUN_STATE.exitCode());
    assertThat(replanned.err()).contains("table grown.items: column note added").contains("start a new run");
    // ... which works: a new database and run directory, the new plan.
    CliRunner.Result fresh = CLI.run(migrateArgs(planFile, pg, target(spanner, "grown-again"),
        spanner.emulatorHost(), dir.resolve("run-again")).toArray(String[]::new));
    assertThat(fresh.exitCode()).as(fresh.out() + fresh.err()).isZero();
    assertThat(fresh.out()).contains("all match").doesNotContain("took writes");
  }

  @Test
  void aTableDroppedDuringTheLoadLeadsToAStartOverToo(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA shrunk", "CREATE TABLE shrunk.items (id int PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO shrunk.items SELECT g, md5(g::text) || repeat('x', 64) FROM generate_series(1, 150000) g",
        "CREATE TABLE shrunk.scratch (id int PRIMARY KEY)", "INSERT INTO shrunk.scratch SELECT generate_series(1, 10)",
        "ANALYZE");
    Path planFile = plan(pg, "shrunk", dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> CLI.run(migrateArgs(planFile,
        pg, target(spanner, "shrunk"), spanner.emulatorHost(), run, "--workers", "1").toArray(String[]::new)));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (completeLines(run.resolve(RunFiles.DONE)) < 1) {
      if (migrate.isDone() || System.nanoTime() > deadline) {
        fail("the load did not get going: " + (migrate.isDone() ? migrate.join().out() + migrate.join().err() : ""));
      }
      Thread.sleep(20);
    }
    CliRunner.Result failed;
    try (Locker drop = new Locker(pg, "DROP TABLE shrunk.scratch")) {
      failed = migrate.get(5, TimeUnit.MINUTES);
    }
    assertThat(failed.exitCode()).as(failed.out() + failed.err()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
    assertThat(failed.err()).contains("shrunk.scratch").contains("DROP TABLE shrunk.scratch");
    CliRunner.Result resumed = CLI.run(migrateArgs(planFile, pg, target(spanner, "shrunk"), spanner.emulatorHost(),
        run, "--resume").toArray(String[]::new));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(resumed.err()).contains("table shrunk.scratch no longer exists").contains("cannot continue")
        .contains("pg2spanner plan --source").contains("rm -r " + run);
  }

  @Test
  void aPlainMigrateSaysTheSourceTookWritesAfterItsSnapshot(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA moving", "CREATE TABLE moving.items (id int PRIMARY KEY, label text NOT NULL)",
        "INSERT INTO moving.items SELECT g, 'item ' || g FROM generate_series(1, 150000) g",
        "CREATE TABLE moving.quiet (id int PRIMARY KEY)", "INSERT INTO moving.quiet VALUES (1)", "ANALYZE");
    Path planFile = plan(pg, "moving", dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> CLI.run(migrateArgs(planFile,
        pg, target(spanner, "moving"), spanner.emulatorHost(), run, "--workers", "1").toArray(String[]::new)));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (completeLines(run.resolve(RunFiles.DONE)) < 1) {
      if (migrate.isDone() || System.nanoTime() > deadline) {
        fail("the load did not get going: " + (migrate.isDone() ? migrate.join().out() + migrate.join().err() : ""));
      }
      Thread.sleep(20);
    }
    // 1,000 inserts, 500 updates and 300 deletes while the load runs (the connection closes: its counters report).
    pg.execute("INSERT INTO moving.items SELECT g, 'late ' || g FROM generate_series(200001, 201000) g",
        "UPDATE moving.items SET label = 'changed' WHERE id <= 500",
        "DELETE FROM moving.items WHERE id BETWEEN 1001 AND 1300");
    CliRunner.Result r = migrate.get(5, TimeUnit.MINUTES);
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("all match")
        .contains("warning: the source took writes after the load's snapshot")
        .contains("moving.items (1,000 inserted, 500 updated, 300 deleted)").doesNotContain("moving.quiet (")
        .contains("migrate --live").contains("Stop the application's writes");
    assertThat(r.err()).contains("the source took writes after the load's snapshot");
  }

  /** Waits until {@code table} of any schema has a lock of {@code mode}, granted or waiting, by another session. */
  private static void awaitLock(PgTestDatabase pg, String table, String mode, boolean granted,
      CompletableFuture<CliRunner.Result> command) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    String sql = "SELECT COUNT(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = '" + table
        + "' AND l.mode = '" + mode + "' AND l.granted = " + granted;
    while (MigrateSupport.pgLong(pg, sql) == 0) {
      if (command.isDone()) {
        CliRunner.Result r = command.join();
        fail("the command ended (exit " + r.exitCode() + ") before the lock was seen:\n" + r.out() + r.err());
      }
      if (System.nanoTime() > deadline) {
        fail("no " + mode + " (granted " + granted + ") on " + table + " within 2 minutes");
      }
      Thread.sleep(20);
    }
  }

  /** Another session that runs {@code sql} in a transaction (it may wait for a lock) and holds it until closed. */
  private static final class Locker implements AutoCloseable {
    final int pid;
    private final Connection connection;
    private final CompletableFuture<Void> running;

    Locker(PgTestDatabase pg, String sql) throws Exception {
      connection = pg.connect();
      connection.setAutoCommit(false);
      try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getInt(1);
      }
      running = CompletableFuture.runAsync(() -> {
        try (Statement s = connection.createStatement()) {
          s.execute(sql);
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    }

    @Override
    public void close() throws Exception {
      try {
        running.get(5, TimeUnit.MINUTES); // granted once the command let go of the table
        connection.commit();
      } finally {
        connection.close();
      }
    }
  }
}
