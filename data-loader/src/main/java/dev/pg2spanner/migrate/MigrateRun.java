package dev.pg2spanner.migrate;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.ddl.Migration;
import dev.pg2spanner.ddl.MigrationFiles;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.live.LiveRun;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.load.LoadResult;
import dev.pg2spanner.load.Loader;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.read.SourceReader;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.metrics.MetricsServer;
import dev.pg2spanner.metrics.RunMetrics;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.report.RunSummary;
import dev.pg2spanner.report.RunSummaryHtml;
import dev.pg2spanner.rundir.RunDirectoryLock;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.rundir.RunRecord;
import dev.pg2spanner.schema.DdlBatchPolicy;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.schema.PostgresDialectHistory;
import dev.pg2spanner.schema.SchemaHistory;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.EmulatorProvisioner;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.targetdb.TargetPreflight;
import dev.pg2spanner.verify.SnapshotVerify;
import dev.pg2spanner.verify.TableVerification;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code pg2spanner migrate}: tables (V1) → a consistent, partitioned load in non-key order → indexes (V2)
 * → foreign keys (V3) → verify. Every phase can be resumed: the load from its checkpoint, the schema phases from
 * Flyway's history.
 */
public final class MigrateRun {

  /**
   * What happened.
   *
   * @param load the load's figures
   * @param verification per-table results, empty when verify was skipped
   * @param elapsed wall time of the whole run
   * @param liveExitCode for {@code --live}: how streaming ended (0 after cutover,
   *     {@link ExitCode#INTERRUPTED} when stopped, else the failed cutover's code); null otherwise
   * @param filteredCopy a sentence naming the tables copied filtered by row-level security
   *     ({@code --accept-filtered-copy}); null when every row was read
   * @param laterWrites for a non-live run: a warning naming the tables the source wrote after the load's snapshot
   *     (which the target does not hold), or null when the statistics show none
   */
  public record Result(LoadResult load, List<TableVerification> verification, Duration elapsed,
      Integer liveExitCode, String filteredCopy, String laterWrites) {
    public boolean verified() {
      return !verification.isEmpty() && verification.stream().allMatch(TableVerification::matches);
    }
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MigrateRun.class);

  private MigrateRun() {}

  /**
   * Runs the migration, with the rows copied by {@code loader} ({@link Loader#IN_PROCESS} or a Beam runner's).
   *
   * @param plan the plan of {@link MigrateOptions#planFile()}, read once by the caller
   * @param reader how the in-process loader reads the source (the caller's choice from the environment)
   * @param lock the run directory's lock, held by the caller for the whole run; a run refused before it began
   *     removes the run directory again when taking the lock created it
   */
  public static Result execute(MigrateOptions o, Plan plan, SourceReader reader, RunDirectoryLock lock,
      PrintWriter out, Loader loader) throws Exception {
    Began began = new Began();
    RunMetrics metrics = new RunMetrics();
    MetricsServer server = null;
    boolean targetLost = false;
    try {
      server = serveMetrics(o, metrics, out);
      Result result = run(o, plan, reader, out, loader, began, metrics);
      metrics.phase(result.liveExitCode() == null || result.liveExitCode() == 0 ? RunMetrics.Phase.COMPLETED
          : result.liveExitCode() == ExitCode.INTERRUPTED.exitCode() ? RunMetrics.Phase.STOPPED
          : RunMetrics.Phase.FAILED);
      return result;
    } catch (Exception | Error e) {
      metrics.phase(RunMetrics.Phase.FAILED);
      if (!began.value) {
        lock.removeDirectoryOnClose();
      }
      targetLost = e instanceof Pg2SpannerException p && p.code() == ExitCode.TARGET_CONNECTION;
      if (began.value && e instanceof Pg2SpannerException p && p.next() == NextStep.UNSAID
          && p.code() != ExitCode.INTERRUPTED) {
        // The run changed the target and keeps its run directory: a rerun without --resume is refused, so the way on
        // is named here, whatever layer failed (a schema phase's "try again" means this).
        throw IN_PROCESS_RUNNER.equals(o.runner())
            ? new Resumable(p, o.runDirectory())
            : new Pg2SpannerException(p.code(), NextStep.STATED, p.getMessage() + " A Beam job keeps no checkpoint "
                + "(--resume is for --runner in-process): once that is fixed, run migrate again into an empty "
                + "database with a new --run-dir.", p);
      }
      throw e;
    } finally {
      if (server != null) {
        server.close();
      }
      // A target the run gave up on will not answer a close either: a last try, not another wait.
      FlywayMigrator.releaseConnections(targetLost ? SpannerConnector.LOST_CLOSE_BOUND : SpannerConnector.CLOSE_BOUND);
    }
  }

