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
}
