package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.PlanValidator;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 15, point 2: plan never writes a plan that migrate refuses; a key over Spanner's 16 columns is redesigned. */
@WithPostgres
@WithSpannerEmulator
class PlanPrecisionIT {

  @Test
  void aSeventeenColumnKeyIsPlannedValidMigratedAndVerified(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    String columns = IntStream.range(0, 17).mapToObj(i -> "c" + i + " int NOT NULL").collect(Collectors.joining(", "));
    String key = IntStream.range(0, 17).mapToObj(i -> "c" + i).collect(Collectors.joining(", "));
    String values = IntStream.range(0, 17).mapToObj(i -> "g + " + i).collect(Collectors.joining(", "));
    pg.execute("CREATE TABLE wide (" + columns + ", note text, PRIMARY KEY (" + key + "))",
        "INSERT INTO wide SELECT " + values + ", 'row ' || g FROM generate_series(1, 500) g", "ANALYZE");
    Path planFile = MigrateSupport.plan(pg, dir.resolve("plan"));
    var plan = PlanFiles.read(planFile);
    assertThat(plan.tables().get(0).keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.SYNTHETIC);
    assertThat(PlanValidator.problems(plan)).isEmpty();

    CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run")));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).containsPattern("(?m)^wide +\\| +500 \\| +500 \\| equal");
  }

  @Test
  void aTableWiderThanSpannerAllowsIsLeftOutWithAnErrorAndEverythingElseIsPlannedAndMigrated(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    // Issue 28: one table Spanner cannot hold no longer costs a 600-table database its plan.
    String columns = IntStream.range(1, 1025).mapToObj(i -> "c" + i + " int").collect(Collectors.joining(", "));
    pg.execute("CREATE SCHEMA toowide", "CREATE TABLE toowide.cols (id bigint PRIMARY KEY, " + columns + ")",
        "CREATE TABLE toowide.fine (id bigint PRIMARY KEY, note text, cols_id bigint REFERENCES toowide.cols)",
        "CREATE INDEX fine_note ON toowide.fine (note, id, note text_pattern_ops)",
        "INSERT INTO toowide.cols (id, c1) VALUES (1, 1)",
        "INSERT INTO toowide.fine SELECT g, 'note ' || g, 1 FROM generate_series(1, 20) g", "ANALYZE");
    try {
      planTooWide(pg, spanner, dir);
    } finally {
      pg.execute("DROP SCHEMA toowide CASCADE"); // the class's other test plans every schema
    }
  }

  private static void planTooWide(PgTestDatabase pg, SpannerTestDatabase spanner, Path dir) throws Exception {
    Path out = dir.resolve("plan");
    CliRunner.Result r = PlanCommandIT.plan(pg, out, "--schemas", "toowide");
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.PLAN_HAS_ERRORS.exitCode());
    var plan = PlanFiles.read(out.resolve("plan.yaml"));
    assertThat(plan.tables()).extracting(t -> t.source()).containsExactly("toowide.fine");
    // The index that repeats a column is kept, listing it once.
    assertThat(plan.tables().get(0).indexes()).singleElement().satisfies(i -> assertThat(i.columns())
        .extracting(k -> k.column()).containsExactly("note", "id"));
    String report = java.nio.file.Files.readString(out.resolve("report.md"));
    assertThat(report).contains("TABLE_LEFT_OUT")
        .contains("toowide.cols is left out of the plan: it has 1025 columns; Spanner allows at most 1024 per table")
        .contains("INTERLEAVE IN PARENT")
        .contains("Foreign key fine_cols_id_fkey is not created: it references toowide.cols")
        .contains("fine_note lists note more than once");
    // Nothing a person reads without a plan names a plan path.
    assertThat(r.out()).contains("Left out of the plan, because Spanner cannot hold it as it stands: toowide.cols");
    assertThat(r.out() + r.err() + report).doesNotContain("tables[");

    // migrate takes the plan as written: the table left out is left out on purpose, not "unplanned".
    CliRunner.Result m = MigrateSupport.cli(migrateArgs(out.resolve("plan.yaml"), pg,
        spanner.id().getInstanceId().getName() + "/databases/toowide", spanner.emulatorHost(), dir.resolve("run")));
    assertThat(m.exitCode()).as(m.out() + m.err()).isZero();
    assertThat(m.out()).containsPattern("fine +\\| +20 \\| +20 \\| equal").doesNotContain("NOT IN THE PLAN");
  }
}
