package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.local.FlinkSessionCluster;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: {@code migrate --runner flink --flink-master HOST:PORT} against a Flink 1.19 session cluster of separate
 * JVMs (a JobManager and two TaskManagers, two task slots each) started by {@link FlinkSessionCluster}, the class
 * behind {@code bin/flink-cluster}: a load, a live migration whose bulk phase runs there, and a TaskManager killed
 * mid-job. One cluster serves them all (starting one takes 20-60 s here), in that order: the last kills a TaskManager.
 *
 * <p>The cluster is started from this JVM's class path <em>without</em> pg2spanner's own modules and without Beam:
 * the TaskManagers can run the job only with the jars the FlinkRunner ships with it, as a user's own Flink cluster
 * would. The job's Flink REST record shows which TaskManager read how many rows. The cluster has a fixed-delay
 * restart strategy, 3 attempts 10 s apart, which outlasts the 10 s heartbeat timeout after which the JobManager drops
 * a dead TaskManager.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class FlinkClusterIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static FlinkSessionCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    // Generous: the test machines have 2 shared cores, and three JVMs start at once (30-60 s seen under load).
    // Under target/, not a temporary directory: the processes' logs stay there for a failure to be read.
    Path clusterDir = Path.of("target", "flink-cluster-it").toAbsolutePath();
    FlinkSessionCluster.stop(clusterDir);
    cluster = FlinkSessionCluster.start(clusterDir, clusterClasspath(), 2, 2, 3, true, Duration.ofMinutes(4));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** This JVM's class path minus the repository's own modules and Beam's jars. */
  static String clusterClasspath() {
    Path repo = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    List<String> kept = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry).toAbsolutePath();
      if (!p.startsWith(repo) && !p.getFileName().toString().startsWith("beam-")) {
        kept.add(entry);
      }
    }
    assertThat(String.join(File.pathSeparator, kept)).as("the cluster's class path").contains("flink-runtime")
        .doesNotContain("beam-runners-flink").doesNotContain("data-loader");
    return String.join(File.pathSeparator, kept);
  }

  private static Path plan(PgTestDatabase pg, Path out) throws Exception {
    pg.execute(Fixtures.resource("fixtures/beam-fixture.sql"));
    CliRunner.Result plan = CliRunner.withEnv(Map.of()).run("plan", "--source", pg.jdbcUrl(), "--out",
        out.toString(), "--low-write-threshold", "0");
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
    return out.resolve("plan.yaml");
  }

  private static Path passwordFile(Path dir) throws Exception {
    // The shared test server trusts local connections, so the value is not checked; the workers still open and read
    // the file (the missing-file test below shows where).
    Path file = dir.resolve("pgpass");
    Files.writeString(file, "not-checked-by-a-trust-server\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  @Nested
  @Order(1)
  @WithPostgres
  @WithSpannerEmulator
  class Load {

    @Test
    void loadsOnTheClustersTaskManagersDeadLettersTheBadRowAndVerifiesExact(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
      Path plan = plan(pg, out);
      // After planning, so the plan does not adapt to it: NaN has no Spanner NUMERIC form, so the converter rejects it.
      pg.execute("INSERT INTO orders VALUES (1, 99, 'NaN', 'bad')");
      Path dead = out.resolve("dead.jsonl");
      List<String> jobsBefore = jobIds();

      CliRunner.Result r = CliRunner.withEnv(Map.of()).run("migrate", "--runner", "flink", "--flink-master",
          cluster.restAddress(), "--plan", plan.toString(), "--source", pg.jdbcUrl(), "--target", spanner.path(),
          "--emulator", spanner.emulatorHost(), "--workers", "2", "--max-bad-rows", "1", "--dead-letter",
          dead.toString(), "--worker-password-file", passwordFile(out).toString());

      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("pieces on the FlinkRunner").contains("loaded 30000 rows (30001 read, 1 "
          + "dead-lettered)").contains("2 table(s) verified: all match.");
      assertThat(MigrateIT.spannerCount(spanner, "customers")).isEqualTo(6_000);
      assertThat(MigrateIT.spannerCount(spanner, "orders")).isEqualTo(24_000);
      // Written by a TaskManager, at the path given (the machine's file system is theirs too).
      List<String> lines = Files.readAllLines(dead);
      assertThat(lines).hasSize(1);
      JsonNode row = JSON.readTree(lines.get(0));
      assertThat(row.get("table").asText()).isEqualTo("orders");
      assertThat(row.get("key").asText()).isEqualTo("1, 99");

      // The job ran on the cluster, and both TaskManagers loaded pieces of the child level: the vertex whose chain
      // ends in its LoadPiece (which reads a piece and commits its rows where it read them) reports, per
      // TaskManager, the pieces it took in (its outputs are one count per piece and the dead letters, no rows).
      List<String> jobs = jobIds();
      jobs.removeAll(jobsBefore);
      assertThat(jobs).as("one new job on the cluster").hasSize(1);
      JsonNode job = cluster.rest("/jobs/" + jobs.get(0));
      assertThat(job.path("state").asText()).isEqualTo("FINISHED");
      assertThat(job.path("name").asText()).startsWith("pg2spanner-");
      JsonNode loadOrders = null;
      for (JsonNode v : job.path("vertices")) {
        if (v.path("name").asText().endsWith("Level 1/Load pieces/LoadPiece)")) {
          loadOrders = v;
        }
      }
      assertThat(loadOrders).as(job.toPrettyString()).isNotNull();
      JsonNode perTm = cluster.rest("/jobs/" + jobs.get(0) + "/vertices/" + loadOrders.path("id").asText()
          + "/taskmanagers").path("taskmanagers");
      Map<String, Long> piecesByTm = new HashMap<>();
      for (JsonNode tm : perTm) {
        piecesByTm.merge(tm.path("taskmanager-id").asText(), tm.path("metrics").path("read-records").asLong(),
            Long::sum);
      }
      assertThat(piecesByTm.keySet()).as(perTm.toPrettyString()).containsExactlyInAnyOrder("taskmanager-1",
          "taskmanager-2");
      assertThat(piecesByTm.values()).as(piecesByTm.toString()).allMatch(n -> n > 0);
      // Those TaskManagers are the cluster's own processes, not this JVM.
      assertThat(cluster.taskManagers()).allMatch(m -> m.pid() != ProcessHandle.current().pid()
          && ProcessHandle.of(m.pid()).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void theTaskManagersReadTheWorkerPasswordFileAndAMissingOneStopsTheRunNamingIt(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
      Path plan = plan(pg, out);
      Path missing = out.resolve("no-such-dir").resolve("pgpass");

      CliRunner.Result r = CliRunner.withEnv(Map.of()).run("migrate", "--runner", "flink", "--flink-master",
          cluster.restAddress(), "--plan", plan.toString(), "--source", pg.jdbcUrl(), "--target", spanner.path(),
          "--emulator", spanner.emulatorHost(), "--workers", "2", "--dead-letter", out.resolve("dead.jsonl").toString(),
          "--worker-password-file", missing.toString());

      // The worker's own error, rethrown by the launcher with its exit code (LOCAL_IO): the file and what to check.
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(10);
      assertThat(r.err()).contains("cannot read the source password file " + missing + " on the worker")
          .doesNotContain("internal error");
      // It was a TaskManager that tried to read it.
      String tmLogs = cluster.taskManagers().stream().map(m -> read(m.log())).collect(Collectors.joining("\n"));
      assertThat(tmLogs).contains("cannot read the source password file " + missing);
    }
  }

  /**
   * {@code migrate --live --runner flink --flink-master}: the launcher holds the slot's snapshot while the cluster's
   * TaskManagers import it for the bulk phase, then streams; a workload writes throughout; cutover is exact.
   */
  @Nested
  @Order(2)
  @WithLogicalPostgres
  @WithSpannerEmulator
  class Live {

    @Test
    void theBulkPhaseRunsOnTheClusterAndTheStreamAppliesWhatWasWrittenMeanwhile(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      LiveBeamIT.liveCutoverOnBeam(pg, spanner, dir, "FlinkRunner", "--runner", "flink", "--flink-master",
          cluster.restAddress());
    }
  }

  /**
   * One TaskManager killed with SIGKILL in the middle of {@code migrate --runner flink --flink-master} (each
   * TaskManager has two slots, so the survivor can take the whole job). Flink reruns the job; the writes are
   * insert-or-update mutations, so rows written before the kill are written again to the same values, and the result
   * verifies exact. Last: the cluster has one TaskManager after it.
   */
  @Nested
  @Order(3)
  @WithPostgres
  @WithSpannerEmulator
  class LostTaskManager {

    @Test
    void aTaskManagerKilledMidJobIsRestartedAroundAndTheLoadVerifiesExact(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
      pg.execute(Fixtures.resource("fixtures/beam-fixture.sql"));
      CliRunner cli = CliRunner.withEnv(Map.of());
      CliRunner.Result plan = cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(),
          "--low-write-threshold", "0");
      assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
      pg.execute("INSERT INTO orders VALUES (1, 99, 'NaN', 'bad')");
      Path dead = out.resolve("dead.jsonl");

      CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(() -> cli.run("migrate", "--runner",
          "flink", "--flink-master", cluster.restAddress(), "--plan", out.resolve("plan.yaml").toString(), "--source",
          pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost(), "--workers", "2",
          "--max-bad-rows", "1", "--dead-letter", dead.toString()));

      // Mid-job: the job is running and at least one of its tasks has finished (it has made progress).
      String jobId = awaitProgress(run);
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
      assertThat(MigrateIT.spannerCount(spanner, "customers")).isEqualTo(6_000);
      assertThat(MigrateIT.spannerCount(spanner, "orders")).isEqualTo(24_000);
      assertThat(Files.readAllLines(dead)).hasSize(1).allMatch(l -> l.contains("\"key\":\"1, 99\""));
    }

    /** The running job's id once one of its vertices has finished; fails if the run ends first or after 5 minutes. */
    private String awaitProgress(CompletableFuture<CliRunner.Result> run) throws Exception {
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

  private static List<String> jobIds() throws Exception {
    List<String> ids = new ArrayList<>();
    for (JsonNode j : cluster.rest("/jobs/overview").path("jobs")) {
      ids.add(j.path("jid").asText());
    }
    return ids;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
