package dev.pg2spanner.fallback;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.source.ReconnectBudget;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.rundir.RunDirectoryLock;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.targetdb.SpannerTime;
import dev.pg2spanner.verify.SnapshotVerify;
import dev.pg2spanner.verify.TableVerification;
import dev.pg2spanner.verify.Verifier;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The way back after cutover: {@code pg2spanner fallback} streams the writes the application made to Spanner back into
 * the source PostgreSQL ({@link #follow}); {@code pg2spanner cutover --back} ends it once the application's writes to
 * Spanner are stopped ({@link #cutoverBack}): catch up, prove the source equal to Spanner, move the source's
 * sequences past every id Spanner handed out, drop the change stream and the position.
 *
 * <p>Reading is by windows of commit time ({@link ChangeStreamReader}); a window's changes are cut into batches of many
 * changes at commit boundaries ({@link ApplyBatches}), and each batch and the position after it commit in one source
 * transaction ({@link FallbackApplier}, {@link FallbackPosition}), so a run killed at any moment continues where the
 * source says it got. A change waits at most about {@link #POLL} before it is read while fallback follows.
 */
public final class FallbackRun {

  /** The longest window of commit time applied in one source transaction while behind. */
  static final Duration MAX_WINDOW = Duration.ofSeconds(30);
  /** How often an idle fallback looks for new changes. */
  static final Duration POLL = Duration.ofSeconds(1);
  /** How long cutover --back waits for a running fallback to stop. */
  static final Duration STOP_WAIT = Duration.ofMinutes(2);
  /** The attempts cutover --back gives the application's writes to stop. */
  static final int ATTEMPTS = 3;
  /** As the load's pieces (PiecePlanner.MAX_PIECE_BYTES): how much of a table one verify read covers. */
  private static final long PIECE_BYTES = 64L << 20;
  private static final long DDL_TIMEOUT_MINUTES = 60;
  /** The longest a read from the source may wait: past its statement_timeout (10 min), so only a stuck link. */
  static final Duration NETWORK_TIMEOUT = Duration.ofMinutes(11);

  /** The command line's view of a fallback: what it needs from the CLI. */
  public record Context(Plan plan, SourceConnector source, SpannerTarget target, DatabaseClient client,
      DatabaseAdminClient admin, Path runDirectory, Path deadLetterFile, Duration progressInterval,
      PrintWriter out) {}

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FallbackRun.class);

  private final Context ctx;
  private final FallbackState state;
  /** The source connection fallback writes through, and its applier: both replaced when the connection breaks. */
  private Connection connection;
  private FallbackApplier applier;
  private final ReconnectBudget reconnects = new ReconnectBudget();
  /** The position when the connection last broke: a connection renews the reconnect budget only by moving it. */
  private Timestamp positionAtLastBreak;
  /**
   * The application_name fallback's connection carries on the source (the run's own: its stream's start time): a
   * server process with it that is not this connection's is one a broken connection left behind.
   */
  private final String tag;
  /** The command that continues after a stop: "fallback", or "cutover --back" while that runs. */
  private String again = "fallback";
  /** What the appliers learned of remapped keys' original ids; kept across reconnects (they stay true). */
  private final Map<String, Map<String, String>> originalIds = new java.util.HashMap<>();
  /** The source's count of applied changes (the position row's) when this process's count was 0. */
  private long savedChangesBase;
  private final ChangeStreamReader reader;
  private final DeadLetterFile deadLetters;
  private final JsonLinesFile progress;
  private Timestamp position;
  private long changes;
  /**
   * Changes the source refused (dead-lettered) in batches this process committed: a batch applied again after a
   * broken connection is counted once, as the file lists its rows once.
   */
  private long refused;
  /** Changes read from the change stream, re-reads after a broken connection included: cutover --back's "any new?". */
  private long read;
  private long reportedChanges;
  /** Time spent reading the stream and applying to the source, for the progress lines (where the time goes). */
  private long readNanos;
  private long applyNanos;
  private long lastReport = System.nanoTime();

  private FallbackRun(Context ctx, FallbackState state) throws SQLException {
    this.ctx = ctx;
    this.state = state;
    this.tag = tag(state);
    this.reader = new ChangeStreamReader(ctx.client(), state.stream(), dialect(ctx.plan()));
    this.deadLetters = DeadLetterFile.open(ctx.deadLetterFile());
    this.progress = JsonLinesFile.open(ctx.runDirectory().resolve(RunFiles.PROGRESS), "the progress log", false,
        WayOn.stated("free disk space, then run the command again"));
    boolean ok = false;
    try {
      FallbackPosition.Saved held = openSource();
      this.position = held.appliedTo();
      this.positionAtLastBreak = held.appliedTo();
      this.savedChangesBase = held.changes();
      ok = true;
    } finally {
      if (!ok) {
        deadLetters.close();
        progress.close();
      }
    }
  }

  /**
   * Opens the connection fallback writes through (replica role, bounded waits, autocommit off) and its applier, and
   * reads the position the source holds: the changes up to it are on the source, whatever this process believed.
   *
   * @return the position to continue from, and the count of changes applied up to it over every run
   */
  private FallbackPosition.Saved openSource() throws SQLException {
    Connection c = ctx.source().open();
    boolean ok = false;
    try {
      // A source that stops answering without a reset (a black-holed network, a hung proxy) fails the statement
      // once it has waited longer than the source itself would let it run, instead of holding fallback forever.
      // A socketTimeout in --source is the user's own bound, and stays.
      if (!ctx.source().config().urlSets("socketTimeout")) {
        c.setNetworkTimeout(Runnable::run, (int) NETWORK_TIMEOUT.toMillis());
      }
      try (java.sql.Statement s = c.createStatement()) {
        // Bounded waits: a lock the source's own sessions hold stops the window, not the process forever.
        s.execute("SET lock_timeout = '30s'");
        s.execute("SET statement_timeout = '10min'");
        s.execute("SET session_replication_role = replica");
      } catch (SQLException e) {
        if (connectionLost(c, e)) {
          throw e;
        }
        throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "fallback applies Spanner's changes to the "
            + "source with session_replication_role = replica (so the source's triggers and foreign-key checks do "
            + "not fire again for writes Spanner already checked), and the source refused it (" + e.getMessage()
            + "). Run fallback as a superuser, or as PostgreSQL 15's `GRANT SET ON PARAMETER "
            + "session_replication_role TO <role>;`, then run fallback again", e);
      }
      endLeftBackends(c);
      FallbackPosition.create(c);
      c.setAutoCommit(false);
      Optional<FallbackPosition.Saved> saved = FallbackPosition.read(c, state.stream());
      c.commit();
      FallbackApplier a = new FallbackApplier(ctx.plan(), c, ctx.client(), originalIds);
      c.commit(); // the applier read the catalog: no transaction stays open while fallback waits
      this.connection = c;
      this.applier = a;
      ok = true;
      return saved.orElse(new FallbackPosition.Saved(Timestamp.parseTimestamp(state.startTimestamp()), 0));
    } finally {
      if (!ok) {
        c.close();
      }
    }
  }

  /**
   * Marks this connection as the run's fallback, then ends every other server process so marked: what a broken
   * connection left behind, in this process or an earlier one (a cut network leaves it waiting, perhaps inside a
   * batch's transaction, holding its row locks; TCP keepalive may take hours to end it). Waits up to 10 s for them
   * to go: only then does the position the source holds say for certain whether that batch committed. The run
   * directory's lock means no other fallback of this run is running. Ending a process of the same role needs no
   * privilege; when refused or slow, the bounded lock waits still hold.
   */
  private void endLeftBackends(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT set_config('application_name', ?, false)")) {
      ps.setString(1, tag);
      ps.executeQuery().close();
    }
    String others = " FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid() "
        + "AND datname = current_database()";
    try (PreparedStatement ps = c.prepareStatement("SELECT count(pg_terminate_backend(pid))" + others)) {
      ps.setString(1, tag);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        long ended = rs.next() ? rs.getLong(1) : 0;
        if (ended == 0) {
          return; // nothing left behind: nothing to wait for
        }
        LOG.info("Ended {} server process(es) a broken fallback connection left on the source", ended);
      }
    } catch (SQLException e) {
      if (connectionLost(c, e)) {
        throw e;
      }
      LOG.warn("Could not end the server processes a broken fallback connection left ({}); continuing",
          firstLine(e));
      return;
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try (PreparedStatement ps = c.prepareStatement("SELECT 1" + others)) {
      ps.setString(1, tag);
      while (System.nanoTime() < until) {
        try (java.sql.ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return;
          }
        }
        sleep(Duration.ofMillis(100));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    LOG.warn("A server process a broken fallback connection left is still there after 10 s; continuing");
  }

  /** The run's application_name: "pg2spanner fallback" and the stream's start, within PostgreSQL's 63 bytes. */
  static String tag(FallbackState state) {
    String tag = "pg2spanner fallback " + state.startTimestamp();
    return tag.length() > 63 ? tag.substring(0, 63) : tag;
  }

  /**
   * The connection broke while a batch was being applied: reconnects within {@link ReconnectBudget} (about a minute
   * of tries, the budget renewed by a connection that moved the position for a minute) and continues from the
   * position the source holds (the batch in hand is there if its commit reached the source, else not: either way it
   * is read again only if not). When the budget is spent, or the source answers the new connection with a refusal
   * (a database that takes no connections, a password changed, a privilege revoked: what waiting does not cure),
   * stops with what to do.
   *
   * @return false when {@code stop} (Ctrl-C) came while waiting
   */
  private boolean reconnect(Exception broke, BooleanSupplier stop, boolean opening) {
    closeSource();
    Exception last = broke;
    boolean worked = !opening && !position.equals(positionAtLastBreak);
    positionAtLastBreak = position;
    boolean first = !opening;
    while (true) {
      long delay = reconnects.broke(worked);
      if (delay < 0) {
        throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "the connection to the source broke while "
            + "fallback applied Spanner's changes, and reconnecting " + reconnects.tries() + " times over "
            + reconnects.secondsSinceFirstBreak() + " s did not cure it (last: " + firstLine(last) + "). Nothing is "
            + "lost: the source holds every change Spanner committed up to " + position + ", and the change stream "
            + state.stream() + " keeps the rest for its retention period. Once the source is reachable, run "
            + again + " again: it continues from there", last);
      }
      ctx.out().println((first ? "fallback: the connection to the source broke (" + firstLine(last) + "); "
          + "reconnecting in " : "fallback: could not reconnect to the source (" + firstLine(last) + "); trying "
          + "again in ") + delay / 1000 + " s (" + reconnects.describeTry() + ") from the position the source holds");
      ctx.out().flush();
      LOG.warn("Fallback's source connection broke ({}); reconnect try {} in {} ms", firstLine(last),
          reconnects.tries(), delay);
      if (!ReconnectBudget.await(delay, stop)) {
        return false;
      }
      try {
        FallbackPosition.Saved held = openSource();
        ctx.out().println("fallback: reconnected to the source; continuing from " + held.appliedTo()
            + (held.appliedTo().equals(position) ? "" : " (the batch in hand had been committed there)"));
        ctx.out().flush();
        reopened(held);
        return true;
      } catch (SQLException | Pg2SpannerException e) {
        closeSource();
        if (!unreachable(e)) {
          throw refused(e);
        }
        last = e;
        worked = false;
        first = false;
      }
    }
  }

  /** The source answered a new connection with a refusal: waiting will not cure it, so fallback stops at once. */
  private Pg2SpannerException refused(Exception e) {
    return new Pg2SpannerException(e instanceof Pg2SpannerException p ? p.code() : ExitCode.SOURCE_CONNECTION,
        "fallback's connection to the source broke, and reconnecting was refused: " + firstLine(e) + ". Nothing is "
        + "lost: the source holds every change Spanner committed up to " + position + ", and the change stream "
        + state.stream() + " keeps the rest for its retention period. Fix what the source said, then run " + again
        + " again: it continues from there", e);
  }

  private void close() {
    closeSource();
    deadLetters.close();
    progress.close();
  }

  /** Closes the source connection and its applier (nothing is pending: every batch committed or rolled back). */
  private void closeSource() {
    if (applier != null) {
      applier.close();
      applier = null;
    }
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // broken already
      }
      connection = null;
    }
  }

  /**
   * A failure of the connection itself (the server gone, the network cut, the backend terminated), which a new
   * connection may cure, as opposed to one the source answered (a lock or statement timeout, a refused value).
   */
  static boolean connectionLost(Connection c, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
      return true;
    }
    try {
      return c == null || c.isClosed() || !c.isValid(5);
    } catch (SQLException gone) {
      return true;
    }
  }

  /**
   * A new connection failed in a way waiting may cure; anything else (a refusal, or a failure that says nothing) stops
   * fallback at once. The rule is {@link ReconnectBudget#judge}, shared with the live stream.
   */
  static boolean unreachable(Throwable e) {
    return ReconnectBudget.judge(e) == ReconnectBudget.Failure.TRANSIENT;
  }

  private static String firstLine(Throwable t) {
    String m = String.valueOf(t.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /**
   * The fallback state of {@code runDirectory}, refusing when there is no way back there. The caller has checked that
   * the live run there was cut over ({@code LiveState.requireCutOver}).
   */
  public static FallbackState requireState(Path runDirectory) {
    return FallbackState.read(runDirectory).orElseThrow(() -> new Pg2SpannerException(
        ExitCode.FALLBACK_NOT_READY, "the cutover of " + runDirectory + " created no change stream (it ran with "
            + "--no-fallback), so the writes made to Spanner since cannot be brought back to the source by "
            + "fallback; nothing was changed. To go back, copy the rows from Spanner to the source another way (an "
            + "export of the tables, then a load into the source); to keep this way back for a later cutover, run "
            + "cutover without --no-fallback"));
  }

  /**
   * {@code pg2spanner fallback}: applies the change stream to the source until {@code stop} says so (Ctrl-C) or
   * {@code cutover --back} asks it to stop.
   *
   * @return the exit code
   */
  public static int follow(Context ctx, BooleanSupplier stop) throws Exception {
    FallbackState state = requireState(ctx.runDirectory());
    if (state.phase() != FallbackState.Phase.RECORDING) {
      ctx.out().println("The way back of " + ctx.runDirectory() + " is finished already (cutover --back ran).");
      ctx.out().flush();
      return 0;
    }
    try (RunDirectoryLock lock = RunDirectoryLock.acquire(ctx.runDirectory(), "fallback")) {
      Path stopFile = ctx.runDirectory().resolve(RunFiles.FALLBACK_STOP);
      Files.deleteIfExists(stopFile);
      FallbackRun run = new FallbackRun(ctx, state);
      try {
        PrintWriter out = ctx.out();
        out.println("== fallback: applying every write made to Spanner since " + run.position + " to the source "
            + "(change stream " + state.stream() + "); Ctrl-C stops it, fallback again continues");
        out.flush();
        while (!stop.getAsBoolean() && !Files.exists(stopFile)) {
          Timestamp now = SpannerTime.strongTimestamp(ctx.client());
          run.catchUp(now, () -> stop.getAsBoolean() || Files.exists(stopFile));
          run.maybeReport(null);
          sleep(POLL);
        }
        boolean asked = Files.exists(stopFile);
        Files.deleteIfExists(stopFile);
        run.report("stopped");
        out.println("fallback stopped at " + run.position + (asked ? " (cutover --back asked)" : "") + ": "
            + "everything Spanner committed up to then is on the source. Run fallback again to continue, or "
            + "cutover --back once the application's writes to Spanner are stopped");
        out.flush();
        return asked ? 0 : ExitCode.INTERRUPTED.exitCode();
      } finally {
        run.close();
      }
    }
  }

  /** Applies every window up to {@code end}; stops early (between windows) when {@code stop} says so. */
  private void catchUp(Timestamp end, BooleanSupplier stop) throws SQLException {
    windows:
    while (position.compareTo(end) < 0 && !stop.getAsBoolean()) {
      if (applier == null && !reconnectAfterStop(stop)) {
        return;
      }
      Timestamp windowEnd = min(end, plus(position, MAX_WINDOW));
      long readStart = System.nanoTime();
      List<ChangeStreamReader.Change> window = reader.read(position, windowEnd);
      readNanos += System.nanoTime() - readStart;
      read += window.size();
      for (ApplyBatches.Batch batch : ApplyBatches.cut(window, windowEnd, ApplyBatches.MAX_CHANGES,
          ApplyBatches.MAX_BYTES)) {
        FallbackApplier.Outcome outcome;
        long applyStart = System.nanoTime();
        try {
          outcome = applier.apply(batch.changes(), state.stream(), batch.appliedTo(), rejected -> {
            for (RejectedRow r : rejected) {
              deadLetters.write(r);
            }
          });
          applyNanos += System.nanoTime() - applyStart;
        } catch (SQLException e) {
          if (connectionLost(connection, e)) {
            if (!reconnect(e, stop, false)) {
              return; // Ctrl-C while waiting to reconnect: the caller reports where the source stands
            }
            continue windows; // from the position the source holds
          }
          try {
            connection.rollback();
          } catch (SQLException ignored) {
            // the message below says what to do
          }
          throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "fallback could not apply the changes Spanner "
              + "committed after " + position + " to the source (" + e.getMessage() + "); nothing of them was "
              + "applied. Fix the cause (a lock held on a table) and run the command again: it continues from "
              + position, e);
        }
        position = batch.appliedTo();
        changes += outcome.applied();
        refused += outcome.rejected().size();
        maybeReport(null);
      }
    }
  }

  /**
   * A stop that came while reconnecting was withdrawn (cutover --back gave up waiting and removed its request): the
   * connection is closed, so open it again, as after a break.
   */
  private boolean reconnectAfterStop(BooleanSupplier stop) throws SQLException {
    try {
      reopened(openSource());
      return true;
    } catch (SQLException | Pg2SpannerException e) {
      closeSource();
      if (!unreachable(e)) {
        throw refused(e);
      }
      return reconnect(e, stop, true);
    }
  }

  /** A new connection is open: continue from the position the source holds, counting as the source does. */
  private void reopened(FallbackPosition.Saved held) {
    reconnects.opened();
    position = held.appliedTo();
    changes = held.changes() - savedChangesBase; // a batch whose reply the cut lost counts as applied
  }

  private void maybeReport(String note) {
    if (System.nanoTime() - lastReport >= ctx.progressInterval().toNanos()) {
      report(note);
    }
  }

  private void report(String note) {
    long now = System.nanoTime();
    double seconds = Math.max(1e-3, (now - lastReport) / 1e9);
    double rate = (changes - reportedChanges) / seconds;
    double lag = Math.max(0, (Instant.now().toEpochMilli() - position.toSqlTimestamp().getTime()) / 1000.0);
    lastReport = now;
    reportedChanges = changes;
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("type", "fallback");
    line.put("at", Instant.now().toString());
    line.put("changes", changes);
    line.put("changesPerSecond", Math.round(rate));
    line.put("lagSeconds", Math.round(lag * 10) / 10.0);
    line.put("position", position.toString());
    line.put("deadLettered", refused);
    line.put("readSeconds", Math.round(readNanos / 1e6) / 1000.0);
    line.put("applySeconds", Math.round(applyNanos / 1e6) / 1000.0);
    if (note != null) {
      line.put("note", note);
    }
    progress.append(line);
    ctx.out().println(String.format(Locale.ROOT, "fallback: %,d changes applied (%,.0f/s), lag %.1f s, position %s"
        + "%s%s", changes, rate, lag, position, refused > 0 ? ", " + refused
        + " dead-lettered" : "", note != null ? " (" + note + ")" : ""));
    ctx.out().flush();
  }

  /** What cutover --back did. */
  public record Result(int exitCode, String message) {}

  /**
   * {@code pg2spanner cutover --back}, for the moment the application's writes to Spanner are stopped: stops a
   * running fallback, catches up, proves the source equal to Spanner at the last commit, moves the source's sequences
   * past every id Spanner handed out, drops the change stream and the position.
   */
  public static Result cutoverBack(Context ctx) throws Exception {
    PrintWriter out = ctx.out();
    FallbackState state = requireState(ctx.runDirectory());
    if (state.phase() == FallbackState.Phase.DONE) {
      return new Result(0, "cutover --back of " + ctx.runDirectory() + " finished already: the source is the "
          + "database again");
    }
    long started = System.nanoTime();
    out.println("== cutover --back: the application's writes to Spanner must be stopped now (from here on a write "
        + "to Spanner is not brought back; cutover --back refuses if it sees one)");
    out.flush();
    try (RunDirectoryLock lock = stopRunningFallback(ctx.runDirectory(), out)) {
      if (state.phase() == FallbackState.Phase.BACK) {
        out.println("== cutover --back: verified earlier; finishing");
        finishBack(ctx, state);
        return new Result(0, "cutover --back done: the source is the database again; point the application at it");
      }
      FallbackRun run = new FallbackRun(ctx, state);
      run.again = "cutover --back";
      Verdict verdict;
      try {
        run.catchUp(SpannerTime.strongTimestamp(ctx.client()), () -> false);
        double caughtUp = seconds(started);
        run.report("caught up");
        Timestamp settled = null;
        for (int attempt = 1; attempt <= ATTEMPTS && settled == null; attempt++) {
          Timestamp before = run.position;
          Timestamp now = SpannerTime.strongTimestamp(ctx.client());
          long readBefore = run.read;
          run.catchUp(now, () -> false);
          long arrived = run.read - readBefore;
          if (arrived == 0) {
            settled = now;
          } else {
            out.println("  " + arrived + " change(s) committed to Spanner after " + before + " during cutover "
                + "--back; trying again (" + attempt + "/" + ATTEMPTS + ")");
            out.flush();
          }
        }
        if (settled == null) {
          return new Result(ExitCode.FALLBACK_NOT_READY.exitCode(), "the application kept writing to Spanner "
              + "during cutover --back, so the source cannot be proven equal to it; every write so far is on the "
              + "source. Stop every writer to Spanner and run cutover --back again (or fallback to keep following)");
        }
        out.println("== cutover --back: verify (every row of every table: the source now against Spanner at "
            + settled + ")");
        out.flush();
        verdict = verify(ctx, settled);
        out.println(String.format(Locale.ROOT, "  caught up after %.1f s", caughtUp));
      } finally {
        run.close();
      }
      if (verdict.differing() > 0) {
        return new Result(ExitCode.VERIFY_MISMATCH.exitCode(), verdict.differing() + " table(s) differ between "
            + "the source and Spanner (see above; a change the source could not hold is in the dead-letter file "
            + ctx.deadLetterFile() + "); nothing was removed. Fix the rows on Spanner (a change brings the whole row "
            + "back), run fallback, then cutover --back again");
      }
      FallbackState back = state.withPhase(FallbackState.Phase.BACK);
      back.write(ctx.runDirectory());
      finishBack(ctx, back);
      double total = seconds(started);
      return new Result(0, String.format(Locale.ROOT, "cutover --back done in %.1f s (%s): the source is verified "
          + "equal to Spanner; point the application at the source. Writes were stopped for at least that long.",
          total, verdict.summary()));
    }
  }

  /** Asks a running fallback to stop (it finishes its window) and takes the run directory. */
  private static RunDirectoryLock stopRunningFallback(Path runDirectory, PrintWriter out) throws Exception {
    Optional<RunDirectoryLock> lock = RunDirectoryLock.tryAcquire(runDirectory, "cutover --back");
    if (lock.isPresent()) {
      return lock.get();
    }
    Optional<RunDirectoryLock.Holder> holder = RunDirectoryLock.holder(runDirectory);
    if (holder.isPresent() && !"fallback".equals(holder.get().command())) {
      throw new Pg2SpannerException(ExitCode.RUN_STATE, "the run directory " + runDirectory + " is in use by "
          + holder.get().describe() + ", so cutover --back did not start; nothing was changed. Wait for it to "
          + "finish, then run cutover --back again");
    }
    out.println("  asking the running fallback to stop...");
    out.flush();
    Files.write(runDirectory.resolve(RunFiles.FALLBACK_STOP), new byte[0]);
    long deadline = System.nanoTime() + STOP_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      lock = RunDirectoryLock.tryAcquire(runDirectory, "cutover --back");
      if (lock.isPresent()) {
        Files.deleteIfExists(runDirectory.resolve(RunFiles.FALLBACK_STOP));
        return lock.get();
      }
      Thread.sleep(200);
    }
    Files.deleteIfExists(runDirectory.resolve(RunFiles.FALLBACK_STOP));
    throw new Pg2SpannerException(ExitCode.RUN_STATE, "the running fallback did not stop within "
        + STOP_WAIT.toMinutes() + " minutes; nothing was changed. Stop it (Ctrl-C), then run cutover --back again");
  }

  private record Verdict(long differing, String summary) {}

  /** Every row of every table: the source as it is now against Spanner at {@code readAt} (verify, reversed roles). */
  private static Verdict verify(Context ctx, Timestamp readAt) throws Exception {
    try (SnapshotSession snapshot = SnapshotSession.open(ctx.source())) {
      List<TableVerification> results = SnapshotVerify.compareAt(ctx.plan(), ctx.plan().tables(), snapshot,
          PiecePlanner.cut(snapshot.coordinator(), ctx.plan(), 1, PIECE_BYTES), ctx.client(), readAt,
          ctx.deadLetterFile(), 4);
      ctx.out().print(Verifier.render(results));
      long differing = results.stream().filter(r -> !r.matches()).count();
      ctx.out().flush();
      long rows = results.stream().mapToLong(TableVerification::sourceRowsRead).sum();
      return new Verdict(differing, String.format(Locale.ROOT, "every row of %d table(s), %,d rows",
          results.size(), rows));
    }
  }

  /** After the verify, each step safe to repeat: sequences, the change stream, the position, the state. */
  private static void finishBack(Context ctx, FallbackState state) throws Exception {
    PrintWriter out = ctx.out();
    try (Connection c = ctx.source().open()) {
      moveSequences(c, ctx.plan(), out);
      FallbackPosition.drop(c);
      out.println("  " + FallbackPosition.TABLE + " dropped from the source");
    }
    if (FallbackStream.exists(ctx.client(), dialect(ctx.plan()))) {
      ctx.admin().updateDatabaseDdl(ctx.target().instance(), ctx.target().database(),
          List.of(FallbackStream.dropStatement()), null).get(DDL_TIMEOUT_MINUTES, TimeUnit.MINUTES);
    }
    out.println("  change stream " + state.stream() + " dropped from Spanner");
    state.withPhase(FallbackState.Phase.DONE).write(ctx.runDirectory());
    out.flush();
  }

  /**
   * Moves each sequence that feeds a column of a planned source table (serial and identity columns: PostgreSQL's
   * {@code pg_get_serial_sequence}) past the largest value now in that column: Spanner handed out ids of its own
   * (bit-reversed, or written by the application) that the sequence would otherwise give again.
   */
  static void moveSequences(Connection c, Plan plan, PrintWriter out) throws SQLException {
    for (TablePlan t : plan.tables()) {
      int dot = t.source().indexOf('.');
      String table = PgNames.qualified(t.source().substring(0, dot), t.source().substring(dot + 1));
      for (String column : t.columns().stream().map(ColumnPlan::source).filter(java.util.Objects::nonNull)
          .distinct().toList()) {
        String sequence;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_get_serial_sequence(?, ?)")) {
          ps.setString(1, table);
          ps.setString(2, column);
          try (java.sql.ResultSet rs = ps.executeQuery()) {
            rs.next();
            sequence = rs.getString(1);
          }
        }
        if (sequence == null) {
          continue;
        }
        Long highest;
        try (PreparedStatement ps = c.prepareStatement("SELECT max(" + PgNames.quote(column) + ")::bigint FROM "
            + table); java.sql.ResultSet rs = ps.executeQuery()) {
          rs.next();
          long v = rs.getLong(1);
          highest = rs.wasNull() ? null : v;
        }
        long last;
        try (PreparedStatement ps = c.prepareStatement("SELECT last_value FROM " + sequence);
            java.sql.ResultSet rs = ps.executeQuery()) {
          rs.next();
          last = rs.getLong(1);
        }
        if (highest != null && highest > last) {
          try (PreparedStatement ps = c.prepareStatement("SELECT setval(?::regclass, ?)")) {
            ps.setString(1, sequence);
            ps.setLong(2, highest);
            ps.executeQuery().close();
          }
          out.println("  sequence " + sequence + " moved from " + last + " to " + highest + " (the largest "
              + t.source() + "." + column + " now)");
        } else {
          out.println("  sequence " + sequence + " at " + last + " is already past every " + t.source() + "."
              + column);
        }
      }
    }
  }

  private static SpannerDialect dialect(Plan plan) {
    return plan.target().spannerDialect();
  }

  private static Timestamp plus(Timestamp t, Duration d) {
    long nanos = t.getNanos() + d.toNanos();
    return Timestamp.ofTimeSecondsAndNanos(t.getSeconds() + nanos / 1_000_000_000L, (int) (nanos % 1_000_000_000L));
  }

  private static Timestamp min(Timestamp a, Timestamp b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static void sleep(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis());
  }
}
