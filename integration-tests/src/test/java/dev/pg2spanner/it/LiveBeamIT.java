package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.beam.JdbcPieceSources;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34 part 3: {@code migrate --live} whose bulk phase runs as a Beam job. The launcher creates the slot and
 * holds its exported snapshot open while the job's workers import it; after the job it streams from the slot as the
 * in-process path does, and {@code cutover} verifies exact. The workload writes all along, during the job too: a
 * change committed after the slot's consistent point and also read by the job would be applied twice (the keyless
 * {@code audit} table would hold the row twice), one the job missed and the stream skipped would be lost — either
 * fails cutover's verify.
 *
 * <p>A Flink session cluster of separate JVMs: call {@link #liveCutoverOnBeam} with {@code --flink-master} and
 * {@code --worker-password-file} from a class that has the cluster (the workers must reach the same PostgreSQL
 * server as the launcher, which holds the snapshot).
 */
class LiveBeamIT {

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class DirectRunner {

    /** Also stopped once while streaming ({@code --stop-slot-wal}) and resumed: the resumed run only streams. */
    @Test
    void bulkPhaseOnTheDirectRunnerThenStreamedStoppedResumedAndCutOverExactly(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      liveCutoverOnBeam(pg, spanner, dir, "DirectRunner", true, "--runner", "direct");
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class FlinkLocalCluster {

    @Test
    void bulkPhaseOnFlinksEmbeddedClusterThenStreamedAndCutOverExactly(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      liveCutoverOnBeam(pg, spanner, dir, "FlinkRunner", false, "--runner", "flink");
    }
  }

  /**
   * {@code migrate --live} with {@code runnerArgs} while {@link LiveWorkload} writes, then {@code cutover}: exact,
   * with writes committed while the job read, and the slot and publication gone. Prints its wall time.
   *
   * @param runnerName the runner's class name as the load's step line prints it ("FlinkRunner")
   */
  static void liveCutoverOnBeam(PgTestDatabase pg, SpannerTestDatabase spanner, Path dir, String runnerName,
      String... runnerArgs) throws Exception {
    liveCutoverOnBeam(pg, spanner, dir, runnerName, false, runnerArgs);
  }

  /**
   * @param stopAndResume the first migrate stops once streaming ({@code --stop-slot-wal 1kB}, exit 17) and
   *     {@code migrate --live --resume} with the same runner streams on (its load is done: no job is run)
   */
  private static void liveCutoverOnBeam(PgTestDatabase pg, SpannerTestDatabase spanner, Path dir,
      String runnerName, boolean stopAndResume, String... runnerArgs) throws Exception {
    long started = System.nanoTime();
    LiveWorkload.createSchema(pg);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    List<String> args = new ArrayList<>(List.of("--live", "--workers", "2", "--progress-interval", "1"));
    args.addAll(List.of(runnerArgs));

    CompletableFuture<CliRunner.Result> migrate;
    long duringLoad;
    try (LiveWorkload workload = new LiveWorkload(pg).start()) {
      List<String> first = new ArrayList<>(args);
      if (stopAndResume) {
        first.addAll(List.of("--stop-slot-wal", "1kB"));
      }
      migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(),
          spanner.emulatorHost(), run, first.toArray(String[]::new))));
      duringLoad = transactionsDuringLoad(run, workload, migrate);
      if (stopAndResume) {
        CliRunner.Result stopped = migrate.get(5, TimeUnit.MINUTES);
        assertThat(stopped.exitCode()).as(stopped.out() + stopped.err()).isEqualTo(17);
        assertThat(stopped.out()).contains("pieces on the " + runnerName).contains("5 table(s) verified: all match.");
        assertThat(stopped.out() + stopped.err()).contains("migrate --live --resume --plan " + plan + " --run-dir "
            + run + " " + String.join(" ", runnerArgs) + " (same --source and --target)");
        List<String> resume = new ArrayList<>(args);
        resume.add("--resume");
        // A Beam job keeps no checkpoint: the run records which tables held rows when it ended, for the resume to
        // check (LiveResumeTargetRowsIT covers what the resume does with it).
        assertThat(LiveState.read(run).orElseThrow().loadedTables()).contains("scratch", "accounts", "tags");
        migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(),
            spanner.emulatorHost(), run, resume.toArray(String[]::new))));
      }
      LiveMigrateIT.awaitStreaming(run, migrate);
      long streaming = workload.transactions();
      while (workload.transactions() < streaming + 60 && !migrate.isDone()) {
        Thread.sleep(50);
      }
    }
    // No worker of the finished job still holds a transaction (and its lock) on a source table: TRUNCATE waits
    // for every reader of the table, and a TRUNCATE is streamed too.
    pg.execute("SET lock_timeout = '30s'", "TRUNCATE scratch", "INSERT INTO scratch VALUES (1, 'after truncate')");
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
    if (stopAndResume) {
      assertThat(migrated.out()).contains("2/4 load: done by the run this one resumes")
          .doesNotContain("pieces on the ").contains("== cutover: verify");
    } else {
      assertThat(migrated.out()).contains("replication slot pg2spanner_").contains("pieces on the " + runnerName)
          .contains("5 table(s) verified: all match.").contains("== cutover: verify");
    }
    assertThat(duringLoad).as("transactions committed between the slot's creation and the job's end: the "
        + "stream, not the job, must apply them").isPositive();

    for (String table : List.of("accounts", "entries", "tags", "audit", "scratch")) {
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
    }
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM scratch")).isEqualTo(1);
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()")).isZero();
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_publication")).isZero();
    assertThat(LiveState.read(run).orElseThrow().phase()).isEqualTo(LiveState.Phase.DONE);
    System.out.printf("LiveBeamIT %s: %d transactions during the job; %.1f s wall%n", runnerName, duringLoad,
        (System.nanoTime() - started) / 1e9);
  }

  /**
   * The workload's transactions counted from the moment the run records its slot (phase load: the snapshot is
   * taken) until the load ends (phase schema or later).
   */
  private static long transactionsDuringLoad(Path run, LiveWorkload workload,
      CompletableFuture<CliRunner.Result> migrate) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    Long atSlot = null;
    while (System.nanoTime() < deadline && !migrate.isDone()) {
      Optional<LiveState.Phase> phase = phase(run);
      if (atSlot == null && phase.isPresent()) {
        atSlot = phase.get() == LiveState.Phase.LOAD ? workload.transactions() : null;
        if (atSlot == null) {
          break; // the load ended between two looks: nothing measured
        }
      } else if (atSlot != null && phase.orElseThrow() != LiveState.Phase.LOAD) {
        return workload.transactions() - atSlot;
      }
      Thread.sleep(20);
    }
    return 0;
  }

  private static Optional<LiveState.Phase> phase(Path run) {
    try {
      return LiveState.read(run).map(LiveState::phase);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class Failures {

    /**
     * The job fails (a row Spanner cannot take, over {@code --max-bad-rows 0}): the slot, useless without the
     * snapshot that ended with the job, is dropped with the publication, and the run directory refuses
     * {@code --resume} and a new start naming what to do; the dry run on Dataflow says what the launcher holds.
     */
    @Test
    void aFailedJobDropsTheSlotAndResumeIsRefusedClearly(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      long started = System.nanoTime();
      pg.execute("CREATE TABLE t (id int PRIMARY KEY, n numeric(10, 2))",
          "INSERT INTO t SELECT g, g / 4.0 FROM generate_series(1, 200) g");
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      // After planning, so the plan does not adapt to it: NaN has no Spanner NUMERIC form.
      pg.execute("INSERT INTO t VALUES (0, 'NaN')");
      Path run = dir.resolve("run");

      // Workers elsewhere (Dataflow here) cannot be given a password inside the job: refused before the slot or a
      // table is created (the trust server ignores the password; the check does not).
      CliRunner.Result refused = MigrateSupport.cli(List.of("migrate", "--live", "--runner", "dataflow", "--project",
          "p", "--region", "europe-west1", "--temp-location", "gs://bucket/tmp", "--dead-letter",
          "gs://bucket/dead.jsonl", "--plan", plan.toString(), "--source", pg.jdbcUrl() + "&password=not-checked",
          "--target", spanner.path(), "--emulator", spanner.emulatorHost(), "--run-dir", run.toString()));
      assertThat(refused.exitCode()).as(refused.out() + refused.err())
          .isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
      assertThat(refused.err()).contains("carries a password, which would be stored in the DataflowRunner job graph")
          .doesNotContain("not-checked");
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()"))
          .isZero();
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_publication")).isZero();
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ''"))
          .as("no table created on the target").isZero();

      List<String> args = migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live",
          "--runner", "direct", "--workers", "2");

      CliRunner.Result failed = MigrateSupport.cli(args);
      assertThat(failed.exitCode()).as(failed.out() + failed.err()).isEqualTo(ExitCode.DATA_REJECTED.exitCode());
      assertThat(failed.out()).contains("live: the load failed, and a live load cannot be resumed")
          .containsPattern("Its replication slot pg2spanner_\\w+ and publication pg2spanner_\\w+ were dropped\\.")
          .contains("with a new --run-dir into an empty database");
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()"))
          .isZero();
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_publication")).isZero();

      List<String> resume = new ArrayList<>(args);
      resume.add("--resume");
      CliRunner.Result resumed = MigrateSupport.cli(resume);
      assertThat(resumed.exitCode()).as(resumed.out() + resumed.err())
          .isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(resumed.err()).contains("stopped during its load. A live load cannot continue")
          .containsPattern("\\(its replication slot pg2spanner_\\w+ was dropped when the load failed\\) run migrate "
              + "--live with a new --run-dir");
      CliRunner.Result again = MigrateSupport.cli(args);
      assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(again.err()).contains("holds a live run that stopped during its load, which cannot be resumed");

      CliRunner.Result dry = MigrateSupport.cli(List.of("migrate", "--live", "--runner", "dataflow", "--dry-run",
          "--plan", plan.toString(), "--source", "jdbc:postgresql://192.0.2.1:5432/app?user=migrator", "--target",
          "projects/no-such-project/instances/inst/databases/app", "--project", "p", "--region", "europe-west1",
          "--temp-location", "gs://bucket/tmp", "--dead-letter", "gs://bucket/dead.jsonl"));
      assertThat(dry.exitCode()).as(dry.out() + dry.err()).isZero();
      assertThat(dry.out()).contains("Dry run: nothing was contacted").contains("Live (--live)")
          .contains("holds the slot's exported snapshot open").contains("same PostgreSQL server (not a replica)");
      System.out.printf("LiveBeamIT failed job: %.1f s wall%n", (System.nanoTime() - started) / 1e9);
    }

    /**
     * A worker that cannot import the launcher's snapshot — its transaction ended, or the worker reached another
     * database — says which snapshot, where, and what to check; PostgreSQL's own words alone ("invalid snapshot
     * identifier") do not tell the two apart.
     */
    @Test
    void aWorkerThatCannotImportTheSnapshotSaysWhyAndWhatToCheck(PgTestDatabase pg, @TempDir Path dir)
        throws Exception {
      pg.execute("CREATE TABLE u (id int PRIMARY KEY)");
      String yaml = PlanFiles.toYaml(PlanFiles.read(MigrateSupport.plan(pg, dir.resolve("plan"))));
      SourceConnector source = new SourceConnector(new SourceConfig(pg.jdbcUrl(), null));
      String ended;
      try (SnapshotSession snapshot = SnapshotSession.open(source)) {
        ended = snapshot.snapshotId();
      }
      assertThatThrownBy(() -> new JdbcPieceSources(yaml, pg.jdbcUrl(), null, ended).open())
          .isInstanceOf(Pg2SpannerException.class)
          .hasMessageContaining("cannot import the launcher's snapshot " + ended)
          .hasMessageContaining("invalid snapshot identifier")
          .hasMessageContaining("only on the server that exported it (not a replica")
          .hasMessageContaining("kept running with its source connection alive");
      String otherDatabase = pg.jdbcUrl().replaceFirst("/([^/?]+)(\\?|$)", "/postgres$2");
      try (SnapshotSession snapshot = SnapshotSession.open(source)) {
        assertThatThrownBy(() -> new JdbcPieceSources(yaml, otherDatabase, null, snapshot.snapshotId()).open())
            .isInstanceOf(Pg2SpannerException.class)
            .hasMessageContaining("cannot import the launcher's snapshot " + snapshot.snapshotId())
            .hasMessageContaining("different database");
      }
    }
  }
}
