package dev.pg2spanner.live;

import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.live.apply.ApplyCounters;
import dev.pg2spanner.live.apply.ChangeApplier;
import dev.pg2spanner.live.apply.LivePosition;
import dev.pg2spanner.live.apply.SpannerKeys;
import dev.pg2spanner.live.stream.CatalogFollower;
import dev.pg2spanner.live.stream.LiveStream;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.live.stream.PgOutput;
import dev.pg2spanner.live.stream.SourceLookup;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.metrics.MonitorOptions;
import dev.pg2spanner.metrics.RunMetrics;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One process streaming a live run: the applier, the stream from the slot, progress, and the source connection for
 * lookups and lag. Used by {@code migrate --live} (until it is stopped or asked to cut over) and by
 * {@code cutover} when no migrate is running.
 */
final class LiveSession implements AutoCloseable {

  /**
   * What a session works with.
   *
   * @param runDirectory holds live.json, progress.jsonl and the dead-letter file (unless elsewhere)
   * @param metrics where the stream's figures are also counted for a monitoring system
   * @param monitor the slot-WAL limits ({@code --max-slot-wal}, {@code --stop-slot-wal})
   */
  record Context(Plan plan, SourceConnector source, SpannerTarget target, DatabaseClient client,
      DatabaseAdminClient admin, Path runDirectory, Path deadLetterFile, long maxBadRows, Duration progressInterval,
      PrintWriter out, Verification verification, RunMetrics metrics, MonitorOptions monitor) {

    Context {
      metrics = metrics == null ? new RunMetrics() : metrics;
      monitor = monitor == null ? MonitorOptions.NONE : monitor;
    }

    Context(Plan plan, SourceConnector source, SpannerTarget target, DatabaseClient client,
        DatabaseAdminClient admin, Path runDirectory, Path deadLetterFile, long maxBadRows, Duration progressInterval,
        PrintWriter out, Verification verification) {
      this(plan, source, target, client, admin, runDirectory, deadLetterFile, maxBadRows, progressInterval, out,
          verification, null, null);
    }

    Context(Plan plan, SourceConnector source, SpannerTarget target, DatabaseClient client,
        DatabaseAdminClient admin, Path runDirectory, Path deadLetterFile, long maxBadRows, Duration progressInterval,
        PrintWriter out) {
      this(plan, source, target, client, admin, runDirectory, deadLetterFile, maxBadRows, progressInterval, out,
          Verification.DEFAULT);
    }

    /** The target database's dialect, as the plan records it. */
    SpannerDialect dialect() {
      return plan.target().spannerDialect();
    }
  }

  /**
   * How the session verifies while it streams.
   *
   * @param interval how often the background verifier looks for changed rows to compare; null: never (cutover then
   *     compares whatever the ledger holds)
   * @param verifiedAt the position every table was found equal at just before streaming (the load's own verify at
   *     the slot's consistent point), or null when unknown
   */
  record Verification(Duration interval, Long verifiedAt) {
    static final Verification DEFAULT = new Verification(Duration.ofSeconds(10), null);
  }

