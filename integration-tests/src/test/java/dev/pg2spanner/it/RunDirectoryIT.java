package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.completeLines;
import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27: one run per run directory, and {@code --resume} continues only the run that was started. The tests share
 * one source database and one emulator instance, so each works in a schema and a target database of its own.
 */
@WithPostgres
@WithSpannerEmulator
class RunDirectoryIT {

  private static final CliRunner CLI = CliRunner.withEnv(Map.of());
  private static final long BIG = 150_000;

  private static Path plan(PgTestDatabase pg, String schema, Path out) {
    CliRunner.Result r = CLI.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--schemas", schema);
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    return out.resolve("plan.yaml");
  }

  private static String target(SpannerTestDatabase spanner, String database) {
    return spanner.id().getInstanceId().getName() + "/databases/" + database;
  }

  private static DatabaseClient client(SpannerTestDatabase spanner, String database) {
    return spanner.spanner().getDatabaseClient(DatabaseId.of(spanner.id().getInstanceId(), database));
  }

  @Test
  void aSecondCommandOnABusyRunDirectoryIsRefusedAtOnceAndAKilledRunResumesWithEveryLineKept(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA busy", "CREATE TABLE busy.big (id int PRIMARY KEY, payload text NOT NULL)",
        "INSERT INTO busy.big SELECT g, md5(g::text) || repeat('x', 64) FROM generate_series(1, " + BIG + ") g",
        "ANALYZE");
    Path planFile = plan(pg, "busy", dir.resolve("plan"));
    Path run = dir.resolve("run");
    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(migrateArgs(planFile, pg, target(spanner, "busy"), spanner.emulatorHost(), run, "--workers", "1"));
    Path log = dir.resolve("first.log");
    Process first = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Path done = run.resolve(RunFiles.DONE);
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (completeLines(done) < 1) {
        if (!first.isAlive()) {
          fail("migrate ended (exit " + first.exitValue() + ") before a piece was done:\n" + Files.readString(log));
        }
        if (System.nanoTime() > deadline) {
          fail("no piece was done within 2 minutes:\n" + Files.readString(log));
        }
        Thread.sleep(50);
      }

