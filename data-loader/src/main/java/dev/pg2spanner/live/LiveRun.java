package dev.pg2spanner.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Spanner;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.apply.LivePosition;
import dev.pg2spanner.live.apply.SpannerKeys;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.live.stream.ReplicationSetup;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.load.source.ReconnectBudget;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.metrics.RunMetrics;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.preflight.CheckResult;
import dev.pg2spanner.preflight.LiveReadiness;
import dev.pg2spanner.rundir.RunDirectoryLock;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code migrate --live}: the parts of a migration that differ when the source keeps taking writes. Before anything
 * touches the target it checks the source can stream (and, resuming, that the run can continue); the load then reads
 * the snapshot a new logical replication slot exported, so the change stream starts exactly where the loaded data
 * ends; after the schema phases it streams changes into Spanner until it is stopped (Ctrl-C: resume later with
 * {@code --resume}) or asked to cut over ({@code pg2spanner cutover}).
 *
 * <p>On every way out except a finished cutover, the run says that its slot exists, how much WAL it holds, and the
 * commands that continue or drop it: a forgotten slot can fill the source's disk.
 */
public final class LiveRun {

  /** The file {@code cutover} writes to ask a running {@code migrate --live} to cut over. */
  static final String CUTOVER_REQUEST = RunFiles.CUTOVER_REQUEST;
  /** The file that process writes with the outcome. */
  static final String CUTOVER_RESULT = RunFiles.CUTOVER_RESULT;
  /** What a streaming {@code migrate --live} names itself in the run directory's lock; cutover asks it. */
  public static final String MIGRATE_LIVE = "migrate --live";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LiveRun.class);
  /** How long Ctrl-C waits for the stream to commit what it holds and stop. */
  private static final int STOP_WAIT_SECONDS = 15;

  private final LiveOptions options;
  private final Plan plan;
  private final SourceConnector source;
  private final PrintWriter out;
  private LiveState state;
  private Long verifiedAtStart;
  private RunMetrics metrics = new RunMetrics();

  private LiveRun(LiveOptions options, Plan plan, SourceConnector source, PrintWriter out, LiveState state) {
    this.options = options;
    this.plan = plan;
    this.source = source;
    this.out = out;
    this.state = state;
  }

  /**
   * Everything that can refuse a live run, checked before the target is touched: the run directory's state (a live
   * run there must be resumed, not restarted; a resumed one must have got past its load), the source's readiness
   * (wal_level, role, slots, row identity, publication), the slot of a resumed run, and keys a streamed delete can
   * name.
   */
  public static LiveRun prepare(LiveOptions o, Plan plan, SourceConnector source, PrintWriter out) {
    Optional<LiveState> existing = LiveState.read(o.runDirectory());
    if (o.resume()) {
      LiveState state = existing.orElseThrow(() -> new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.STATED,
          "--live --resume: the run directory " + o.runDirectory() + " holds no live run; start one with "
              + "migrate --live (without --resume)"));
      switch (state.phase()) {
        case LOAD -> throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED,
            "the live run in " + o.runDirectory()
            + " stopped during its load. A live load cannot continue: its snapshot ended with the process, and the "
            + "change stream must start exactly where the loaded data does. " + startOverAfterLoad(source, state));
        case CUTOVER, DONE -> throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED,
            "the live run in "
            + o.runDirectory() + " was cut over already" + (state.phase() == LiveState.Phase.CUTOVER
            ? " (verified); finish it with pg2spanner cutover --run-dir " + o.runDirectory() : ""));
        default -> { }
      }
      requireSlot(source, state);
      // A schema change followed while streaming revised the plan: the resumed run converts by the revision.
      LiveRun run = new LiveRun(o, state.plan(o.runDirectory(), plan), source, out, state);
      requireComputableKeys(run.plan);
      return run;
    }
    if (existing.isPresent() && existing.get().phase() == LiveState.Phase.LOAD) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED, "the run directory "
          + o.runDirectory() + " holds a live run that stopped during its load, which cannot be resumed. " + startOverAfterLoad(source,
          existing.get()));
    }
    if (existing.isPresent() && existing.get().phase() != LiveState.Phase.DONE) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.RESUME,
          "the run directory " + o.runDirectory() + " holds a "
          + "live run (slot " + existing.get().slot() + ", " + existing.get().phase().name().toLowerCase(Locale.ROOT)
          + " phase); continue it with migrate --live --resume, or choose another --run-dir");
    }
    try (Connection c = source.open()) {
      List<String> tables = plan.tables().stream().map(TablePlan::source).toList();
      List<CheckResult> results = LiveReadiness.run(c, tables, o.publication());
      List<CheckResult> failed = results.stream().filter(r -> r.status() == CheckResult.Status.FAIL).toList();
      for (CheckResult r : results) {
        if (r.status() == CheckResult.Status.WARN) {
          out.println("warning: " + r.subject() + ": " + r.detail());
        }
      }
      if (!failed.isEmpty()) {
        StringBuilder message = new StringBuilder("the source is not ready for a live migration (nothing was "
            + "changed on the source or the target):");
        for (CheckResult r : failed) {
          message.append("\n  - ").append(r.subject()).append(": ").append(r.detail());
        }
        throw new Pg2SpannerException(failed.get(0).failure(), message.toString());
      }
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot check the source for a live migration ("
          + e.getMessage() + ")", e);
    }
    LiveRun run = new LiveRun(o, plan, source, out, null);
    requireComputableKeys(run.plan);
    return run;
  }

  /**
   * A resumed live run's target must still hold what the run wrote, or streaming would go on into a target that lost
   * it (an emulator restarted, a database recreated): its tables, once streaming started the position table, and
   * before it started a row in every table the load wrote rows to. Checked before anything is created or written on
   * the target. After streaming started, a table the load filled may be empty by the source's own doing (a
   * TRUNCATE applied by the stream): that is not refused, but every table is then compared whole again.
   *
   * @param tablesExist the target database exists and Flyway's history records V1
   * @throws Pg2SpannerException TARGET_CONFLICT naming what is missing and how to start over
   */
  public void requireTargetHoldsRun(Spanner spanner, boolean tablesExist) {
    SpannerTarget target = options.target();
    if (!tablesExist) {
      throw targetReset("its tables are gone (no database, or no V1 in its schema history)");
    }
    DatabaseClient client = spanner.getDatabaseClient(com.google.cloud.spanner.DatabaseId.of(target.project(),
        target.instance(), target.database()));
    if (state.phase() == LiveState.Phase.STREAM && !LiveSession.positionTableExists(client,
        plan.target().spannerDialect())) {
      throw targetReset("its position table " + LivePosition.TABLE + " is gone");
    }
    Map<String, Long> loaded = dev.pg2spanner.load.Checkpoint.rowsByTable(options.runDirectory());
    java.util.Set<String> heldRows = state.loadedTables() == null ? java.util.Set.of()
        : java.util.Set.copyOf(state.loadedTables());
    List<String> emptied = new ArrayList<>();
    for (TablePlan table : plan.tables()) {
      long rows = loaded.getOrDefault(table.target(), 0L);
      boolean filledByTheLoad = rows > 0 || heldRows.contains(table.target());
      if (!filledByTheLoad || !isEmpty(client, table)) {
        continue;
      }
      if (state.phase() != LiveState.Phase.STREAM) {
        // Nothing was streamed yet: the rows the load wrote must all still be there.
        throw targetReset("table " + table.target() + " is empty, but " + (rows > 0 ? "the load wrote " + rows
            + " rows into it" : "it held rows when the load ended"));
      }
      emptied.add(table.target());
    }
    if (!emptied.isEmpty()) {
      // Streaming began: the source may have emptied these tables (a TRUNCATE, deletes), and the stream applied it,
      // so an empty table is no reason to refuse the resume. A table reset on the target would look the same: the
      // verification state kept from the last session is dropped, so every table is compared whole again.
      out.println("warning: " + String.join(", ", emptied) + (emptied.size() == 1 ? " is" : " are") + " empty in "
          + "Spanner, though the load filled " + (emptied.size() == 1 ? "it" : "them") + ": expected if the source "
          + "emptied " + (emptied.size() == 1 ? "it" : "them") + " (TRUNCATE, deletes) and the stream applied that. "
          + "Every table is compared whole again (while streaming, or at the latest by cutover), so a table the "
          + "target lost is reported, and cutover refused, before anything is dropped");
      out.flush();
      try {
        Files.deleteIfExists(options.runDirectory().resolve(VerificationLedger.FILE));
      } catch (IOException e) {
        throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot remove " + options.runDirectory().resolve(
            VerificationLedger.FILE) + " (" + e.getMessage() + "); remove it by hand, then rerun the same command",
            e);
      }
    }
  }

  private boolean isEmpty(DatabaseClient client, TablePlan table) {
    try {
      return !holdsRows(client, table);
    } catch (com.google.cloud.spanner.SpannerException e) {
      throw targetReset("table " + table.target() + " cannot be read (" + e.getErrorCode() + ")");
    }
  }

  /** Whether {@code table} holds a row in the target (one {@code LIMIT 1} read). */
  private boolean holdsRows(DatabaseClient client, TablePlan table) {
    String sql = "SELECT 1 FROM " + dev.pg2spanner.spanner.SpannerNames.qualified(
        plan.target().spannerDialect(), table.targetSchema(),
        table.targetName()) + " LIMIT 1";
    try (com.google.cloud.spanner.ResultSet rs = client.singleUse().executeQuery(
        com.google.cloud.spanner.Statement.of(sql))) {
      return rs.next();
    }
  }

  private Pg2SpannerException targetReset(String what) {
    return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED,
        options.target().describe() + " no longer holds the "
        + "live run of " + options.runDirectory() + ": " + what + ". It was reset (an emulator restarted, a database "
        + "recreated), so the rows loaded and the changes streamed so far are not in it and streaming cannot go on; "
        + "nothing was changed. Start over: " + cleanup(state) + ", then run migrate --live with a new --run-dir into "
        + "an empty database");
  }

  /** Counts the stream's figures into {@code m} too (migrate's metrics endpoint). */
  public void observe(RunMetrics m) {
    this.metrics = m;
  }

  /** True when this run loads (a new live run); false when it resumes after its load. */
  public boolean loads() {
    return state == null;
  }

  /**
   * Creates the publication (unless one was named) and the slot, records them in the run directory, and opens the
   * load's snapshot from the slot.
   */
  public SnapshotSession startSnapshot() throws SQLException {
    String name = LiveReadiness.NAME_PREFIX + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    boolean createPublication = options.publication() == null;
    String publication = createPublication ? name : options.publication();
    if (createPublication) {
      ReplicationSetup.createPublication(source, publication, plan);
    }
    ReplicationSetup.Created created;
    try {
      created = ReplicationSetup.createSlot(source, name, out);
    } catch (RuntimeException e) {
      if (createPublication) {
        ReplicationSetup.dropPublication(source, publication);
      }
      throw e;
    }
    try {
      List<SourceShape.Relation> shapes = SourceShape.read(created.snapshot().coordinator(), plan);
      state = new LiveState(LiveState.FORMAT_VERSION, name, publication, createPublication,
          created.consistentPoint(), options.planFile().toAbsolutePath().toString(),
          withoutPassword(options.source().jdbcUrl()), options.target().path(), options.target().emulatorHost(),
          options.deadLetterFile().toAbsolutePath().toString(), options.maxBadRows(), LiveState.Phase.LOAD,
          Instant.now().toString(), shapes, null, null);
      state.write(options.runDirectory());
    } catch (SQLException | RuntimeException e) {
      created.snapshot().close();
      throw e;
    }
    out.println("live: replication slot " + name + " created at " + created.consistentPoint() + "; the load reads "
        + "its snapshot, and the changes after it are streamed once the load and the schema phases are done");
    out.flush();
    return created.snapshot();
  }

  /**
   * The load's own verify found every table equal at the slot's consistent point (the snapshot the load read, the
   * target before any streamed change): the first verified cut, so streaming starts with nothing to compare.
   */
  public void loadVerified() {
    verifiedAtStart = Lsn.parse(state.consistentPoint());
  }

  /** The load finished: a crash from here on resumes with the schema phases. */
  public void loaded(DatabaseClient client) {
    state = state.withPhase(LiveState.Phase.SCHEMA);
    if (dev.pg2spanner.load.Checkpoint.rowsByTable(options.runDirectory()).isEmpty()) {
      // A Beam job keeps no checkpoint of what it wrote: record which tables hold rows now, so that a resume can
      // tell a target that lost them (requireTargetHoldsRun) as it does from the in-process load's checkpoint.
      List<String> holding = new ArrayList<>();
      for (TablePlan table : plan.tables()) {
        try {
          if (holdsRows(client, table)) {
            holding.add(table.target());
          }
        } catch (com.google.cloud.spanner.SpannerException e) {
          LOG.warn("Cannot tell whether {} holds rows after the load ({}); a resume will not check it",
              table.target(), dev.pg2spanner.load.write.RetryPolicy.describe(e));
        }
      }
      state = state.withLoadedTables(holding);
    }
    state.write(options.runDirectory());
  }

  /**
   * Streams changes until Ctrl-C or a cutover request, then cuts over when asked.
   *
   * @return the exit code: 0 after a cutover; {@link ExitCode#INTERRUPTED} when stopped by Ctrl-C (resume later);
   *     the cutover's code when it failed
   */
  public int stream(DatabaseClient client, DatabaseAdminClient admin) throws Exception {
    // The caller (migrate --live) holds the run directory's lock for the whole run, named MIGRATE_LIVE: cutover
    // finds it there and asks this process through CUTOVER_REQUEST.
    Path runDirectory = options.runDirectory();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.set(true);
      // Said at once: the stream stops after the commit in hand (bounded below), which may take a moment.
      out.println("live: stopping (Ctrl-C): committing what is applied so far, then the stream stops. The source's "
          + "replication slot " + state.slot() + " keeps every change not yet applied. " + nextSteps());
      out.flush();
      try {
        if (!finished.await(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
          out.println("live: the stream did not stop within " + STOP_WAIT_SECONDS + " s (the target is slow or "
              + "gone); exiting anyway. Nothing is lost: the slot keeps every change Spanner does not hold.");
          out.flush();
        }
      } catch (InterruptedException ignored) {
        Thread.currentThread().interrupt();
      }
    }, "pg2spanner-live-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      Reconnects reconnects = new Reconnects();
      LiveSession.Carried carried = new LiveSession.Carried();
      while (true) {
        // After a break the run directory's state (and the plan it names) are what a --resume would read.
        Plan current = state.plan(runDirectory, plan);
        LiveSession.Context ctx = new LiveSession.Context(current, source, options.target(), client, admin,
            runDirectory, options.deadLetterFile(), options.maxBadRows(), options.progressInterval(), out,
            new LiveSession.Verification(options.verifyInterval(), verifiedAtStart), metrics, options.monitor());
        LiveSession opened;
        try {
          opened = LiveSession.open(ctx, state, carried);
        } catch (Pg2SpannerException e) {
          if (reconnects.total() == 0 || stop.get() || !reconnectable(e)) {
            throw e;
          }
          if (e.code() == ExitCode.SOURCE_CONNECTION && ReconnectBudget.judge(e) == ReconnectBudget.Failure.REFUSED) {
            throw reconnects.refused(e);
          }
          if (!reconnects.broke(e, stop, false)) {
            return interruptedWhileReconnecting();
          }
          continue;
        }
        Integer exit = streamSession(opened, stop, reconnects);
        if (exit != null) {
          return exit;
        }
        state = LiveState.read(runDirectory).orElse(state);
      }
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it is waiting for `finished`
      }
    }
  }

  private int interruptedWhileReconnecting() {
    out.println(stopped("streaming stopped (Ctrl-C) while reconnecting to the source"));
    out.flush();
    return ExitCode.INTERRUPTED.exitCode();
  }

  /** A source failure that reconnecting may cure: the connection, or the slot still held by our cut walsender. */
  static boolean reconnectable(Pg2SpannerException e) {
    return e.code() == ExitCode.SOURCE_CONNECTION
        || e.code() == ExitCode.SOURCE_NOT_READY && String.valueOf(e.getMessage()).contains("is active for PID");
  }

  /** The reconnect budget of one live run ({@link ReconnectBudget}), with the live stream's messages. */
  private final class Reconnects {
    final ReconnectBudget budget = new ReconnectBudget();

    /**
     * The stream broke (or could not be opened again): waits the next delay, or throws the stop when the budget is
     * spent (the run then stops as it always did: nothing lost, continue with --resume).
     *
     * @param streamed true when a session streamed and made progress before it broke (see {@link
     *     ReconnectBudget#broke}); false when it made none, or opening a new one failed
     * @return true to reconnect now; false when Ctrl-C came while waiting
     */
    boolean broke(Pg2SpannerException e, AtomicBoolean stop, boolean streamed) {
      long delay = budget.broke(streamed);
      if (delay < 0) {
        throw new Pg2SpannerException(e.code(), NextStep.RESUME,
            "the change stream from the source broke and reconnecting "
            + budget.tries() + " times over " + budget.secondsSinceFirstBreak() + " s did not cure it (last: "
            + e.getMessage() + "); nothing was lost (the slot keeps what is not applied): once the source is "
            + "reachable, rerun migrate --live --resume", e);
      }
      out.println("live: the change stream from the source broke (" + e.getMessage() + "); reconnecting in "
          + delay / 1000 + " s (" + budget.describeTry() + ") from the position Spanner holds");
      out.flush();
      LOG.warn("Change stream broke ({}); reconnect try {} of {} in {} ms", e.getMessage(), budget.tries(),
          ReconnectBudget.DELAYS_MILLIS.length, delay);
      return ReconnectBudget.await(delay, stop::get);
    }

    /**
     * Reconnecting was refused (a changed password, a database that takes no connections, a revoked privilege): waiting
     * will not cure it, so the run stops at once, as fallback does, instead of spending the budget's minute.
     */
    Pg2SpannerException refused(Pg2SpannerException e) {
      return new Pg2SpannerException(e.code(), NextStep.RESUME,
          "the change stream from the source broke, and reconnecting was "
          + "refused: " + e.getMessage() + " Nothing was lost (the slot keeps what is not applied): fix what the "
          + "source said, then rerun migrate --live --resume", e);
    }

    int total() {
      return budget.total();
    }

    void opened() {
      budget.opened();
    }
  }

  /**
   * Streams one session (one replication connection) until Ctrl-C, a cutover request, or a break of the source
   * connection.
   *
   * @return the exit code, or null when the stream broke and the session was closed after its commit in flight: the
   *     caller opens a new one from the position Spanner holds, exactly as --resume does
   */
  private Integer streamSession(LiveSession opened, AtomicBoolean stop, Reconnects reconnects) throws Exception {
    Path runDirectory = options.runDirectory();
    reconnects.opened();
    long openedAt = opened.applier.appliedEndLsn();
    long receivedAtOpen = opened.received();
    try (LiveSession session = opened) {
      // The position table exists from here on (the session created it): a resume checks for it.
      if (state.phase() == LiveState.Phase.SCHEMA) {
        state = state.withPhase(LiveState.Phase.STREAM);
        state.write(options.runDirectory());
        // The session writes its own copy of the state when it follows a schema change: it must not go back.
        session.state = session.state.withPhase(LiveState.Phase.STREAM);
      }
      session.startVerifying();
      session.startWatchingCatalog(options.verifyInterval() == null
          || options.verifyInterval().compareTo(LiveSession.CATALOG_INTERVAL) > 0 ? LiveSession.CATALOG_INTERVAL
          : options.verifyInterval());
      out.println("live: streaming; stop with Ctrl-C (resume later with --resume), or cut over with: pg2spanner "
          + "cutover --run-dir " + runDirectory);
      out.flush();
      Path request = runDirectory.resolve(CUTOVER_REQUEST);
      long[] lastCheck = {0};
      try {
        session.streamUntil(() -> {
          if (stop.get()) {
            return true;
          }
          long now = System.nanoTime();
          if (now - lastCheck[0] > 500_000_000L) {
            lastCheck[0] = now;
            return Files.exists(request);
          }
          return false;
        });
      } catch (Pg2SpannerException e) {
        if (stop.get() || !reconnectable(e)) {
          throw e;
        }
        // Spanner must hold every commit handed over before a new session reads the position it starts from.
        boolean midTransaction = session.applier.inTransaction();
        session.settleAfterBreak();
        // Progress renews the budget: something applied, or, between transactions, something received. A stream
        // that breaks again and again inside the same transaction (or before the first message of one) is not cured
        // by time, and stops with the budget.
        boolean progressed = session.applier.appliedEndLsn() > openedAt
            || !midTransaction && session.received() > receivedAtOpen;
        return reconnects.broke(e, stop, progressed) ? null : interruptedWhileReconnecting();
      }
      if (session.pastStopSlotWal() && !stop.get()) {
        session.report("stopped: the slot holds more WAL than --stop-slot-wal");
        throw session.slotWalStop(resumeCommand());
      }
      if (stop.get()) {
        session.report("stopped");
        out.println(stopped("streaming stopped (Ctrl-C)"));
        out.flush();
        return ExitCode.INTERRUPTED.exitCode();
      }
      return cutoverOnRequest(session, request, stop);
    }
  }

  private int cutoverOnRequest(LiveSession session, Path request, AtomicBoolean stop) throws Exception {
    JsonNode asked = readRequest(request);
    String id = asked.path("id").asText();
    metrics.phase(RunMetrics.Phase.CUTOVER);
    Cutover.Result result = Cutover.run(session, stop::get, asked.path("full").asBoolean(),
        asked.path("fallback").asBoolean(true));
    writeResult(options.runDirectory(), id, result);
    Files.deleteIfExists(request);
    out.println(result.message());
    if (result.exitCode() != 0) {
      out.println(stopped("streaming stopped after the failed cutover"));
    }
    out.flush();
    state = LiveState.read(options.runDirectory()).orElse(state);
    return result.exitCode();
  }

  /**
   * What a run that failed or was stopped leaves behind, and what to do: for every way out but a cutover. A run that
   * failed during its load (the in-process loader's or a Beam job) cannot be resumed — the snapshot the stream must
   * start from ended with it — so its slot, which would only hold WAL, is dropped here, with the publication it
   * created; when that fails the message gives the commands.
   */
  public void failed(Throwable cause) {
    if (state == null || state.phase() == LiveState.Phase.DONE) {
      return;
    }
    if (state.phase() == LiveState.Phase.LOAD) {
      out.println("live: the load failed, and a live load cannot be resumed (its snapshot ended with it). "
          + dropAfterFailedLoad() + " Start over: fix what the error names, then run migrate --live again with a "
          + "new --run-dir into an empty database (drop the tables this run created, or use a new database).");
    } else {
      out.println(stopped("the live run stopped"));
    }
    out.flush();
  }

  /** Drops the slot (and the publication this run created) of a run whose load failed; says what it did. */
  private String dropAfterFailedLoad() {
    try {
      ReplicationSetup.dropSlot(source, state.slot());
      if (state.createdPublication()) {
        ReplicationSetup.dropPublication(source, state.publication());
      }
      return "Its replication slot " + state.slot() + (state.createdPublication() ? " and publication "
          + state.publication() + " were" : " was") + " dropped.";
    } catch (RuntimeException e) {
      LOG.warn("Dropping the replication slot of a failed live load: {}", e.toString());
      return "Its replication slot " + state.slot() + " could not be dropped (" + e.getMessage() + "); it fills the "
          + "source's disk if left alone: run " + cleanup(state) + ".";
    }
  }

  /** The command that continues this run ({@code --runner} as it was started: the run directory records it). */
  private String resumeCommand() {
    return "pg2spanner migrate --live --resume --plan " + options.planFile() + " --run-dir " + options.runDirectory()
        + (options.runner() == null ? "" : " --runner " + options.runner())
        + " (same --source and --target)";
  }

  private String stopped(String what) {
    return "live: " + what + ". The source's replication slot " + state.slot() + " "
        + ReplicationSetup.retained(source, state.slot()) + " until it is used or dropped; it fills the source's "
        + "disk if left alone. " + nextSteps();
  }

  /** The commands that continue this run or give it up (needs no database: said at once on Ctrl-C). */
  private String nextSteps() {
    return "Continue: " + resumeCommand() + ". Give up: " + cleanup(state) + ".";
  }

  /** The commands that remove what a live run created on the source. */
  static String cleanup(LiveState state) {
    return "`" + LiveReadiness.dropCommand(state.slot()) + "`" + (state.createdPublication()
        ? " and `DROP PUBLICATION " + dev.pg2spanner.source.PgNames.quote(state.publication()) + ";`" : "")
        + " on the source";
  }

  /**
   * Refuses a plan a live run could not delete rows of: every table's Spanner key must be computable from a change's
   * values, hash-shard columns included, in the plan's dialect.
   *
   * @throws Pg2SpannerException PLAN_INVALID naming the table, the column and the way on
   */
  public static void requireComputableKeys(Plan plan) {
    for (TablePlan table : plan.tables()) {
      if (RowKey.of(table).kind() != RowKey.Kind.SYNTHETIC) {
        SpannerKeys.of(table, plan.target().spannerDialect());
      }
    }
  }

  /**
   * How to start over after a live load that stopped: the commands that drop its slot (and publication) when the
   * slot is still there (a process killed), else only the new run (a failed load dropped them itself).
   */
  private static String startOverAfterLoad(SourceConnector source, LiveState state) {
    boolean slotLeft;
    try (Connection c = source.open()) {
      slotLeft = LiveReadiness.slots(c).stream().anyMatch(s -> s.name().equals(state.slot()));
    } catch (SQLException | RuntimeException e) {
      slotLeft = true; // unknown: give the commands, which are harmless to try
    }
    return "Start over: " + (slotLeft ? cleanup(state) + ", then run" : "(its replication slot " + state.slot()
        + " was dropped when the load failed) run") + " migrate --live with a new --run-dir into an empty database";
  }

  private static void requireSlot(SourceConnector source, LiveState state) {
    try (Connection c = source.open()) {
      boolean exists = LiveReadiness.slots(c).stream().anyMatch(s -> s.name().equals(state.slot()));
      if (!exists) {
        throw new Pg2SpannerException(ExitCode.SOURCE_NOT_READY, NextStep.STATED,
            "the live run's replication slot " + state.slot()
            + " no longer exists on the source, so the changes since it stopped streaming are gone; start over "
            + "with a new --run-dir into an empty database");
      }
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot look for the replication slot "
          + state.slot() + " (" + e.getMessage() + ")", e);
    }
  }

  /** Per table, what continuous verification has verified, from its latest line in the progress log. */
  private static void printVerification(JsonNode line, PrintWriter out) {
    long age = Duration.between(Instant.parse(line.path("at").asText()), Instant.now()).toSeconds();
    JsonNode summary = line.path("summary");
    out.println("  verified     " + summary.path("verified").asInt() + " of " + summary.path("tables").asInt()
        + " tables, at the consistent cut " + line.path("cut").asText() + " " + age + " s ago; "
        + summary.path("upToDate").asInt() + " up to date (nothing changed since), "
        + summary.path("changedRows").asLong() + " changed rows waiting to be compared"
        + (summary.path("differing").asInt() > 0 ? "; " + summary.path("differing").asInt() + " table(s) DIFFER"
            : ""));
    int width = 0;
    for (JsonNode t : line.path("tables")) {
      width = Math.max(width, t.path("table").asText().length());
    }
    for (JsonNode t : line.path("tables")) {
      StringBuilder b = new StringBuilder("    ").append(t.path("table").asText());
      b.append(" ".repeat(width - t.path("table").asText().length() + 2));
      b.append(t.path("verifiedTo").isNull() ? "not verified yet" : "verified to " + t.path("verifiedTo").asText());
      b.append("; to compare: ").append(t.path("pending").asText());
      if (t.has("differences")) {
        b.append("; DIFFERS").append(t.path("persistent").asBoolean() ? " (persisted across two cuts)" : "")
            .append(": ");
        List<String> keys = new java.util.ArrayList<>();
        t.path("differences").forEach(k -> keys.add(k.asText()));
        b.append(String.join(", ", keys));
      }
      if (t.has("note")) {
        b.append(" (").append(t.path("note").asText()).append(')');
      }
      out.println(b);
    }
  }

  /** The JDBC URL without a password parameter (the run directory must never hold one). */
  static String withoutPassword(String url) {
    return url.replaceAll("(?i)([?&])password=[^&]*&?", "$1").replaceAll("[?&]$", "");
  }

  // ---- cutover and status from another process ------------------------------------------------------------------

  /**
   * {@code pg2spanner cutover}: asks the running {@code migrate --live} of this run directory to cut over and waits
   * for its outcome; when none runs, cuts over in this process.
   *
   * @param source the source (password from the caller's options); null to use the run's own URL unchanged
   * @param target the target, or null for the run's own
   */
  public static int cutover(Path runDirectory, SourceConfig source, SpannerTarget target, Plan plan,
      SessionFactory sessions, Duration progressInterval, boolean full, boolean fallback, PrintWriter out)
      throws Exception {
    LiveState state = LiveState.read(runDirectory).orElseThrow(() -> new Pg2SpannerException(ExitCode.RUN_STATE,
        runDirectory + " holds no live run (no " + LiveState.FILE + "); name the --run-dir of a migrate --live"));
    switch (state.phase()) {
      case DONE -> {
        out.println("The live run in " + runDirectory + " was cut over already.");
        out.flush();
        return 0;
      }
      case LOAD, SCHEMA -> throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "the live run in "
          + runDirectory + " has not started streaming yet (it is in its " + state.phase().name()
          .toLowerCase(Locale.ROOT) + " phase); wait for migrate --live to print that it streams");
      default -> { }
    }
    Optional<RunDirectoryLock> lock = RunDirectoryLock.tryAcquire(runDirectory, "cutover");
    if (lock.isEmpty()) {
      Optional<RunDirectoryLock.Holder> holder = RunDirectoryLock.holder(runDirectory);
      if (holder.isEmpty() || MIGRATE_LIVE.equals(holder.get().command())) {
        return askRunningMigrate(runDirectory, full, fallback, out);
      }
      throw new Pg2SpannerException(ExitCode.RUN_STATE, "the run directory " + runDirectory + " is in use by "
          + holder.get().describe() + ", so cutover did not start; nothing was changed. Wait for it to finish, then "
          + "run cutover again");
    }
    try (RunDirectoryLock held = lock.get();
        SessionFactory.Opened opened = sessions.open(state)) {
      LiveSession.Context ctx = new LiveSession.Context(state.plan(runDirectory, plan), new SourceConnector(source),
          target,
          opened.client(), opened.admin(), runDirectory, Path.of(state.deadLetterFile()), state.maxBadRows(),
          progressInterval, out);
      if (state.phase() == LiveState.Phase.CUTOVER) {
        out.println("== cutover: verified earlier; finishing");
        Cutover.finish(ctx, state, fallback);
        out.println("Cutover done.");
        out.flush();
        return 0;
      }
      try (LiveSession session = LiveSession.open(ctx, state)) {
        Cutover.Result result = Cutover.run(session, () -> false, full, fallback);
        out.println(result.message());
        out.flush();
        return result.exitCode();
      }
    }
  }

  /** How {@link #cutover} reaches the target (the CLI owns the Spanner client). */
  public interface SessionFactory {
    Opened open(LiveState state);

    /** An open target; closed after cutover. */
    interface Opened extends AutoCloseable {
      DatabaseClient client();

      DatabaseAdminClient admin();

      @Override
      void close();
    }
  }

  private static int askRunningMigrate(Path runDirectory, boolean full, boolean fallback, PrintWriter out)
      throws IOException,
      InterruptedException {
    String id = UUID.randomUUID().toString();
    Path result = runDirectory.resolve(CUTOVER_RESULT);
    Files.deleteIfExists(result);
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("id", id);
    request.put("at", Instant.now().toString());
    request.put("full", full);
    request.put("fallback", fallback);
    Files.write(runDirectory.resolve(CUTOVER_REQUEST), JSON.writeValueAsBytes(request));
    out.println("Asked the running migrate --live to cut over; its terminal shows the details. Waiting...");
    out.flush();
    Path progress = runDirectory.resolve(RunFiles.PROGRESS);
    int printed = JsonLinesFile.read(progress).size();
    while (true) {
      if (Files.exists(result)) {
        JsonNode r = JSON.readTree(result.toFile());
        if (id.equals(r.path("id").asText())) {
          out.println(r.path("message").asText());
          out.flush();
          return r.path("exitCode").asInt();
        }
      }
      if (RunDirectoryLock.holder(runDirectory).isEmpty()) {
        // It may have finished just now: one last look.
        if (Files.exists(result) && id.equals(JSON.readTree(result.toFile()).path("id").asText())) {
          continue;
        }
        Files.deleteIfExists(runDirectory.resolve(CUTOVER_REQUEST));
        throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "the migrate --live process ended without cutting "
            + "over (see its output); run cutover again: with no migrate running it cuts over itself");
      }
      List<JsonNode> lines = JsonLinesFile.read(progress);
      for (JsonNode line : lines.subList(Math.min(printed, lines.size()), lines.size())) {
        if (LiveProgress.TYPE.equals(line.path("type").asText())) {
          out.println("  " + LiveProgress.line(JSON.convertValue(line, Map.class)));
        }
      }
      printed = lines.size();
      out.flush();
      Thread.sleep(500);
    }
  }

  private static JsonNode readRequest(Path request) {
    try {
      return JSON.readTree(request.toFile());
    } catch (IOException e) {
      return JSON.createObjectNode();
    }
  }

  private static void writeResult(Path runDirectory, String id, Cutover.Result result) throws IOException {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", id);
    r.put("exitCode", result.exitCode());
    r.put("message", result.message());
    r.put("at", Instant.now().toString());
    Path temp = runDirectory.resolve(CUTOVER_RESULT + ".tmp");
    Files.write(temp, JSON.writeValueAsBytes(r));
    Files.move(temp, runDirectory.resolve(CUTOVER_RESULT), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * {@code pg2spanner status}: a live run's phase, whether a process streams it, and its latest progress.
   *
   * @return 0, or LOCAL_IO's code when the directory holds no live run
   */
  public static int status(Path runDirectory, PrintWriter out) {
    LiveState state = LiveState.read(runDirectory).orElseThrow(() -> new Pg2SpannerException(ExitCode.PLAN_INVALID,
        runDirectory + " holds no live run (no " + LiveState.FILE + "); name the --run-dir of a migrate --live"));
    Optional<RunDirectoryLock.Holder> holder = RunDirectoryLock.holder(runDirectory);
    boolean running = holder.isPresent();
    out.println("Live run in " + runDirectory);
    out.println("  phase        " + state.phase().name().toLowerCase(Locale.ROOT)
        + (running ? (MIGRATE_LIVE.equals(holder.get().command()) ? " (a migrate --live process is running)"
        : " (another command is running)") : " (no process is running it)"));
    holder.ifPresent(h -> out.println("  process      " + h.describe()));
    out.println("  slot         " + state.slot() + " (publication " + state.publication() + ")");
    out.println("  stream from  " + state.consistentPoint() + " (the load's snapshot), started " + state.startedAt());
    out.println("  target       " + state.target());
    List<JsonNode> lines = JsonLinesFile.read(runDirectory.resolve(RunFiles.PROGRESS));
    JsonNode latest = null;
    for (JsonNode line : lines) {
      if (LiveProgress.TYPE.equals(line.path("type").asText())) {
        latest = line;
      }
    }
    JsonNode verified = null;
    for (JsonNode line : lines) {
      if (ContinuousVerifier.TYPE.equals(line.path("type").asText())) {
        verified = line;
      }
    }
    if (latest != null) {
      Instant at = Instant.parse(latest.path("at").asText());
      long age = Duration.between(at, Instant.now()).toSeconds();
      out.println("  latest       " + LiveProgress.line(JSON.convertValue(latest, Map.class)));
      if (latest.hasNonNull("slotWalWarning")) {
        out.println("  WARNING      " + latest.path("slotWalWarning").asText());
      }
      out.println("               reported " + age + " s ago" + (running || state.phase() == LiveState.Phase.DONE
          ? "" : "; nothing streams now, so the lag grows: resume with migrate --live --resume"));
      if (verified != null) {
        printVerification(verified, out);
      }
    } else if (state.phase() == LiveState.Phase.LOAD || state.phase() == LiveState.Phase.SCHEMA) {
      List<JsonNode> load = lines.stream().filter(l -> "progress".equals(l.path("type").asText())).toList();
      if (!load.isEmpty()) {
        JsonNode last = load.get(load.size() - 1);
        out.println("  load         " + last.path("rows").asLong() + " rows copied, as of " + last.path("at").asText());
      }
    }
    out.flush();
    return 0;
  }
}
