package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13, safe by default: what a newcomer does wrong must not destroy data, hang, or leave a dead end. Each test
 * is one case that lost data, hung or trapped the user before. The tests share one source database, so each works in
 * its own schema and plans only that schema.
 */
@WithPostgres
@WithSpannerEmulator
class SafetyIT {

  private static final CliRunner CLI = CliRunner.withEnv(Map.of());

  private static CliRunner.Result plan(PgTestDatabase pg, String schema, Path out, String... extra) {
    List<String> args = new ArrayList<>(List.of("plan", "--source", pg.jdbcUrl(), "--out", out.toString(),
        "--schemas", schema));
    args.addAll(List.of(extra));
    return CLI.run(args.toArray(String[]::new));
  }

  /** A target database of this test's own: the class shares one emulator instance. */
  private static String target(SpannerTestDatabase spanner, String database) {
    return spanner.id().getInstanceId().getName() + "/databases/" + database;
  }

  private static long tablesOn(SpannerTestDatabase spanner, String database) {
    com.google.cloud.spanner.DatabaseClient client = spanner.spanner().getDatabaseClient(
        com.google.cloud.spanner.DatabaseId.of(spanner.id().getInstanceId(), database));
    try (ResultSet rs = client.singleUse().executeQuery(Statement.of("SELECT COUNT(*) FROM "
        + "information_schema.tables WHERE table_schema NOT IN ('INFORMATION_SCHEMA', 'SPANNER_SYS')"))) {
      rs.next();
      return rs.getLong(0);
    } catch (com.google.cloud.spanner.SpannerException e) {
      return 0; // the database was never created
    }
  }