  /**
   * Starts the metrics endpoint when {@code --metrics-port} asked for one (before anything else, so a port in use
   * stops the run before it changes anything).
   *
   * @return the server, or null
   */
  private static MetricsServer serveMetrics(MigrateOptions o, RunMetrics metrics, PrintWriter out) {
    if (o.monitor().metricsPort() == null) {
      return null;
    }
    MetricsServer server = MetricsServer.start(o.monitor().metricsHost(), o.monitor().metricsPort(), metrics);
    out.println("metrics: " + server.url() + " (Prometheus text format, names pg2spanner_*)"
        + (IN_PROCESS_RUNNER.equals(o.runner()) ? "" : "; with --runner " + o.runner() + " the load's rows, bytes, "
        + "pieces and commits are counted by the runner's workers, not here (see the runner's own monitoring): "
        + "this endpoint shows the run's phase"));
    out.flush();
    return server;
  }

  /** The runner name of {@link Loader#IN_PROCESS} in {@link MigrateOptions#runner()}. */
  public static final String IN_PROCESS_RUNNER = "in-process";

  /** What a failure of a run that changed the target adds when the failing layer did not name --resume. */
  public static String resumeHint(Path runDirectory) {
    return " The run directory " + runDirectory + " keeps this run: once that is fixed, rerun the same command with "
        + "--resume.";
  }

  /**
   * A failure that did not say how to go on, with the in-process run's way on ({@link #resumeHint}) added; a layer
   * above that knows better (the run's own emulator, a Beam runner) replaces the hint through {@link #failure()}.
   */
  public static final class Resumable extends Pg2SpannerException {
    private static final long serialVersionUID = 1L;

    public Resumable(Pg2SpannerException failure, Path runDirectory) {
      super(failure.code(), NextStep.RESUME, failure.getMessage() + resumeHint(runDirectory), failure);
    }

    /** The failure as its layer said it, without the way on. */
    public String failure() {
      return getCause().getMessage();
    }
  }

  /** Set once the run made its first change (the run directory's record is written just before). */
  private static final class Began {
    private boolean value;
  }

  private static Result run(MigrateOptions o, Plan plan, SourceReader reader, PrintWriter out, Loader loader,
      Began began, RunMetrics metrics) throws Exception {
    long started = System.nanoTime();
    long errors = plan.tables().stream().flatMap(t -> t.findings().stream())
        .filter(f -> f.severity() == Severity.ERROR && f.code() != FindingCode.ROWS_NOT_VISIBLE).count();
    if (errors > 0) {
      out.println("warning: the plan still has " + errors + " error finding(s) (see report.md); their columns load "
          + "with the fallback the plan records.");
    }
    refuseWhatTheEmulatorCannotCreate(plan, o);
    // The run directory first (local, and the cheapest to fix): --resume continues only the run that was started.
    RunRecord record = RunStart.record(o, plan);
    RunStart.requireSameRun(o, plan, record);
    SourceConnector source = new SourceConnector(o.source());
    SourceAccess.Outcome access;
    try (Connection c = source.open()) {
      try {
        access = SourceAccess.check(c, plan, o, out);
      } catch (Pg2SpannerException e) {
        throw RunStart.whenResuming(o, e);
      }
      o = SourceCapacity.capWorkers(c, o, out);
    }
    // Everything that can refuse the run is checked before the first change to the source or the target.
    TargetPreflight.require(o.target(), "migrate into", plan.target().dialect());
    Checkpoint.State local = RunStart.local(o);
    if (!o.resume()) {
      loader.check(o.source());
    }
    LiveRun live = o.live() ? LiveRun.prepare(o.liveOptions(), plan, source, out) : null;
    if (live != null) {
      live.observe(metrics);
    }
    Phases phases = new Phases(started);
    phases.end("checks (source access, target, run directory)");
    String planText = Files.readString(o.planFile());
    MigrateOptions options = o;
    Runnable begin = () -> {
      // A resumed run keeps the record of the run it continues (it matched; its start is the run's start).
      if (!options.resume() || RunRecord.read(options.runDirectory()).isEmpty()) {
        record.write(options.runDirectory(), planText);
      }
      began.value = true;
    };
    try {
      Result result = steps(new Steps(o, out, loader, plan, source, live, access, started, phases, reader, metrics),
          local, begin);
      writeSummary(o, phases, result, null, out);
      return result;
    } catch (Exception | Error e) {
      if (live != null) {
        live.failed(e);
      }
      writeSummary(o, phases, null, e, out);
      throw e;
    }
  }