  final Context ctx;
  /** What the run directory records; revised when a schema change is followed. */
  volatile LiveState state;
  final ApplyCounters counters;
  /** What outlives this session when the run reconnects (see {@link Carried}). */
  private final Carried carried;
  final SourceLookup lookup;
  final LiveProgress progress;
  final ChangeApplier applier;
  private final DeadLetterFile deadLetters;
  private final JsonLinesFile progressLog;
  private final LiveStream stream;
  private final List<String> barriers = new ArrayList<>();
  /** What is verified and what changed since; saved when the session closes. */
  final VerificationLedger ledger;
  private ContinuousVerifier verifier;
  /** Compares the catalog with the plan on a timer; null until {@link #startWatchingCatalog}. */
  private java.util.concurrent.ScheduledExecutorService watch;
  /** True from the moment a reconciliation is asked for in the WAL until the applier starts it. */
  private final java.util.concurrent.atomic.AtomicBoolean catalogAsked = new java.util.concurrent.atomic
      .AtomicBoolean();
  /** "schema.table/index" of catalog indexes planning leaves out (not differences to act on again). */
  private final java.util.Set<String> ignoredIndexes = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LiveSession.class);

  /**
   * What one live run keeps across the sessions it opens after the source connection broke: the counters (progress
   * lines and meters go on counting) and the ledger the meters read (the last session's).
   */
  record Carried(ApplyCounters counters,
      java.util.concurrent.atomic.AtomicReference<VerificationLedger> ledger) {
    Carried() {
      this(new ApplyCounters(), new java.util.concurrent.atomic.AtomicReference<>());
    }
  }

  private LiveSession(Context ctx, LiveState state, Carried carried) {
    this.ctx = ctx;
    this.carried = carried;
    this.counters = carried.counters();
    this.state = state;
    this.lookup = new SourceLookup(ctx.source());
    boolean ok = false;
    DeadLetterFile dead = null;
    JsonLinesFile log = null;
    try {
      if (!positionTableExists(ctx.client(), ctx.dialect())) {
        LivePosition.createTable(ctx.admin(), ctx.target(), ctx.dialect());
      }
      LivePosition position = new LivePosition(ctx.client(), state.slot());
      LivePosition.Applied applied = position.read().orElse(null);
      dead = DeadLetterFile.open(ctx.deadLetterFile());
      log = JsonLinesFile.open(ctx.runDirectory().resolve(dev.pg2spanner.rundir.RunFiles.PROGRESS),
          "the progress log", false, WayOn.resume("free disk space, then rerun migrate --live --resume"));
      Map<String, TableConverter> converters = TableConverter.compileAll(ctx.plan());
      selfCheckShards(ctx, converters);
      List<String> tables = ctx.plan().tables().stream().map(TablePlan::target).toList();
      long appliedTo = appliedTo(applied);
      VerificationLedger saved = VerificationLedger.load(ctx.runDirectory(), tables, appliedTo).orElse(null);
      this.ledger = saved != null ? saved : new VerificationLedger(tables);
      if (saved == null && ctx.verification().verifiedAt() != null && applied == null) {
        ledger.allVerified(ctx.verification().verifiedAt());
      }
      VerificationLedger ledger = this.ledger;
      counters.meters = ctx.metrics().commits("live"); // before the applier, whose committer counts into them
      this.applier = new ChangeApplier(ctx.plan(), converters, state.relations(), ctx.client(), position, applied,
          lookup, dead, ctx.maxBadRows(), counters, new ChangeApplier.Events() {
            @Override
            public void committed(LivePosition.Applied a) {
              // the stream confirms it to the source
            }

            @Override
            public void barrier(String content) {
              barriers.add(content);
            }

            @Override
            public void rowChanged(String table, String[] keyTexts, long lsn) {
              ledger.rowChanged(table, keyTexts, lsn);
            }

            @Override
            public void tableChanged(String table, long lsn) {
              ledger.tableChanged(table, lsn);
            }

            @Override
            public void tableAdded(String table) {
              ledger.addTable(table);
            }

            @Override
            public void tableDropped(String table) {
              ledger.removeTable(table);
            }
          });
      applier.joining().forEach(ledger::removeTable); // a new table's copy is ahead of the stream: not yet comparable
      long start = appliedTo(applied);
      this.progress = new LiveProgress(counters, log, ctx.out(), ctx.progressInterval(), lookup, state.slot(),
          Instant.parse(state.startedAt()));
      bindMetrics(ctx, tables);
      this.progress.verification(() -> {
        Map<String, Object> summary = new java.util.LinkedHashMap<>(this.ledger.summary());
        String paused = verificationPaused();
        if (paused != null) {
          summary.put("paused", paused);
        }
        return summary;
      });
      this.stream = LiveStream.open(ctx.source(), state.slot(), state.publication(), start, applier);
      this.deadLetters = dead;
      this.progressLog = log;
      ctx.out().println("live: streaming changes from " + Lsn.text(start)
          + (applied == null ? " (the load's snapshot)" : " (the position Spanner holds)") + " through slot "
          + state.slot());
      ctx.out().flush();
      ok = true;
    } finally {
      if (!ok) {
        lookup.close();
        if (dead != null) {
          dead.close();
        }
        if (log != null) {
          log.close();
        }
      }
    }
  }

  /**
   * Where Spanner's state stands in the source's history: the end of the last transaction applied, or before any, the
   * slot's consistent point (the load's snapshot holds everything before it).
   */
  private long appliedTo(LivePosition.Applied applied) {
    return applied != null ? applied.endLsn() : Lsn.parse(state.consistentPoint());
  }

  /** The stream's counters, lag and verification, counted into the run's meters too. */
  private void bindMetrics(Context ctx, List<String> tables) {
    progress.observe(ctx.metrics(), ctx.monitor());
    if (carried.ledger().getAndSet(ledger) == null) {
      // Bound once per run: a reconnected session counts into the same counters, and its ledger replaces the last
      // one's in the holder the gauges read.
      Map<String, java.util.function.LongSupplier> kinds = new java.util.LinkedHashMap<>();
      kinds.put("insert", counters.inserts::sum);
      kinds.put("update", counters.updates::sum);
      kinds.put("delete", counters.deletes::sum);
      kinds.put("truncate", counters.truncates::sum);
      ctx.metrics().live(new RunMetrics.LiveCounts(kinds, counters.transactions::sum, counters.rejected::sum));
      java.util.concurrent.atomic.AtomicReference<VerificationLedger> current = carried.ledger();
      ctx.metrics().verification(tables, t -> {
        long lsn = current.get().verifiedLsn(t);
        return lsn < 0 ? Double.NaN : lsn;
      }, t -> current.get().changedRowCount(t), () -> current.get().differingTables());
    }
  }

  static LiveSession open(Context ctx, LiveState state) {
    return open(ctx, state, new Carried());
  }

  /** A session that carries the counters and ledger holder of an earlier one of the same run. */
  static LiveSession open(Context ctx, LiveState state, Carried carried) {
    LiveSession session = new LiveSession(ctx, state, carried);
    session.applier.followSchemaChanges(session::followSchemaChange);
    session.applier.followCatalogChanges(session::reconcile);
    return session;
  }

  /** How often the source's catalog is compared with the plan while streaming (tables and indexes). */
  static final Duration CATALOG_INTERVAL = Duration.ofSeconds(10);

  /** Compares the catalog with the plan every {@code interval} while the session streams. */
  void startWatchingCatalog(Duration interval) {
    if (watch != null) {
      return;
    }
    watch = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pg2spanner-catalog-watch");
      t.setDaemon(true);
      return t;
    });
    watch.scheduleWithFixedDelay(() -> {
      try {
        checkCatalog();
      } catch (RuntimeException e) {
        // A session closing interrupts a question in flight (pgjdbc then says "Something unusual has occurred"):
        // not a failure worth a warning.
        if (!watch.isShutdown()) {
          LOG.warn("Comparing the source's catalog with the plan failed (tried again in {} s): {}",
              interval.toSeconds(), e.getMessage());
        }
      }
    }, interval.toMillis(), interval.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /**
   * Compares the source's catalog with the plan the stream converts by; when they differ (a table created or dropped
   * in a planned schema, an index created or dropped on a planned table) writes a message into the WAL at which the
   * applier reconciles ({@link #reconcile}): after every change committed before it, so a dropped table's last
   * changes are in Spanner before it is dropped there.
   *
   * @return true when a reconciliation is asked for (or still waits for the applier)
   */
  synchronized boolean checkCatalog() {
    if (catalogAsked.get()) {
      return true;
    }
    CatalogFollower.Seen seen;
    try (java.sql.Connection c = ctx.source().open()) {
      seen = CatalogFollower.look(c, applier.plan(), ignoredIndexes);
      if (seen.isEmpty()) {
        return false;
      }
      try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT pg_logical_emit_message(false, ?, ?)::text")) {
        ps.setString(1, ChangeApplier.CATALOG_PREFIX);
        ps.setString(2, String.join("\n", seen.dropped()));
        ps.execute();
      }
    } catch (java.sql.SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot compare the source's catalog with the "
          + "plan (" + e.getMessage() + ")", e);
    }
    catalogAsked.set(true);
    LOG.info("The source's catalog differs from the plan ({}): reconciling in stream order",
        String.join("; ", CatalogFollower.describe(seen)));
    return true;
  }

  /**
   * Brings the target in step with the source's catalog, on the applier's thread with everything before committed:
   * tables dropped on the source (named by the message, so their last changes are applied) are dropped in Spanner,
   * after their indexes and the foreign keys on or to them; a table created in a planned schema is planned by the
   * planner's own rules, added to the publication, created in Spanner, its rows copied from a snapshot whose position
   * is then where its stream starts, and its indexes created; indexes created or dropped on planned tables are
   * created or dropped in Spanner. All of it is one new version of the target's Flyway history and one plan revision.
   */
  private ChangeApplier.Reconciled reconcile(List<String> droppedBefore, long lsn) {
    catalogAsked.set(false);
    long started = System.nanoTime();
    Plan current = applier.plan();
    CatalogReconcile r = new CatalogReconcile(ctx, state, current, ignoredIndexes);
    try (java.sql.Connection c = ctx.source().open()) {
      r.run(c, droppedBefore);
    } catch (java.sql.SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
          "cannot read the source's catalog to follow its "
          + "tables and indexes (" + e.getMessage() + "); streaming stopped before the change, nothing was lost: "
          + "rerun migrate --live --resume", e);
    }
    if (r.described().isEmpty()) {
      return new ChangeApplier.Reconciled(current, List.of(), List.of());
    }
    int n = 1;
    while (java.nio.file.Files.exists(ctx.runDirectory().resolve(dev.pg2spanner.rundir.RunFiles.PLAN_REVISION_PREFIX
        + n + ".yaml"))) {
      n++;
    }
    String revisionFile = dev.pg2spanner.rundir.RunFiles.PLAN_REVISION_PREFIX + n + ".yaml";
    String version = r.statements().isEmpty() ? "" : " Applied as " + LiveDdl.record(ctx, "catalog", r.statements(),
        (System.nanoTime() - started) / 1_000_000) + ".";
    dev.pg2spanner.plan.PlanFiles.write(r.plan(), ctx.runDirectory().resolve(revisionFile));
    state = state.reconciled(revisionFile, r.added(), r.dropped());
    state.write(ctx.runDirectory());
    ctx.out().println("live: the source's catalog changed: " + String.join("; ", r.described()) + "." + version
        + " The plan is revised in " + ctx.runDirectory().resolve(revisionFile) + "; streaming goes on");
    ctx.out().flush();
    Map<String, Object> line = new java.util.LinkedHashMap<>();
    line.put("type", "schema");
    line.put("at", Instant.now().toString());
    line.put("changes", r.described());
    line.put("ddl", r.statements());
    line.put("planRevision", revisionFile);
    try {
      progressLog.append(line);
    } catch (Pg2SpannerException e) {
      ctx.out().println("warning: " + e.getMessage());
    }
    return new ChangeApplier.Reconciled(r.plan(), r.added(), r.dropped());
  }

  /** The plan the stream converts by now (revised by the schema changes it followed). */
  Plan plan() {
    return applier.plan();
  }

  /**
   * A table's columns changed on the source: the change translated ({@link SchemaFollower}), applied to the target as a
   * new version in its schema history (its script kept in the run directory's migrations/), the plan revised and
   * recorded in the run directory, so a resumed run converts by it too.
   */
  private ChangeApplier.Followed followSchemaChange(SourceShape.Relation shape, PgOutput.Relation now,
      TablePlan table, long lsn) {
    Plan current = applier.plan();
    SchemaFollower.Revision revision;
    try (java.sql.Connection c = ctx.source().open()) {
      revision = SchemaFollower.follow(c, current, table, shape, now, "pg2spanner");
    } catch (java.sql.SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
          "cannot read the source's catalog to follow the "
          + "change of " + table.source() + " (" + e.getMessage() + "); streaming stopped before the change, "
          + "nothing was lost: rerun migrate --live --resume", e);
    }
    Plan next = revision.table() == table ? current : current.withTable(revision.table());
    String revisionFile = null;
    if (next != current) {
      int n = 1;
      while (java.nio.file.Files.exists(ctx.runDirectory().resolve(dev.pg2spanner.rundir.RunFiles.PLAN_REVISION_PREFIX
          + n + ".yaml"))) {
        n++;
      }
      revisionFile = dev.pg2spanner.rundir.RunFiles.PLAN_REVISION_PREFIX + n + ".yaml";
      String version = revision.ddl().isEmpty() ? "" : " as " + LiveDdl.apply(ctx, revision, table);
      dev.pg2spanner.plan.PlanFiles.write(next, ctx.runDirectory().resolve(revisionFile));
      ctx.out().println("live: the source table " + table.source() + " changed: " + String.join("; ",
          revision.changes()) + (revision.ddl().isEmpty() ? " (nothing to change in Spanner)"
          : "; applied to " + table.target() + version) + ". The plan is revised in " + ctx.runDirectory()
          .resolve(revisionFile) + "; streaming goes on");
      ctx.out().flush();
      ctx.metrics().schemaChangeApplied();
      Map<String, Object> line = new java.util.LinkedHashMap<>();
      line.put("type", "schema");
      line.put("at", Instant.now().toString());
      line.put("table", table.target());
      line.put("changes", revision.changes());
      line.put("ddl", revision.ddl());
      line.put("planRevision", revisionFile);
      try {
        progressLog.append(line);
      } catch (Pg2SpannerException e) {
        ctx.out().println("warning: " + e.getMessage());
      }
    }
    state = state.revised(revisionFile, revision.shape());
    state.write(ctx.runDirectory());
    return new ChangeApplier.Followed(next, revision.shape());
  }

  /** Starts verifying in the background (unless the context says never). */
  void startVerifying() {
    if (ctx.verification().interval() != null && verifier == null) {
      verifier = ContinuousVerifier.start(verifierContext());
    }
  }

  /** Stops background verification (before cutover takes over the comparison). */
  void stopVerifying() {
    if (verifier != null) {
      verifier.close();
      verifier = null;
    }
  }

  /** Why background verification is not advancing, or null. */
  String verificationPaused() {
    ContinuousVerifier v = verifier;
    return v == null ? null : v.pausedBecause();
  }

  ContinuousVerifier.Context verifierContext() {
    return new ContinuousVerifier.Context(applier::plan, ctx.source(), ctx.client(), applier, ledger,
        ctx.deadLetterFile(), progressLog, ctx.verification().interval() == null ? Duration.ofSeconds(10)
            : ctx.verification().interval(), progress::lastLagBytes);
  }

  /**
   * Streams until {@code stop}, or until the slot holds more WAL than {@code --stop-slot-wal}
   * ({@link #pastStopSlotWal}); reports progress on the way.
   */
  void streamUntil(BooleanSupplier stop) throws InterruptedException {
    stream.run(() -> stop.getAsBoolean() || progress.pastStopLimit(), () -> progress.maybeReport(stream, applier));
  }

  /** True when streaming stopped because the slot held more WAL than {@code --stop-slot-wal}. */
  boolean pastStopSlotWal() {
    return progress.pastStopLimit();
  }

  /**
   * Why streaming stopped at {@code --stop-slot-wal}, with the commands that give the run up (and free the WAL) or
   * continue it.
   */
  Pg2SpannerException slotWalStop(String continueCommand) {
    Long held = progress.retained();
    return new Pg2SpannerException(ExitCode.SLOT_WAL_LIMIT, NextStep.RESUME,
        "the replication slot " + state.slot() + " holds "
        + dev.pg2spanner.metrics.ByteSize.format(held == null ? 0 : held) + " of WAL on the source, more than "
        + "--stop-slot-wal " + dev.pg2spanner.metrics.ByteSize.format(ctx.monitor().stopSlotWalBytes())
        + ": streaming stopped rather than fill the source's disk (what was applied is committed and kept; the slot "
        + "still holds the WAL). To give the live run up and free that WAL now: " + LiveRun.cleanup(state)
        + ", then start again with a new --run-dir into an empty database. To go on instead: make room on the "
        + "source's disk, then " + continueCommand + " with a larger --stop-slot-wal (or none)");
  }

  /**
   * Streams until a barrier with {@code content} has been applied (or {@code abort} says stop); then takes what
   * the server sent after it, so the stream stands caught up.
   */
  void streamUntilBarrier(String content, BooleanSupplier abort) throws InterruptedException {
    stream.run(() -> barriers.contains(content) || abort.getAsBoolean(),
        () -> progress.maybeReport(stream, applier));
    while (!abort.getAsBoolean() && stream.poll(() -> false)) {
      // drain what followed the barrier (its own WAL record, other databases' keepalives)
    }
  }

  /** A barrier written into the WAL, and its position. */
  record Barrier(String content, long lsn) {}

  /** Writes a barrier into the source's WAL: every transaction committed before it precedes it in the stream. */
  Barrier emitBarrier(String name) {
    String content = name + ":" + java.util.UUID.randomUUID();
    List<String> lsn = lookup.values("SELECT pg_logical_emit_message(false, '" + ChangeApplier.BARRIER_PREFIX
        + "', ?)::text", content);
    return new Barrier(content, Lsn.parse(lsn.get(0)));
  }

  /** Prints a progress line now. */
  Map<String, Object> report(String note) {
    return progress.report(stream, applier, note);
  }

  /** The end of the last message the server sent on this session's stream (keepalives included). */
  long received() {
    return stream.received();
  }

  /**
   * The change stream broke: waits for the commit in flight (so Spanner holds every position this session handed
   * over before a new session reads where to start); what waits uncommitted is dropped and streamed again.
   *
   * @throws Pg2SpannerException when that commit failed (the target's failure, not the source's)
   */
  void settleAfterBreak() {
    applier.awaitCommitted();
  }

  /** Sends the confirmed position and closes the stream (the slot is then free for another consumer or a drop). */
  void closeStream() {
    stream.close();
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.shutdownNow();
    }
    stopVerifying();
    stream.close();
    applier.close();
    LivePosition.Applied applied = applier.applied();
    try {
      ledger.save(ctx.runDirectory(), appliedTo(applied));
    } catch (Pg2SpannerException e) {
      ctx.out().println("warning: " + e.getMessage());
    }
    lookup.close();
    deadLetters.close();
    progressLog.close();
  }

  static boolean positionTableExists(DatabaseClient client, SpannerDialect dialect) {
    Statement query = dialect.isPostgres()
        ? Statement.newBuilder("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public' "
            + "AND table_name = $1").bind("p1").to(LivePosition.TABLE).build()
        : Statement.newBuilder("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '' "
            + "AND TABLE_NAME = @t").bind("t").to(LivePosition.TABLE).build();
    try (ResultSet rs = client.singleUse(TimestampBound.strong()).executeQuery(query)) {
      rs.next();
      return rs.getLong(0) > 0;
    } catch (com.google.cloud.spanner.SpannerException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "cannot read the target's tables ("
          + e.getMessage() + "); check the target, then rerun migrate --live --resume", e);
    }
  }

  /**
   * Deletes in hash-sharded tables name the shard the applier computes; a few rows Spanner holds must agree with
   * that computation, or the run stops here rather than let deletes miss their rows silently.
   */
  private static void selfCheckShards(Context ctx, Map<String, TableConverter> converters) {
    for (TablePlan table : ctx.plan().tables()) {
      if (converters.get(table.target()).rowKey().kind() == RowKey.Kind.SYNTHETIC) {
        continue;
      }
      SpannerKeys keys = SpannerKeys.of(table, ctx.dialect());
      if (!keys.computesShard()) {
        continue;
      }
      List<String> columns = new ArrayList<>(table.primaryKey().stream().map(KeyPart::column).toList());
      keys.inputColumns().stream().filter(c -> !columns.contains(c)).forEach(columns::add);
      SpannerDialect dialect = ctx.dialect();
      String sql = "SELECT " + String.join(", ", columns.stream().map(c -> SpannerNames.quote(dialect, c)).toList())
          + " FROM " + SpannerNames.qualified(dialect, table.targetSchema(), table.targetName()) + " LIMIT 20";
      try (ResultSet rs = ctx.client().singleUse(TimestampBound.strong()).executeQuery(Statement.of(sql))) {
        while (rs.next()) {
          Struct row = rs.getCurrentRowAsStruct();
          Map<String, Value> values = new HashMap<>();
          for (String c : columns) {
            values.put(c, row.getValue(c));
          }
          com.google.cloud.spanner.Key.Builder stored = com.google.cloud.spanner.Key.newBuilder();
          for (KeyPart part : table.primaryKey()) {
            SpannerKeys.append(stored, row.getValue(part.column()));
          }
          if (!keys.key(values::get).equals(stored.build())) {
            throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "the shard of " + table.target() + " computed "
                + "here (" + keys.key(values::get) + ") differs from the one Spanner stored (" + stored.build()
                + "), so streamed deletes would miss their rows; migrate this plan without --live");
          }
        }
      } catch (IllegalArgumentException e) {
        throw new Pg2SpannerException(ExitCode.PLAN_INVALID, e.getMessage() + "; migrate this plan without --live",
            e);
      }
    }
  }
}
