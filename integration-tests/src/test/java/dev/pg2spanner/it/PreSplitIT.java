package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, point 2, on the emulator: split points in the plan (as plan proposes them for a table of a gigabyte or
 * more, written here by hand on a small table) are checked before anything changes, reported in report.md, skipped
 * on the emulator with a note, and the load is correct either way. Their computation is SplitPointsTest's.
 */
@WithPostgres
@WithSpannerEmulator
class PreSplitIT {

  @Test
  void splitPointsAreValidatedFirstSkippedOnTheEmulatorAndTheLoadIsComplete(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE readings (id bigint PRIMARY KEY, v text)",
        "INSERT INTO readings SELECT g, 'v' || g FROM generate_series(1, 5000) g", "ANALYZE");
    Path planFile = MigrateSupport.plan(pg, dir.resolve("plan"));
    Plan plan = PlanFiles.read(planFile);
    assertThat(plan.tables()).allMatch(t -> t.splitPoints().isEmpty()); // far below a gigabyte

    // Unsorted: refused before the target is touched.
    write(planFile, plan, List.of(List.of("3000"), List.of("1000")));
    CliRunner.Result refused = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run-refused")));
    assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(refused.err()).contains("splitPoints[1]: [1000] does not come after [3000] in key order");
    assertThat(refused.out()).doesNotContain("== 1/4");

    write(planFile, plan, List.of(List.of("1000"), List.of("2500"), List.of("4000")));
    CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run")));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("pre-split: 3 split point(s) for 1 table(s) (readings) planned; skipped on the "
        + "emulator").contains("1 table(s) verified: all match.");
    assertThat(MigrateIT.spannerCount(spanner, "readings")).isEqualTo(5000);
  }

  private static void write(Path file, Plan plan, List<List<String>> points) throws Exception {
    List<TablePlan> tables = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      tables.add(t.source().equals("public.readings") ? t.withSplitPoints(points) : t);
    }
    Files.delete(file);
    PlanFiles.write(new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(),
        plan.target(), tables, plan.sequences(), plan.findings()), file);
  }
}