  /** What the steps after the checks share: the run's inputs and the target as the tables step left it. */
  private record Steps(MigrateOptions o, PrintWriter out, Loader loader, Plan plan, SourceConnector source,
      LiveRun live, SourceAccess.Outcome access, long started, Phases phases, SourceReader reader,
      RunMetrics metrics) {}

  /** The target once its tables exist: how its schema history is kept and whether this run created the tables. */
  private record Target(Spanner spanner, SchemaHistory flyway, RunStart.Decision start, DatabaseClient client) {}

  /**
   * The run's steps, in order: tables (after the last check, the run directory records the run), then either the
   * stream of a live run resumed after its load, or load, post-load schema, verify in the load's snapshot, and a live
   * run's stream; a plain run ends by warning of writes the snapshot did not see.
   */
  private static Result steps(Steps steps, Checkpoint.State local, Runnable begin) throws Exception {
    MigrateOptions o = steps.o();
    Path migrations = regenerateMigrations(steps.plan(), o.planFile(), steps.out());
    Spanner spanner = SpannerConnector.open(o.target());
    boolean targetLost = false;
    try {
      Target target = tables(steps, spanner, migrations, local, begin);
      if (steps.live() != null && !steps.live().loads()) {
        return streamResumed(steps, target);
      }
      return loadVerifyStream(steps, target);
    } catch (Pg2SpannerException e) {
      targetLost = e.code() == ExitCode.TARGET_CONNECTION;
      throw e;
    } finally {
      // A target that stopped answering would keep close() deleting sessions for a minute or more; one the run has
      // just given up on will not answer now either (its sessions expire by themselves), so do not wait the bound.
      SpannerConnector.closeWithin(spanner, targetLost ? SpannerConnector.LOST_CLOSE_BOUND
          : SpannerConnector.CLOSE_BOUND);
    }
  }