  @Test
  void theDemoNeverDropsADatabaseItDidNotMake(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    String name = "p2s_precious_" + UUID.randomUUID().toString().substring(0, 8);
    String admin = pg.jdbcUrl().replaceFirst("/" + pg.name() + "\\?", "/postgres?");
    try (Connection c = DriverManager.getConnection(admin)) {
      c.createStatement().execute("CREATE DATABASE " + name);
    }
    try {
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl().replace("/" + pg.name() + "?", "/" + name + "?"))) {
        c.createStatement().execute("CREATE TABLE ledger (id int PRIMARY KEY); INSERT INTO ledger VALUES (42)");
      }
      CliRunner.Result r = CLI.run("demo", "--server", admin, "--database", name, "--emulator",
          spanner.emulatorHost(), "--out", dir.resolve("demo").toString());
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(2);
      assertThat(r.err()).contains("database " + name + " already exists").contains("--database NAME");
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl().replace("/" + pg.name() + "?", "/" + name + "?"));
          java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT id FROM ledger")) {
        assertThat(rs.next()).as("the user's table survived").isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
      // An output directory holding someone else's files is refused too: the demo replaces what is in it.
      Path busy = Files.createDirectories(dir.resolve("busy"));
      Files.writeString(busy.resolve("notes.txt"), "mine");
      CliRunner.Result out = CLI.run("demo", "--server", admin, "--database", name + "_x", "--emulator",
          spanner.emulatorHost(), "--out", busy.toString());
      assertThat(out.exitCode()).as(out.out() + out.err()).isEqualTo(2);
      assertThat(out.err()).contains("--out " + busy);
      assertThat(busy.resolve("notes.txt")).hasContent("mine");
      // A file where the output directory should be: a usage error naming it, not an internal error.
      Path file = Files.writeString(dir.resolve("a-file"), "mine");
      CliRunner.Result onFile = CLI.run("demo", "--server", admin, "--database", name + "_y", "--emulator",
          spanner.emulatorHost(), "--out", file.toString());
      assertThat(onFile.exitCode()).as(onFile.out() + onFile.err()).isEqualTo(2);
      assertThat(onFile.err()).contains("--out " + file + " is a file");
    } finally {
      try (Connection c = DriverManager.getConnection(admin)) {
        c.createStatement().execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      }
    }
  }

  @Test
  void planKeepsAHandEditedPlanUnlessAskedToReplaceIt(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA edits", "CREATE TABLE edits.items (id int PRIMARY KEY, name text)", "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "edits", out).exitCode()).isZero();
    assertThat(plan(pg, "edits", out).exitCode()).as("an untouched plan is simply replaced").isZero();
    Path planFile = out.resolve("plan.yaml");
    String edited = Files.readString(planFile).replace("target: name", "target: display_name");
    assertThat(edited).isNotEqualTo(Files.readString(planFile));
    Files.writeString(planFile, edited);

    CliRunner.Result again = plan(pg, "edits", out);
    assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(2);
    assertThat(again.err()).contains("was edited").contains("--replace");
    assertThat(planFile).hasContent(edited);

    CliRunner.Result replaced = plan(pg, "edits", out, "--replace");
    assertThat(replaced.exitCode()).as(replaced.out() + replaced.err()).isZero();
    assertThat(Files.readString(planFile)).doesNotContain("display_name");
    try (var kept = Files.list(out)) {
      Path copy = kept.filter(p -> p.getFileName().toString().startsWith("plan.yaml.edited-")).findFirst()
          .orElseThrow(() -> new AssertionError("no copy of the edited plan in " + out));
      assertThat(copy).hasContent(edited);
    }
  }

  @Test
  void aTableCreatedAfterPlanIsNamedByMigrateAndByVerify(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA late", "CREATE TABLE late.orders (id int PRIMARY KEY, total int)",
        "INSERT INTO late.orders SELECT g, g FROM generate_series(1, 50) g", "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "late", out).exitCode()).isZero();
    pg.execute("CREATE TABLE late.refunds (id int PRIMARY KEY, amount int)", "INSERT INTO late.refunds VALUES (1, 5)");
    Path planFile = out.resolve("plan.yaml");

    CliRunner.Result refused = CLI.run(migrateArgs(planFile, pg, target(spanner, "late"), spanner.emulatorHost(),
        dir.resolve("run")).toArray(String[]::new));
    assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(refused.err()).contains("table late.refunds is in the source but not in the plan")
        .contains("--skip-unplanned-tables");
    assertThat(tablesOn(spanner, "late")).as("nothing was created on the target").isZero();

    CliRunner.Result skipped = CLI.run(migrateArgs(planFile, pg, target(spanner, "late"), spanner.emulatorHost(),
        dir.resolve("run"), "--skip-unplanned-tables").toArray(String[]::new));
    assertThat(skipped.exitCode()).as(skipped.out() + skipped.err()).isZero();
    assertThat(skipped.out()).contains("late.refunds is in the source but not in the plan");

    List<String> verify = List.of("verify", "--plan", planFile.toString(), "--source", pg.jdbcUrl(), "--target",
        target(spanner, "late"), "--emulator", spanner.emulatorHost());
    CliRunner.Result verified = CLI.run(verify.toArray(String[]::new));
    assertThat(verified.exitCode()).as(verified.out() + verified.err())
        .isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
    assertThat(verified.out()).contains("NOT IN THE PLAN").contains("late.refunds");
    assertThat(verified.err()).contains("not in the plan").doesNotContain("all match");
    List<String> knowingly = new ArrayList<>(verify);
    knowingly.add("--skip-unplanned-tables");
    CliRunner.Result accepted = CLI.run(knowingly.toArray(String[]::new));
    assertThat(accepted.exitCode()).as(accepted.out() + accepted.err()).isZero();
    assertThat(accepted.out()).contains("late.refunds");
  }

  @Test
  void aTableBlockRemovedFromThePlanIsNamedAsSuch(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    pg.execute("CREATE SCHEMA trimmed", "CREATE TABLE trimmed.keep (id int PRIMARY KEY)",
        "CREATE TABLE trimmed.drop_me (id int PRIMARY KEY)", "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "trimmed", out).exitCode()).isZero();
    Path planFile = out.resolve("plan.yaml");
    Plan plan = PlanFiles.read(planFile);
    PlanFiles.write(new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(),
        plan.target(), plan.tables().stream().filter(t -> !t.source().equals("trimmed.drop_me")).toList(),
        plan.sequences(), plan.findings()), planFile);

    CliRunner.Result r = CLI.run(migrateArgs(planFile, pg, target(spanner, "trimmed"), spanner.emulatorHost(),
        dir.resolve("run")).toArray(String[]::new));
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(r.err()).contains("table trimmed.drop_me is in the source but not in the plan")
        .doesNotContain("changed since plan ran");
    CliRunner.Result knowingly = CLI.run(migrateArgs(planFile, pg, target(spanner, "trimmed"), spanner.emulatorHost(),
        dir.resolve("run"), "--skip-unplanned-tables").toArray(String[]::new));
    assertThat(knowingly.exitCode()).as("the fingerprint still matches the tables that are planned: "
        + knowingly.out() + knowingly.err()).isZero();
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES) // it used to print nothing for 17–24 minutes
  void anUnreachableTargetFailsPromptlyNamingTheAddress(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA lonely", "CREATE TABLE lonely.t (id int PRIMARY KEY)", "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "lonely", out).exitCode()).isZero();
    // Port 1 on this host: nothing listens there.
    CliRunner.Result r = CLI.run(migrateArgs(out.resolve("plan.yaml"), pg, "projects/p/instances/i1/databases/d1",
        "127.0.0.1:1", dir.resolve("run")).toArray(String[]::new));
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
    assertThat(r.err()).contains("127.0.0.1:1").doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void aRunRefusedBeforeTheLoadLeavesTheTargetUntouchedAndAPlainRerunWorks(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA deadend", "CREATE TABLE deadend.t (id int PRIMARY KEY, v text)",
        "INSERT INTO deadend.t SELECT g, 'v' || g FROM generate_series(1, 100) g", "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "deadend", out).exitCode()).isZero();
    Path planFile = out.resolve("plan.yaml");
    Path run = dir.resolve("run");

    // --resume on a target that never ran.
    CliRunner.Result resumed = CLI.run(migrateArgs(planFile, pg, target(spanner, "deadend"), spanner.emulatorHost(), run,
        "--resume").toArray(String[]::new));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isEqualTo(ExitCode.RUN_STATE.exitCode());
    assertThat(resumed.err()).contains("run migrate without --resume").contains("Nothing was changed");
    assertThat(tablesOn(spanner, "deadend")).isZero();

    // A dead-letter path that cannot be written.
    CliRunner.Result unwritable = CLI.run(migrateArgs(planFile, pg, target(spanner, "deadend"), spanner.emulatorHost(), run,
        "--dead-letter", "/proc/no/such/dead-letter.jsonl").toArray(String[]::new));
    assertThat(unwritable.exitCode()).as(unwritable.out() + unwritable.err())
        .isEqualTo(ExitCode.LOCAL_IO.exitCode());
    assertThat(unwritable.err()).contains("--dead-letter").contains("Nothing was changed");
    assertThat(tablesOn(spanner, "deadend")).isZero();

    // No dead end: the plain command now simply works.
    CliRunner.Result plain = CLI.run(migrateArgs(planFile, pg, target(spanner, "deadend"), spanner.emulatorHost(), run)
        .toArray(String[]::new));
    assertThat(plain.exitCode()).as(plain.out() + plain.err()).isZero();
    assertThat(plain.out()).contains("all match");
  }

  @Test
  void tablesLeftEmptyByAnEarlierRunAreReusedByAPlainRun(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA halfmade", "CREATE TABLE halfmade.t (id int PRIMARY KEY, v text)",
        "INSERT INTO halfmade.t SELECT g, 'v' || g FROM generate_series(1, 100) g", "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "halfmade", out).exitCode()).isZero();
    Path planFile = out.resolve("plan.yaml");
    // An earlier run that stopped after V1 and before any row: the tables exist, empty, and no piece was cut.
    dev.pg2spanner.targetdb.SpannerTarget halfMade = dev.pg2spanner.targetdb.SpannerTarget.parse(
        target(spanner, "halfmade"), spanner.emulatorHost());
    dev.pg2spanner.targetdb.EmulatorProvisioner.ensureExists(spanner.spanner(), halfMade);
    new dev.pg2spanner.schema.FlywayMigrator(halfMade, out.resolve("migrations")).migrateTo(1);
    assertThat(tablesOn(spanner, "halfmade")).isPositive();

    CliRunner.Result plain = CLI.run(migrateArgs(planFile, pg, target(spanner, "halfmade"), spanner.emulatorHost(),
        dir.resolve("run")).toArray(String[]::new));
    assertThat(plain.exitCode()).as(plain.out() + plain.err()).isZero();
    assertThat(plain.out()).contains("they are empty, so this run loads into them").contains("all match");
  }

  @Test
  void aDatabaseHoldingAnotherMigrationIsRefusedBeforeAnyChange(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA first", "CREATE TABLE first.a (id int PRIMARY KEY)", "CREATE SCHEMA second",
        "CREATE TABLE second.b (id int PRIMARY KEY)", "INSERT INTO second.b VALUES (1)", "ANALYZE");
    assertThat(plan(pg, "first", dir.resolve("first")).exitCode()).isZero();
    assertThat(plan(pg, "second", dir.resolve("second")).exitCode()).isZero();
    CliRunner.Result one = CLI.run(migrateArgs(dir.resolve("first/plan.yaml"), pg, target(spanner, "shared"),
        spanner.emulatorHost(), dir.resolve("run1")).toArray(String[]::new));
    assertThat(one.exitCode()).as(one.out() + one.err()).isZero();

    CliRunner.Result other = CLI.run(migrateArgs(dir.resolve("second/plan.yaml"), pg, target(spanner, "shared"),
        spanner.emulatorHost(), dir.resolve("run2")).toArray(String[]::new));
    assertThat(other.exitCode()).as(other.out() + other.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
    assertThat(other.err()).contains("holds another migration").contains("Choose another --target database");
    assertThat(tablesOn(spanner, "shared")).as("only the first plan's table and Flyway's history").isEqualTo(2);
  }

  @Test
  void workersAreCappedByTheConnectionsTheSourceCanSpare(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA crowd", "CREATE TABLE crowd.t (id int PRIMARY KEY)",
        "INSERT INTO crowd.t SELECT generate_series(1, 100)", "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "crowd", out).exitCode()).isZero();
    CliRunner.Result r = CLI.run(migrateArgs(out.resolve("plan.yaml"), pg, target(spanner, "crowd"), spanner.emulatorHost(),
        dir.resolve("run"), "--workers", "100000").toArray(String[]::new));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).containsPattern("--workers 100000 lowered to \\d+: the source can spare only that many "
        + "connections \\(max_connections \\d+");
    assertThat(r.err()).doesNotContain("too many clients");
  }

  @Test
  void planWithAnErrorFindingWritesEverythingAndExitsWithItsOwnCode(PgTestDatabase pg, @TempDir Path dir)
      throws Exception {
    pg.execute("CREATE SCHEMA shapes", "CREATE TYPE shapes.point3 AS (x float8, y float8, z float8)",
        "CREATE TABLE shapes.t (id int PRIMARY KEY, p shapes.point3)", "ANALYZE");
    Path out = dir.resolve("plan");
    CliRunner.Result r = plan(pg, "shapes", out);
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.PLAN_HAS_ERRORS.exitCode());
    assertThat(r.out()).contains("1 error(s)").contains("Errors must be resolved");
    assertThat(out.resolve("plan.yaml")).exists();
    assertThat(out.resolve("report.md")).content().contains("UNSUPPORTED_TYPE");
  }

  @Test
  void ctrlCSaysWhatWasSavedAndAKilledMigrateTakesItsEmulatorWithIt(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA stopped", "CREATE TABLE stopped.big (id int PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO stopped.big SELECT g, md5(g::text) || repeat('x', 64) FROM generate_series(1, 150000) g",
        "ANALYZE");
    Path out = dir.resolve("plan");
    assertThat(plan(pg, "stopped", out).exitCode()).isZero();
    String target = "projects/pg2spanner-test/instances/safety/databases/stopped";

    // SIGTERM, as Ctrl-C or a service manager sends: the run says what was kept and how to go on. On an emulator
    // that outlives the run, the checkpointed pieces are there to resume.
    Path interrupted = dir.resolve("interrupted");
    Process term = startMigrate(out, pg, target(spanner, "stopped"), interrupted, dir.resolve("term.log"),
        spanner.emulatorHost());
    awaitFirstPiece(term, interrupted, dir.resolve("term.log"));
    term.destroy();
    assertThat(term.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(Files.readString(dir.resolve("term.log"))).contains("migrate was stopped")
        .contains("pieces were loaded and checkpointed in " + interrupted).contains("--resume");

    // On the emulator migrate started for itself, the rows go with it: the message says to start again instead.
    Path own = dir.resolve("own");
    Process ownTerm = startMigrate(out, pg, target, own, dir.resolve("own.log"));
    awaitFirstPiece(ownTerm, own, dir.resolve("own.log"));
    emulatorOf(ownTerm); // migrate --emulator started its own
    ownTerm.destroy();
    assertThat(ownTerm.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(Files.readString(dir.resolve("own.log"))).contains("migrate was stopped")
        .contains("the rows loaded so far are gone with it").contains("a new --run-dir").doesNotContain("--resume");

    // kill -9 runs no hook at all: the emulator it started must still go away.
    Path killed = dir.resolve("killed");
    Process kill = startMigrate(out, pg, target, killed, dir.resolve("kill.log"));
    awaitFirstPiece(kill, killed, dir.resolve("kill.log"));
    ProcessHandle emulator = emulatorOf(kill);
    kill.destroyForcibly();
    assertThat(kill.waitFor(1, TimeUnit.MINUTES)).isTrue();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (emulator.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    boolean orphaned = emulator.isAlive();
    if (orphaned) {
      emulator.destroyForcibly();
    }
    assertThat(orphaned).as("emulator_main (pid " + emulator.pid() + ") outlived the migrate killed with -9").isFalse();
  }

  /** migrate in a JVM of its own, with {@code --emulator} and no value: it starts the installed emulator. */
  private static Process startMigrate(Path out, PgTestDatabase pg, String target, Path runDir, Path log)
      throws Exception {
    return startMigrate(out, pg, target, runDir, log, null);
  }

  /** migrate in a JVM of its own, against the emulator at {@code emulatorHost} (null: it starts its own). */
  private static Process startMigrate(Path out, PgTestDatabase pg, String target, Path runDir, Path log,
      String emulatorHost) throws Exception {
    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner", "migrate", "--plan",
        out.resolve("plan.yaml").toString(), "--source", pg.jdbcUrl(), "--target", target, "--emulator"));
    if (emulatorHost != null) {
      command.add(emulatorHost);
    }
    command.addAll(List.of("--run-dir", runDir.toString(), "--workers", "1", "--no-verify"));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void awaitFirstPiece(Process process, Path runDir, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (MigrateSupport.completeLines(runDir.resolve(Checkpoint.DONE_FILE)) < 1) {
      if (!process.isAlive()) {
        fail("migrate ended (exit " + process.exitValue() + ") before a piece was done:\n" + Files.readString(log));
      }
      if (System.nanoTime() > deadline) {
        process.destroyForcibly();
        fail("no piece was done within 2 minutes:\n" + Files.readString(log));
      }
      Thread.sleep(50);
    }
  }

  private static ProcessHandle emulatorOf(Process process) {
    Optional<ProcessHandle> emulator = process.descendants()
        .filter(p -> p.info().command().map(c -> c.endsWith("emulator_main")).orElse(false))
        .findFirst();
    assertThat(emulator).as("the emulator migrate --emulator started").isPresent();
    return emulator.get();
  }
}