      // A second migrate, and a --resume, on the same run directory while the first loads. Their source and target
      // cannot be reached: a refusal that says whose the directory is proves they touched neither.
      for (String extra : new String[] {"--workers", "--resume"}) {
        List<String> args = new ArrayList<>(List.of("migrate", "--plan", planFile.toString(), "--source",
            "jdbc:postgresql://127.0.0.1:1/nowhere?user=nobody", "--target", target(spanner, "busy"), "--emulator",
            "127.0.0.1:1", "--run-dir", run.toString()));
        args.add(extra);
        if (extra.equals("--workers")) {
          args.add("1");
        }
        long started = System.nanoTime();
        CliRunner.Result second = CLI.run(args.toArray(String[]::new));
        assertThat(second.exitCode()).as(extra + ": " + second.out() + second.err())
            .isEqualTo(ExitCode.RUN_STATE.exitCode());
        assertThat(second.err()).contains("is in use by migrate (pid " + first.pid() + " on host ")
            .contains(", since ").contains("nothing was changed on the source or the target")
            .contains("kill " + first.pid()).doesNotContain("127.0.0.1:1").doesNotContain("continue it with --resume,");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).as("refused at once").isLessThan(30);
      }
      CliRunner.Result status = CLI.run("status", "--run-dir", run.toString());
      assertThat(status.exitCode()).as(status.out() + status.err()).isZero();
      assertThat(status.out()).contains("running: migrate (pid " + first.pid()).containsPattern("\\d+ of \\d+ pieces");
    } finally {
      first.destroyForcibly(); // kill -9: the lock goes with the process
      assertThat(first.waitFor(1, TimeUnit.MINUTES)).isTrue();
    }
    List<String> before = Files.readAllLines(done);
    assertThat(before).isNotEmpty();

    CliRunner.Result resumed = CLI.run(migrateArgs(planFile, pg, target(spanner, "busy"), spanner.emulatorHost(), run,
        "--resume", "--workers", "1").toArray(String[]::new));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    assertThat(resumed.out()).contains("resuming: ").contains("all match");
    List<String> after = Files.readAllLines(done);
    assertThat(after.subList(0, before.size())).as("the killed run's checkpoint lines are all still there")
        .isEqualTo(before);
    assertThat(MigrateSupport.spannerLong(client(spanner, "busy"), "SELECT COUNT(*) FROM busy.big")).isEqualTo(BIG);
  }

  @Test
  void resumeRefusesAPlanEditedSinceTheRunBeganAndNamesWhatChanged(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA edited", "CREATE TABLE edited.t (id int PRIMARY KEY, a int NOT NULL, b int NOT NULL, "
        + "c text)", "INSERT INTO edited.t SELECT g, g, -g, 'c' || g FROM generate_series(1, 1000) g", "ANALYZE");
    Path planFile = plan(pg, "edited", dir.resolve("plan"));
    Path run = dir.resolve("run");
    String database = "edited";
    CliRunner.Result first = CLI.run(migrateArgs(planFile, pg, target(spanner, database), spanner.emulatorHost(), run)
        .toArray(String[]::new));
    assertThat(first.exitCode()).as(first.out() + first.err()).isZero();
    assertThat(run.resolve(RunFiles.RECORD)).exists();
    assertThat(run.resolve(RunFiles.PLAN_AT_START)).exists();
    String recorded = Files.readString(run.resolve(RunFiles.RECORD));

    // Two column targets swapped and a column renamed, the way a person edits plan.yaml.
    String yaml = Files.readString(planFile);
    yaml = retarget(yaml, "a", "tmp_a");
    yaml = retarget(yaml, "b", "a");
    yaml = retarget(yaml, "tmp_a", "b");
    yaml = retarget(yaml, "c", "note");
    Files.writeString(planFile, yaml);

    CliRunner.Result refused = CLI.run(migrateArgs(planFile, pg, target(spanner, database), spanner.emulatorHost(),
        run, "--resume").toArray(String[]::new));
    assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.RUN_STATE.exitCode());
    assertThat(refused.err()).contains("was started with a different plan (")
        .contains("column a now targets b (was a)").contains("column b now targets a (was b)")
        .contains("column c now targets note (was c)")
        .contains("nothing was changed on the source or the target")
        .contains("pg2spanner migrate --resume --plan " + run.resolve(RunFiles.PLAN_AT_START))
        .contains("or start a new run: drop " + target(spanner, database));
    assertThat(MigrateSupport.spannerLong(client(spanner, database), "SELECT a FROM edited.t WHERE id = 7"))
        .as("the target keeps the mapping it was loaded with").isEqualTo(7);

    // Another target is another run too.
    CliRunner.Result elsewhere = CLI.run(migrateArgs(run.resolve(RunFiles.PLAN_AT_START), pg,
        target(spanner, "elsewhere"), spanner.emulatorHost(), run, "--resume").toArray(String[]::new));
    assertThat(elsewhere.exitCode()).as(elsewhere.out() + elsewhere.err()).isEqualTo(ExitCode.RUN_STATE.exitCode());
    assertThat(elsewhere.err()).contains("a different target (" + target(spanner, database) + " on the emulator then, "
        + target(spanner, "elsewhere") + " on the emulator now)").doesNotContain("different plan");

    // The first way on works: the run's own plan, as the message gives it.
    Matcher command = Pattern.compile("pg2spanner (migrate --resume --plan \\S+ --source '([^']+)' --target (\\S+) "
        + "--emulator (\\S+) --run-dir ([^;\\s]+))").matcher(refused.err());
    assertThat(command.find()).as(refused.err()).isTrue();
    assertThat(command.group(2)).isEqualTo(pg.jdbcUrl().replaceAll("[?&]password=[^&]*", ""));
    CliRunner.Result asStarted = CLI.run(command.group(1).split(" ")[0], "--resume", "--plan",
        run.resolve(RunFiles.PLAN_AT_START).toString(), "--source", pg.jdbcUrl(), "--target", command.group(3),
        "--emulator", command.group(4), "--run-dir", command.group(5));
    assertThat(asStarted.exitCode()).as(asStarted.out() + asStarted.err()).isZero();
    assertThat(asStarted.out()).contains("all match");
    assertThat(run.resolve(RunFiles.RECORD)).as("a resumed run keeps the record of the run it continues")
        .hasContent(recorded);
  }

  @Test
  void resumeWithNothingToResumeAndAnUnreachableTargetLeaveNoRunDirectory(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA nothing", "CREATE TABLE nothing.t (id int PRIMARY KEY)",
        "INSERT INTO nothing.t SELECT generate_series(1, 10)", "ANALYZE");
    Path planFile = plan(pg, "nothing", dir.resolve("plan"));
    Path run = dir.resolve("run");

    CliRunner.Result resumed = CLI.run(migrateArgs(planFile, pg, target(spanner, "nothing"), spanner.emulatorHost(),
        run, "--resume").toArray(String[]::new));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isEqualTo(ExitCode.RUN_STATE.exitCode());
    assertThat(resumed.err()).contains("holds no run to resume").contains("without --resume");
    assertThat(run).as("a refused run leaves no run directory").doesNotExist();

    CliRunner.Result unreachable = CLI.run(migrateArgs(planFile, pg, "projects/p/instances/i1/databases/d1",
        "127.0.0.1:1", run).toArray(String[]::new));
    assertThat(unreachable.exitCode()).as(unreachable.out() + unreachable.err())
        .isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
    assertThat(run).as("an unreachable target leaves no run directory").doesNotExist();
    CliRunner.Result badTarget = CLI.run(migrateArgs(planFile, pg, "projects/p/instances/i/databases/d",
        spanner.emulatorHost(), run).toArray(String[]::new));
    assertThat(badTarget.exitCode()).as(badTarget.out() + badTarget.err()).isEqualTo(2);
    assertThat(run).as("a target refused before the run began leaves no run directory").doesNotExist();

    CliRunner.Result noRun = CLI.run("status", "--run-dir", run.toString());
    assertThat(noRun.exitCode()).as(noRun.out() + noRun.err()).isEqualTo(ExitCode.RUN_STATE.exitCode());
    assertThat(noRun.err()).contains("holds no run");
  }

  @Test
  void statusShowsANonLiveRunsProgress(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    pg.execute("CREATE SCHEMA shown", "CREATE TABLE shown.t (id int PRIMARY KEY, v text)",
        "INSERT INTO shown.t SELECT g, 'v' || g FROM generate_series(1, 500) g", "ANALYZE");
    Path planFile = plan(pg, "shown", dir.resolve("plan"));
    Path run = dir.resolve("run");
    CliRunner.Result migrated = CLI.run(migrateArgs(planFile, pg, target(spanner, "shown"), spanner.emulatorHost(),
        run).toArray(String[]::new));
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
    assertThat(migrated.out()).as("a quiet source is not reported as written").doesNotContain("took writes");

    CliRunner.Result status = CLI.run("status", "--run-dir", run.toString());
    assertThat(status.exitCode()).as(status.out() + status.err()).isZero();
    assertThat(status.out()).contains("Run in " + run).contains("state        completed")
        .containsPattern("load +(\\d+) of \\1 pieces done \\(100%\\)").contains("500 copied")
        .contains("shown.t: 500 rows").contains(target(spanner, "shown")).contains("runner in-process");
  }

  /** Sets the {@code target:} of the column whose {@code target} is {@code from}, as a person edits plan.yaml. */
  private static String retarget(String yaml, String from, String to) {
    Matcher m = Pattern.compile("(?m)^(        target: )\"?" + Pattern.quote(from) + "\"?$").matcher(yaml);
    assertThat(m.find()).as("a column targeting " + from + " in:\n" + yaml).isTrue();
    return yaml.substring(0, m.start()) + m.group(1) + to + yaml.substring(m.end());
  }
}