  /**
   * Step 1/4, tables: decides what the target already holds (a live resume also checks that the target still holds
   * its run), records the run in its directory (the first change), then creates the database and the tables (V1).
   */
  private static Target tables(Steps s, Spanner spanner, Path migrations, Checkpoint.State local, Runnable begin)
      throws Exception {
    MigrateOptions o = s.o();
    Plan plan = s.plan();
    SchemaHistory flyway = postgresDialect(plan) ? new PostgresDialectHistory(spanner, o.target())
        : new FlywayMigrator(o.target(), migrations);
    RunStart.Decision start = RunStart.decide(spanner, o, plan, local, flyway);
    if (s.live() != null && !s.live().loads()) {
      s.live().requireTargetHoldsRun(spanner, start.tablesExist());
    }
    if (start.note() != null) {
      s.out().println(start.note());
    }
    // The last check passed: from here the run changes things, so the run directory records what it runs.
    begin.run();
    s.metrics().phase(RunMetrics.Phase.TABLES);
    prepareDatabase(spanner, o, plan, s.out());
    boolean tablesExist = start.tablesExist();
    Loader.step(s.out(), "1/4 tables: " + (tablesExist ? "already created"
        : "applying V1 through the admin API (recorded in " + (postgresDialect(plan)
        ? "the schema history table " + PostgresDialectHistory.TABLE : "Flyway's history") + ")"));
    if (!tablesExist) {
      applyTables(spanner, o, flyway, plan, start.completeTables(), s.out());
    }
    s.phases().end("1/4 tables");
    DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(o.target().project(), o.target().instance(),
        o.target().database()));
    return new Target(spanner, flyway, start, client);
  }

  /** A live run resumed after its load: the rows are in; finish the schema phases, then stream until cutover. */
  private static Result streamResumed(Steps s, Target t) throws Exception {
    Loader.step(s.out(), "2/4 load: done by the run this one resumes");
    s.metrics().phase(RunMetrics.Phase.SCHEMA);
    postLoadPhases(t.spanner(), s.o(), t.flyway(), s.plan(), s.out());
    s.phases().end("3/4 indexes, foreign keys, checks");
    Loader.step(s.out(), "4/4 stream: changes since the load's snapshot, until cutover");
    s.metrics().phase(RunMetrics.Phase.STREAMING);
    int exit = s.live().stream(t.client(), t.spanner().getDatabaseAdminClient());
    s.phases().end("live: streaming until cutover");
    return new Result(LoadResult.none(), List.of(), Duration.ofNanos(System.nanoTime() - s.started()), exit, null,
        null);
  }

  /**
   * Steps 2/4 to 4/4 in one snapshot (the live slot's, for a live run): the load, indexes, foreign keys and checks,
   * verify; then a live run streams from the snapshot's position, and a plain run warns of writes made meanwhile.
   */
  private static Result loadVerifyStream(Steps s, Target t) throws Exception {
    MigrateOptions o = s.o();
    Plan plan = s.plan();
    PrintWriter out = s.out();
    LiveRun live = s.live();
    if (!t.start().tablesExist()) {
      PreSplit.apply(t.spanner(), o.target(), plan, out);
    }
    LoadResult load;
    List<TableVerification> verification = List.of();
    // Read just before the snapshot (a write counted here but inside the snapshot only errs towards a warning).
    SourceActivity.Counters before = live == null ? SourceActivity.read(s.source(), plan) : null;
    String snapshotAt = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    try (SnapshotSession snapshot = live != null ? live.startSnapshot()
        : SnapshotSession.open(s.source(), s.access().filtered())) {
      recheckDrift(s.source(), plan, o);
      List<Piece> pieces = pieces(snapshot, plan, o, t.start().fresh(), out);
      Map<String, TableConverter> converters = TableConverter.compileAll(plan, s.reader().binaryCopy());
      s.metrics().phase(RunMetrics.Phase.LOAD);
      load = s.loader().load(new Loader.Inputs(o.loadOptions(), o.source(), o.target(), plan, snapshot, pieces,
          converters, s.reader(), t.client(), out, s.metrics()));
      s.phases().end("2/4 load");
      if (live != null) {
        live.loaded(t.client());
      }
      s.metrics().phase(RunMetrics.Phase.SCHEMA);
      postLoadPhases(t.spanner(), o, t.flyway(), plan, out);
      s.phases().end("3/4 indexes, foreign keys, checks");
      verification = verifyInSnapshot(s, t, snapshot, pieces);
    }
    out.flush();
    Integer liveExit = live == null ? null : stream(s, t, verification);
    String laterWrites = live == null ? laterWrites(s, before, snapshotAt) : null;
    return new Result(load, verification, Duration.ofNanos(System.nanoTime() - s.started()), liveExit,
        s.access().summary(), laterWrites);
  }

  /** Step 4/4: verify in the load's snapshot, unless {@code --no-verify}. */
  private static List<TableVerification> verifyInSnapshot(Steps s, Target t, SnapshotSession snapshot,
      List<Piece> pieces) throws Exception {
    MigrateOptions o = s.o();
    PrintWriter out = s.out();
    if (!o.verify()) {
      Loader.step(out, "4/4 verify: skipped (--no-verify); run pg2spanner verify later");
      return List.of();
    }
    s.metrics().phase(RunMetrics.Phase.VERIFY);
    Loader.step(out, "4/4 verify: row counts and checksums, source snapshot against target");
    List<TableVerification> verification = SnapshotVerify.inSnapshot(s.plan(), snapshot, pieces, t.client(),
        o.deadLetterFile(), Math.min(4, o.workers()), out, WayOn.stated("compare again with pg2spanner verify (the "
        + "rows, indexes and constraints are in place). If that session changed the table's columns or dropped it, "
        + "the target no longer matches the source's schema: start over with a new plan: " + RunStart.planAgain(o)
        + ", then " + RunStart.startOver(o).replace("run migrate", "run migrate with the new plan")));
    if (s.access().filtered()) {
      out.println("(verify compared the filtered view of " + String.join(", ", s.access().filteredTables())
          + ": only the rows row-level security lets this role see)");
    }
    s.phases().end("4/4 verify");
    return verification;
  }

  /** A live run after its load: streams from the snapshot's position until cutover, unless verify found a mismatch. */
  private static int stream(Steps s, Target t, List<TableVerification> verification) throws Exception {
    long differing = verification.stream().filter(v -> !v.matches()).count();
    if (differing > 0) {
      throw new Pg2SpannerException(ExitCode.VERIFY_MISMATCH, differing + " table(s) differ "
          + "from the load's snapshot (see above), so streaming was not started on top of them");
    }
    if (!verification.isEmpty()) {
      s.live().loadVerified();
    }
    Loader.step(s.out(), "live: streaming the changes since the load's snapshot, until cutover");
    s.metrics().phase(RunMetrics.Phase.STREAMING);
    int exit = s.live().stream(t.client(), t.spanner().getDatabaseAdminClient());
    s.phases().end("live: streaming until cutover");
    return exit;
  }

  /** A plain run's last word: the writes made to the planned tables after the snapshot, or null when none. */
  private static String laterWrites(Steps s, SourceActivity.Counters before, String snapshotAt) throws Exception {
    List<SourceActivity.Change> changes = SourceActivity.since(before, SourceActivity.read(s.source(), s.plan()));
    if (changes.isEmpty()) {
      return null;
    }
    String warning = SourceActivity.warning(changes, snapshotAt);
    s.out().println("warning: " + warning);
    s.out().flush();
    return warning;
  }

  /**
   * The emulator rejects informational foreign keys ("Foreign key enforcement is not supported"): say so before
   * anything changes rather than after the load.
   */
  private static void refuseWhatTheEmulatorCannotCreate(Plan plan, MigrateOptions o) {
    if (!o.target().isEmulator()) {
      return;
    }
    List<String> informational = plan.tables().stream().flatMap(t -> t.foreignKeys().stream())
        .filter(f -> !f.isEnforced()).map(dev.pg2spanner.plan.ForeignKeyPlan::target).toList();
    if (!informational.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "the Spanner emulator cannot create "
          + "informational (NOT ENFORCED) foreign keys, and the plan marks " + informational.size() + " so ("
          + String.join(", ", informational) + "); remove enforced: false from them for an emulator run (real Spanner "
          + "creates them). Nothing was changed on the target");
    }
  }

  private static void postLoadPhases(Spanner spanner, MigrateOptions o, SchemaHistory flyway, Plan plan,
      PrintWriter out) {
    Loader.step(out, "3/4 indexes, foreign keys, checks (after the load, through the admin API; recorded in "
        + (postgresDialect(plan) ? "the schema history table" : "Flyway's history") + ")");
    List<String> informational = plan.tables().stream().flatMap(t -> t.foreignKeys().stream())
        .filter(f -> !f.isEnforced()).map(dev.pg2spanner.plan.ForeignKeyPlan::target).toList();
    if (!informational.isEmpty()) {
      out.println("  note: " + informational.size() + " foreign key(s) are informational (enforced: false in the plan: "
          + String.join(", ", informational) + "): created NOT ENFORCED, so Spanner neither validates the loaded rows "
          + "nor checks later writes; orphan rows are neither found nor prevented");
    }
    List<Migration> phases = DdlPrinter.migrations(plan);
    DdlBatchPolicy policy = o.ddlBatchPolicy();
    for (Migration phase : phases.subList(1, phases.size())) {
      SchemaPhases.applyPostLoad(spanner.getDatabaseAdminClient(), o.target(), flyway, phase, policy, out);
    }
  }

  /**
   * V1 through the admin API in one batch (the emulator) or a few (real Spanner), recorded in Flyway's history: Flyway
   * would send one request per statement. Flyway creates its history table first, sent again while the target is busy
   * with another schema change ({@link ConcurrentSchemaChange}).
   *
   * @param complete objects of V1 an earlier run created before it stopped are kept and the rest applied (RunStart
   *     found them empty); otherwise an existing V1 object is refused
   */
  private static void applyTables(Spanner spanner, MigrateOptions o, SchemaHistory flyway, Plan plan,
      boolean complete, PrintWriter out) throws InterruptedException {
    for (int attempt = 1; flyway.applied().isEmpty(); attempt++) {
      try {
        flyway.ensureHistoryTable();
        break;
      } catch (Pg2SpannerException e) {
        if (!ConcurrentSchemaChange.waitToRetry(e.getMessage(), attempt, note -> {
          out.println("  " + note);
          out.flush();
        })) {
          throw e;
        }
      }
    }
    SchemaPhases.applyTables(spanner.getDatabaseAdminClient(), o.target(), flyway, DdlPrinter.migrations(plan).get(0),
        DdlBatchPolicy.forTarget(o.target().isEmulator()), complete, out);
  }

  /** The migrations are derived from the plan; a person may have edited the plan, so write them again. */
  private static Path regenerateMigrations(Plan plan, Path planFile, PrintWriter out) {
    Path dir = planFile.toAbsolutePath().getParent().resolve("migrations");
    List<Migration> migrations = DdlPrinter.migrations(plan);
    boolean changed = false;
    for (Migration m : migrations) {
      Path file = dir.resolve(m.fileName());
      try {
        changed |= !Files.exists(file) || !Files.readString(file).equals(m.script());
      } catch (java.io.IOException e) {
        changed = true;
      }
    }
    if (changed) {
      MigrationFiles.write(migrations, dir);
      out.println("migrations/ rewritten from " + planFile.getFileName() + " (the plan was edited since they were "
          + "written)");
    }
    return dir;
  }

  private static boolean postgresDialect(Plan plan) {
    return plan.target().spannerDialect().isPostgres();
  }

  private static void prepareDatabase(Spanner spanner, MigrateOptions o, Plan plan, PrintWriter out) {
    SpannerTarget target = o.target();
    com.google.cloud.spanner.Dialect dialect = postgresDialect(plan) ? com.google.cloud.spanner.Dialect.POSTGRESQL
        : com.google.cloud.spanner.Dialect.GOOGLE_STANDARD_SQL;
    if (target.isEmulator()) {
      if (EmulatorProvisioner.ensureExists(spanner, target, dialect)) {
        out.println("created " + target.describe());
      }
      return;
    }
    try {
      spanner.getDatabaseAdminClient().getDatabase(target.instance(), target.database());
    } catch (SpannerException e) {
      if (e.getErrorCode() != ErrorCode.NOT_FOUND) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot read "
            + target.describe() + " (" + e.getMessage() + "); check credentials and permissions", e);
      }
      if (!o.createDatabase()) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "database "
            + target.database() + " does not exist in instance " + target.instance() + "; create it, or pass "
            + "--create-database to let migrate create it");
      }
      try {
        EmulatorProvisioner.createDatabase(spanner.getDatabaseAdminClient(), target, dialect)
            .get(10, TimeUnit.MINUTES);
        out.println("created " + target.describe());
      } catch (Exception ex) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot create "
            + target.describe() + " (" + ex.getMessage() + ")", ex);
      }
    }
  }

  private static List<Piece> pieces(SnapshotSession snapshot, Plan plan, MigrateOptions o, boolean fresh,
      PrintWriter out) throws SQLException {
    try (Checkpoint checkpoint = Checkpoint.open(o.runDirectory())) {
      Optional<List<Piece>> saved = checkpoint.savedPieces();
      if (o.resume() && !fresh) {
        if (saved.isEmpty()) {
          throw new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.STATED, "--resume: run directory "
              + o.runDirectory() + " holds no earlier load to continue; run migrate without --resume");
        }
        out.println("resuming: " + checkpoint.done().size() + " of " + saved.get().size() + " pieces were done");
        PiecePlanner.lock(snapshot.coordinator(), saved.get());
        return saved.get();
      }
      if (saved.isPresent()) {
        throw new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.RESUME, "run directory "
            + o.runDirectory() + " holds an earlier run (" + checkpoint.done().size() + " of " + saved.get().size()
            + " pieces done); continue it with --resume, or choose another --run-dir");
      }
    }
    int minPieces = Math.max(10 * plan.target().nodes(), 4 * o.workers());
    return PiecePlanner.cut(snapshot.coordinator(), plan, minPieces, PiecePlanner.MAX_PIECE_BYTES);
  }

  /** The wall time of each phase of one run, for run-summary.html. */
  private static final class Phases {
    private final java.time.Instant started = java.time.Instant.now();
    private final long startNanos;
    private long last;
    private final List<RunSummary.Phase> done = new java.util.ArrayList<>();

    Phases(long startNanos) {
      this.startNanos = startNanos;
      this.last = startNanos;
    }

    /** The phase that began when the previous one ended has ended now. */
    void end(String name) {
      long now = System.nanoTime();
      done.add(new RunSummary.Phase(name, Duration.ofNanos(now - last)));
      last = now;
    }
  }

  /**
   * Writes run-summary.html into the run directory, after a run that completed or failed. A summary that cannot be
   * written is a warning: the run's outcome is what counts.
   */
  private static void writeSummary(MigrateOptions o, Phases phases, Result result, Throwable failure,
      PrintWriter out) {
    Path file = o.runDirectory().resolve(RunFiles.SUMMARY);
    try {
      List<RunSummary.TableLoad> tables = result == null ? List.of() : result.load().tables().stream()
          .map(t -> new RunSummary.TableLoad(t.table(), t.rows(), t.bytes(), t.rejected(), t.busy())).toList();
      List<RunSummary.TableCheck> checks = result == null ? List.of() : result.verification().stream()
          .map(v -> new RunSummary.TableCheck(v.table(), v.sourceRows(), v.targetRows(), v.matches())).toList();
      String status = failure == null ? "completed" : "failed: " + failure.getMessage();
      String next = failure != null ? "fix what the error names, then rerun the same command with --resume (the run "
          + "directory keeps every finished piece)"
          : result.verification().isEmpty() ? "run pg2spanner verify to compare source and target"
          : !result.verified() ? "see the differing tables below; rerun migrate with --resume or verify"
          : result.laterWrites() != null ? "the target holds the load's snapshot, but " + result.laterWrites()
          : null;
      RunSummary summary = new RunSummary(o.source().endpoint(), o.target().path(), o.planFile().toString(),
          phases.started, Duration.ofNanos(System.nanoTime() - phases.startNanos), status, phases.done, tables,
          result == null ? 0 : result.load().rowsRejected(), o.deadLetterFile().toString(), checks, next,
          o.live() ? livePoints(o.runDirectory()) : List.of());
      RunSummaryHtml.write(summary, file);
      out.println("Run summary: " + file);
      out.flush();
      Map<String, Object> end = new java.util.LinkedHashMap<>();
      end.put("type", RUN_END);
      end.put("at", java.time.Instant.now().toString());
      end.put("status", status);
      end.put("next", next);
      try (JsonLinesFile log = JsonLinesFile.open(o.runDirectory().resolve(RunFiles.PROGRESS), "the progress log",
          false, WayOn.stated("status will not show how the run ended"))) {
        log.append(end);
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not write the run summary {}: {}", file, e.toString());
    }
  }

  /** A live run's progress reports from progress.jsonl, for the summary's charts (all of the run's streaming). */
  static List<RunSummary.LivePoint> livePoints(Path runDirectory) {
    List<RunSummary.LivePoint> points = new java.util.ArrayList<>();
    for (com.fasterxml.jackson.databind.JsonNode line : JsonLinesFile.read(runDirectory.resolve(RunFiles.PROGRESS))) {
      if ("live".equals(line.path("type").asText()) && line.hasNonNull("at")) {
        points.add(new RunSummary.LivePoint(java.time.Instant.parse(line.path("at").asText()),
            line.path("lagSeconds").asDouble(), line.path("lagBytes").asLong(),
            line.path("changesPerSecond").asDouble(), line.hasNonNull("slotRetainedBytes")
            ? line.path("slotRetainedBytes").asLong() : -1));
      }
    }
    return points;
  }

  /** The progress log's last line of a migrate, with how it ended ({@code status} shows it). */
  public static final String RUN_END = "run-end";

  /**
   * The source checked against the plan again, once the load's snapshot is taken: a column retyped after the first
   * check ({@link SourceAccess}) would otherwise be read with the plan's converters (text COPY rejects such values, a
   * result set may round them, binary COPY would read the wrong width). On a connection of its own, because the
   * catalog is read in a transaction of its own; the catalog only moves forward, so a change the snapshot sees is
   * seen here too (and one made just after the snapshot, which would turn the table's later pieces empty or
   * retyped, stops the run as well).
   *
   * @throws Pg2SpannerException PLAN_INVALID naming what changed and how to go on from the tables just created
   */
  private static void recheckDrift(SourceConnector source, Plan plan, MigrateOptions o) throws SQLException {
    try (Connection c = source.open()) {
      SourceDrift.check(c, plan, o.skipUnplannedTables());
    } catch (Pg2SpannerException e) {
      throw new Pg2SpannerException(e.code(), NextStep.STATED, "the source changed while migrate was starting, "
          + "after its first check "
          + "and around the load's snapshot: " + e.getMessage() + " No row was copied; the target has this run's "
          + "tables. Run plan again, then migrate into a new database or drop those tables first.", e);
    }
  }

}
