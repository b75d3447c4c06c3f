package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.local.FlinkSessionCluster;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: one TaskManager of a Flink session cluster killed with SIGKILL in the middle of
 * {@code migrate --runner flink --flink-master}. The cluster (two TaskManagers with two slots each, so the survivor
 * can take the whole job) has a fixed-delay restart strategy, 3 attempts 10 s apart, which outlasts the 10 s heartbeat
 * timeout after which the JobManager drops the dead TaskManager. Flink reruns the job; the writes are
 * insert-or-update mutations, so rows written before the kill are written again to the same values, and the result
 * verifies exact.
 */
@WithPostgres
@WithSpannerEmulator
class FlinkClusterFaultIT {

  @Test
  void aTaskManagerKilledMidJobIsRestartedAroundAndTheLoadVerifiesExact(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path out, @TempDir Path clusterDir) throws Exception {
    pg.execute(Fixtures.resource("fixtures/beam-fixture.sql"));
    CliRunner cli = CliRunner.withEnv(Map.of());
    CliRunner.Result plan = cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(),
        "--low-write-threshold", "0");
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
    pg.execute("INSERT INTO orders VALUES (1, 99, 'NaN', 'bad')");
    Path dead = out.resolve("dead.jsonl");

    try (FlinkSessionCluster cluster = FlinkSessionCluster.start(clusterDir, FlinkClusterIT.clusterClasspath(), 2, 2,
        3, true, Duration.ofMinutes(4))) {
      CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(() -> cli.run("migrate", "--runner",
          "flink", "--flink-master", cluster.restAddress(), "--plan", out.resolve("plan.yaml").toString(), "--source",
          pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost(), "--workers", "2",
          "--max-bad-rows", "1", "--dead-letter", dead.toString()));

      // Mid-job: the job is running and at least one of its tasks has finished (it has made progress).
      String jobId = awaitProgress(cluster, run);
      FlinkSessionCluster.Member victim = cluster.taskManagers().get(0);
      ProcessHandle.of(victim.pid()).orElseThrow().destroyForcibly();

      CliRunner.Result r = run.get(8, TimeUnit.MINUTES);
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("loaded 30000 rows (30001 read, 1 dead-lettered)")
          .contains("2 table(s) verified: all match.");
      JsonNode job = cluster.rest("/jobs/" + jobId);
      assertThat(job.path("state").asText()).isEqualTo("FINISHED");
      assertThat(job.path("timestamps").path("RESTARTING").asLong()).as("the job was restarted after the kill")
          .isPositive();
      assertThat(ProcessHandle.of(victim.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }
    assertThat(MigrateIT.spannerCount(spanner, "customers")).isEqualTo(6_000);
    assertThat(MigrateIT.spannerCount(spanner, "orders")).isEqualTo(24_000);
    assertThat(Files.readAllLines(dead)).hasSize(1).allMatch(l -> l.contains("\"key\":\"1, 99\""));
  }

  /** The running job's id once one of its vertices has finished; fails if the run ends first or after 5 minutes. */
  private static String awaitProgress(FlinkSessionCluster cluster, CompletableFuture<CliRunner.Result> run)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (System.nanoTime() < deadline) {
      if (run.isDone()) {
        throw new AssertionError("migrate ended before the job made progress: " + run.get().out() + run.get().err());
      }
      for (JsonNode j : cluster.rest("/jobs/overview").path("jobs")) {
        if (j.path("state").asText().equals("RUNNING") && j.path("tasks").path("finished").asInt() > 0) {
          return j.path("jid").asText();
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no job made progress on the cluster within 5 minutes");
  }
}
