package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18: the Beam pipeline on Apache Flink (the classic FlinkRunner, Flink's embedded local cluster in this JVM)
 * through {@code migrate --runner flink}: Pagila with generated rows (an interleaved hierarchy, partitions, enums,
 * domains, arrays, bytea) from real PostgreSQL to the emulator, checked by the product's verify and by row counts.
 * Two workers, so two task slots: Flink's coders and serialisation see every element, as on a real cluster.
 */
@WithPostgres
@WithSpannerEmulator
class FlinkRunnerIT {

  @Test
  void pagilaLoadsThroughFlinksLocalClusterAndVerifiesExact(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    pg.execute(Files.readString(Fixtures.pagilaSchema()));
    pg.execute(Fixtures.resource("fixtures/pagila-data.sql"));
    CliRunner cli = CliRunner.withEnv(Map.of());
    CliRunner.Result plan = cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(),
        "--low-write-threshold", "0");
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();

    CliRunner.Result r = cli.run("migrate", "--runner", "flink", "--plan", out.resolve("plan.yaml").toString(),
        "--source", pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost(), "--workers", "2",
        "--dead-letter", out.resolve("dead.jsonl").toString());

    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("pieces on the FlinkRunner").contains("15 table(s) verified: all match.");
    // The time split from Flink's metrics: the FlinkRunner reports the same counters as the DirectRunner.
    assertThat(r.out()).containsPattern("Worker time: read [\\d.]+ s, batch [\\d.]+ s, write [\\d.]+ s \\([1-9]\\d* "
        + "commits.*, other [\\d.]+ s \\(2 threads");
    for (String table : List.of("actor", "film", "film_actor", "customer", "rental", "payment", "staff")) {
      assertThat(MigrateIT.spannerCount(spanner, table)).as(table).isEqualTo(MigrateIT.pgCount(pg, "public." + table));
    }
    assertThat(Files.readAllLines(out.resolve("dead.jsonl"))).as("no row may be dead-lettered").isEmpty();
  }

  @Test
  void flinkMasterMustBeHostAndPortAndGoesWithTheFlinkRunnerOnly(@TempDir Path out) {
    CliRunner cli = CliRunner.withEnv(Map.of());
    String[] common = {"migrate", "--plan", out.resolve("plan.yaml").toString(), "--source",
        "jdbc:postgresql://192.0.2.1:5432/app", "--target", "projects/p/instances/i/databases/d"};
    CliRunner.Result notHostPort = cli.run(concat(common, "--runner", "flink", "--flink-master", "http://jm"));
    assertThat(notHostPort.exitCode()).isEqualTo(2);
    assertThat(notHostPort.err()).contains("--flink-master must be HOST:PORT");
    CliRunner.Result wrongRunner = cli.run(concat(common, "--runner", "direct", "--flink-master", "jm:8081"));
    assertThat(wrongRunner.exitCode()).isEqualTo(2);
    assertThat(wrongRunner.err()).contains("--flink-master goes with --runner flink");
  }

  private static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
