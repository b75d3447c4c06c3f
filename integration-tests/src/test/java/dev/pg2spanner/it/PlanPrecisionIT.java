package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

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
  void aTableWiderThanSpannerAllowsStopsPlanBeforeAnyFileAndTheSuggestedExclusionPlansTheRest(PgTestDatabase pg,
      @TempDir Path dir) throws Exception {
    String columns = IntStream.range(1, 1025).mapToObj(i -> "c" + i + " int").collect(Collectors.joining(", "));
    pg.execute("CREATE SCHEMA toowide", "CREATE TABLE toowide.cols (id bigint PRIMARY KEY, " + columns + ")",
        "CREATE TABLE toowide.fine (id bigint PRIMARY KEY, note text)", "ANALYZE");
    try {
      planTooWide(pg, dir.resolve("plan"));
    } finally {
      pg.execute("DROP SCHEMA toowide CASCADE"); // the class's other test plans every schema
    }
  }

  private static void planTooWide(PgTestDatabase pg, Path out) throws Exception {
    CliRunner.Result r = PlanCommandIT.plan(pg, out, "--schemas", "toowide");
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(dev.pg2spanner.error.ErrorCode.PLAN_INVALID.exitCode());
    assertThat(r.err()).contains("plan stopped before writing anything").contains("toowide.cols")
        .contains("has 1025 columns; Spanner allows at most 1024 per table")
        .contains("--exclude-tables '^(toowide\\.cols)$'").doesNotContain("toowide.fine:");
    assertThat(out.resolve("plan.yaml")).doesNotExist();

    // The way out it names works as written.
    CliRunner.Result again = PlanCommandIT.plan(pg, out, "--schemas", "toowide", "--exclude-tables",
        "^(toowide\\.cols)$");
    assertThat(again.exitCode()).as(again.out() + again.err()).isZero();
    assertThat(PlanFiles.read(out.resolve("plan.yaml")).tables()).extracting(t -> t.source())
        .containsExactly("toowide.fine");
  }
}
