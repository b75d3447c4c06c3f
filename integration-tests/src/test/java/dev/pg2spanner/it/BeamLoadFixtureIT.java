package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Beam DirectRunner on the same fixture as the in-process loader (MigrateIT): 210,000 rows over an interleaved
 * hierarchy, a table without a primary key, NULLs and values at Spanner's limits — verify must report every table equal.
 */
@WithPostgres
@WithSpannerEmulator
class BeamLoadFixtureIT {

  @Test
  void theInProcessFixtureLoadsThroughTheDirectRunnerAndVerifies(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    pg.execute(Fixtures.resource("fixtures/load-fixture.sql"));
    CliRunner cli = CliRunner.withEnv(Map.of());
    assertThat(cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--low-write-threshold", "0")
        .exitCode()).isZero();
    CliRunner.Result r = cli.run("migrate", "--runner", "direct", "--plan", out.resolve("plan.yaml").toString(),
        "--source", pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost(), "--workers", "2");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("5 table(s) verified: all match.");
    assertThat(MigrateIT.spannerCount(spanner, "order_lines")).isEqualTo(120_000);
  }
}
