package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source changes under a plan, and a key Spanner cannot hold: one clear sentence each, nothing half-done. */
@WithPostgres
@WithSpannerEmulator
class HostileInputIT {

  private static CliRunner.Result plan(PgTestDatabase pg, Path out) {
    return CliRunner.withEnv(Map.of()).run("plan", "--source", pg.jdbcUrl(), "--out", out.toString());
  }

  private static CliRunner.Result migrate(PgTestDatabase pg, SpannerTestDatabase spanner, Path out, String database,
      String... extra) {
    String target = spanner.id().getInstanceId().getName() + "/databases/" + database;
    String[] base = {"migrate", "--plan", out.resolve("plan.yaml").toString(), "--source", pg.jdbcUrl(), "--target",
        target, "--emulator", spanner.emulatorHost(), "--run-dir", out.resolve("run-" + database).toString()};
    String[] args = new String[base.length + extra.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(extra, 0, args, base.length, extra.length);
    return CliRunner.withEnv(Map.of()).run(args);
  }

  @Test
  void aTableDroppedOrAColumnRetypedSincePlanStopsMigrateBeforeAnythingIsWritten(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
    pg.execute("CREATE TABLE keep_me (id int PRIMARY KEY, amount numeric(10,2))",
        "CREATE TABLE drop_me (id int PRIMARY KEY)", "INSERT INTO keep_me VALUES (1, 2.50)", "ANALYZE");
    assertThat(plan(pg, out).exitCode()).isZero();
    pg.execute("DROP TABLE drop_me", "ALTER TABLE keep_me ALTER COLUMN amount TYPE text");
    CliRunner.Result r = migrate(pg, spanner, out, "drift");
    assertThat(r.exitCode()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(r.err()).contains("table public.drop_me no longer exists")
        .contains("column public.keep_me.amount changed type from numeric(10,2) to text")
        .contains("Run pg2spanner plan again").doesNotContain("\tat ");
    assertThat(r.out()).doesNotContain("== 1/4");
  }

  @Test
  void aKeyOverEightKibInTheDataIsFoundByPlanWhichKeepsEveryRowWithASyntheticKey(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
    // 8,192 bytes is the longest key Spanner takes; the emulator takes longer ones. Issue 28: plan measures the
    // longest key from the data and plans what keeps the table, instead of the load dead-lettering the row.
    pg.execute("CREATE TABLE codes (code text PRIMARY KEY, note text)",
        "INSERT INTO codes VALUES ('short', 'fine'), (repeat('k', 8192), 'the longest key'), "
            + "(repeat('l', 8193), 'one byte too long for a Spanner key')", "ANALYZE");
    assertThat(plan(pg, out).exitCode()).isZero();
    TablePlan codes = PlanFiles.read(out.resolve("plan.yaml")).tables().get(0);
    assertThat(codes.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.SYNTHETIC);
    assertThat(codes.findings()).filteredOn(f -> f.code() == FindingCode.KEY_LIMIT).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("is 8193 bytes; Spanner allows 8192 bytes per key"));
    CliRunner.Result r = migrate(pg, spanner, out, "bigkey");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).containsPattern("(?m)^codes +\\| +3 \\| +3 \\| equal");
  }

  @Test
  void resumeIntoATargetThatLostItsTablesIsRefused(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path out)
      throws Exception {
    pg.execute("CREATE TABLE items (id int PRIMARY KEY, name text)",
        "INSERT INTO items SELECT g, 'i' || g FROM generate_series(1, 200) g", "ANALYZE");
    assertThat(plan(pg, out).exitCode()).isZero();
    assertThat(migrate(pg, spanner, out, "first").exitCode()).isZero();
    // The run directory pointed at another database: not the run it records (issue 27).
    Files.copy(out.resolve("run-first"), out.resolve("run-empty"));
    try (var files = Files.list(out.resolve("run-first"))) {
      for (Path f : files.toList()) {
        Files.copy(f, out.resolve("run-empty").resolve(f.getFileName()));
      }
    }
    CliRunner.Result elsewhere = migrate(pg, spanner, out, "empty", "--resume");
    assertThat(elsewhere.exitCode()).as(elsewhere.out() + elsewhere.err())
        .isEqualTo(ExitCode.RUN_STATE.exitCode());
    assertThat(elsewhere.err()).contains("a different target");
    // The same database, but it lost the migration's tables (as after an emulator restart).
    spanner.spanner().getDatabaseAdminClient().dropDatabase(spanner.id().getInstanceId().getInstance(), "first");
    CliRunner.Result r = migrate(pg, spanner, out, "first", "--resume");
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
    assertThat(r.err()).contains("records").contains("finished pieces").contains("without --resume");
  }

  @Test
  void verifyAgainstADatabaseThatDoesNotExistSaysSo(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path out)
      throws Exception {
    pg.execute("CREATE TABLE things (id int PRIMARY KEY)", "ANALYZE");
    assertThat(plan(pg, out).exitCode()).isZero();
    String missing = spanner.id().getInstanceId().getName() + "/databases/never-created";
    CliRunner.Result r = CliRunner.withEnv(Map.of()).run("verify", "--plan", out.resolve("plan.yaml").toString(),
        "--source", pg.jdbcUrl(), "--target", missing, "--emulator", spanner.emulatorHost());
    assertThat(r.exitCode()).isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
    assertThat(r.err()).contains("never-created").contains("does not exist").doesNotContain("\tat ");
  }
}
