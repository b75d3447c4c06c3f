package dev.pg2spanner.live;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.apply.ChangeApplier;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.live.stream.ReplicationSetup;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerTime;
import dev.pg2spanner.verify.SnapshotVerify;
import dev.pg2spanner.verify.TableVerification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verification while streaming: on its own thread, every {@code interval}, when some table has something to compare,
 * takes a consistent cut — a temporary replication slot's snapshot, whose position P in the change stream is exact,
 * and the Spanner timestamp at which the applier had applied exactly the transactions before P — and compares there
 * the rows each table changed since it was last verified ({@link KeyCheck}), or the whole table when that is due
 * ({@link VerificationLedger.Need#ALL_ROWS}: after a resume, a TRUNCATE, a table without a key). What it finds goes to
 * the {@link VerificationLedger}, which cutover reads: tables verified here leave cutover only their later changes to
 * compare while the application's writes are stopped.
 *
 * <p>It never holds a lock on a source table (so the application's DDL never queues behind it), reads the source in a
 * snapshot of its own, and the target at a timestamp in the past, so it slows neither the stream nor the application
 * beyond the reads themselves. A cut it cannot take (no free replication slot, a long transaction the slot would wait
 * for, a stream far behind) is skipped with a note and tried again later; nothing here stops the stream.
 */
final class ContinuousVerifier implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ContinuousVerifier.class);

  /** The progress log's type for this verifier's lines. */
  static final String TYPE = "verify";
  /** How long the cut's slot may wait for transactions already writing. */
  private static final Duration SLOT_WAIT = Duration.ofSeconds(30);
  /** How long the stream may take to reach a cut (it is behind by the lag). */
  private static final Duration REACH_WAIT = Duration.ofMinutes(5);
  /**
   * Whole-table comparisons go on at one cut for at most this long (a new cut then starts): Spanner keeps old versions
   * for its version retention period (1 hour by default), and the cut's Spanner timestamp must stay within it.
   */
  private static final Duration CUT_BUDGET = Duration.ofMinutes(20);
  /** After a cut that could not be taken, wait this long before the next try. */
  private static final Duration BACKOFF = Duration.ofSeconds(60);

  /** What the verifier needs from its session. */
  record Context(java.util.function.Supplier<Plan> plan, SourceConnector source, DatabaseClient client,
      ChangeApplier applier,
      VerificationLedger ledger, Path deadLetterFile, JsonLinesFile progressLog, Duration interval,
      java.util.function.LongSupplier lagBytes) {}

  /**
   * A stream further behind than this is catching up (a backlog after a resume or a burst): a cut waits for it to
   * arrive anyway, and taking one holds the stream while the cut's slot is made and has the comparisons read the
   * target while the applier writes it. Verification waits until the stream is closer, at most {@link #MAX_DEFER}.
   */
  static final long CATCHING_UP_BYTES = 16L << 20;
  /** The longest verification waits for a stream that stays behind (one that never catches up is verified anyway). */
  static final Duration MAX_DEFER = Duration.ofMinutes(5);

  /**
   * Whether a cut waits: the stream's lag (bytes, -1 before the first progress report) is above
   * {@link #CATCHING_UP_BYTES}, or unknown, and verification has waited less than {@link #MAX_DEFER}.
   */
  static boolean deferForLag(long lagBytes, long deferredNanos) {
    return (lagBytes < 0 || lagBytes > CATCHING_UP_BYTES) && deferredNanos < MAX_DEFER.toNanos();
  }

  private final Context ctx;
  /** Compiled for {@link #compiledFor}; compiled again when a followed schema change revised the plan. */
  private Map<String, TableConverter> converters;
  private Plan compiledFor;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;
  private volatile SnapshotSession current;
  private volatile String pausedBecause;
  /** When verification began to wait for a stream catching up (System.nanoTime), or 0. */
  private long deferringSince;

  private ContinuousVerifier(Context ctx) {
    this.ctx = ctx;
    this.compiledFor = ctx.plan().get();
    this.converters = TableConverter.compileAll(compiledFor);
    this.thread = new Thread(this::loop, "pg2spanner-verify");
    thread.setDaemon(true);
  }

  /** A verifier that is not started: cutover compares with it at its final cut ({@link #compareAt}). */
  static ContinuousVerifier forCutover(Context ctx) {
    return new ContinuousVerifier(ctx);
  }

  /** Starts verifying in the background. */
  static ContinuousVerifier start(Context ctx) {
    ContinuousVerifier verifier = new ContinuousVerifier(ctx);
    verifier.thread.start();
    return verifier;
  }

  /** Why verification is not advancing right now (a cut could not be taken), or null. */
  String pausedBecause() {
    return pausedBecause;
  }

  private void loop() {
    long next = System.nanoTime() + ctx.interval().toNanos();
    while (!stop.get()) {
      try {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(Math.min(wait / 1_000_000 + 1, 1_000));
          continue;
        }
        next = System.nanoTime() + ctx.interval().toNanos();
        if (somethingToCompare()) {
          long lag = ctx.lagBytes().getAsLong();
          if (deferringSince == 0) {
            deferringSince = System.nanoTime();
          }
          if (deferForLag(lag, System.nanoTime() - deferringSince)) {
            pausedBecause = lag < 0 ? "waiting for the stream's first progress report"
                : "the stream is catching up (" + lag / (1 << 20) + " MB behind); verification waits for it";
            next = System.nanoTime() + Math.min(ctx.interval().toNanos(), 1_000_000_000L);
            continue;
          }
          deferringSince = 0;
          if (!verifyAtACut()) {
            next = System.nanoTime() + Math.max(BACKOFF.toNanos(), ctx.interval().toNanos());
          }
        } else {
          deferringSince = 0;
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | Error e) {
        if (stop.get()) {
          return;
        }
        LOG.warn("Continuous verification failed ({}); it tries again later", e.toString());
        LOG.debug("Continuous verification failure", e);
        pausedBecause = String.valueOf(e.getMessage());
        next = System.nanoTime() + BACKOFF.toNanos();
      }
    }
  }

  private boolean somethingToCompare() {
    return ctx.plan().get().tables().stream()
        .anyMatch(t -> ctx.ledger().need(t.target()) != VerificationLedger.Need.NOTHING);
  }

  /**
   * Takes one cut and compares there what is due. False when the cut could not be taken (tried again after a pause).
   */
  private boolean verifyAtACut() throws InterruptedException {
    long started = System.nanoTime();
    ReplicationSetup.Created cut;
    // The stream waits at its next transaction while the cut's slot is made (briefly), so it cannot pass the cut's
    // position before that position is known; requestCut (or any failure here) lets it go on.
    ctx.applier().holdForCut();
    try {
      cut = ReplicationSetup.temporaryCut(ctx.source(), SLOT_WAIT);
    } catch (Pg2SpannerException e) {
      ctx.applier().releaseHold();
      pause("no consistent cut could be taken: " + e.getMessage());
      return false;
    } catch (RuntimeException e) {
      ctx.applier().releaseHold();
      throw e;
    }
    try (SnapshotSession snapshot = cut.snapshot()) {
      current = snapshot;
      long lsn = Lsn.parse(cut.consistentPoint());
      Timestamp readAt = reach(lsn);
      if (readAt == null) {
        return false;
      }
      pausedBecause = null;
      List<Map<String, Object>> compared = compareAt(snapshot, lsn, readAt, started, false);
      report(cut.consistentPoint(), compared, started);
      return true;
    } finally {
      current = null;
    }
  }

  /** Asks the applier to mark the cut; the Spanner timestamp of it, or null when the stream did not reach it. */
  private Timestamp reach(long lsn) throws InterruptedException {
    CompletableFuture<Timestamp> done = new CompletableFuture<>();
    ChangeApplier.CutRequest request = new ChangeApplier.CutRequest(lsn,
        () -> SpannerTime.strongTimestamp(ctx.client()), done);
    ctx.applier().requestCut(request);
    try {
      return done.get(REACH_WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      pause("the stream did not reach the cut at " + Lsn.text(lsn) + " within "
          + REACH_WAIT.toMinutes() + " minutes (it is behind)");
      return null;
    } catch (ExecutionException e) {
      pause("the cut at " + Lsn.text(lsn) + " failed: " + e.getCause().getMessage());
      return null;
    } finally {
      if (!done.isDone()) {
        ctx.applier().cancelCut(request);
      }
    }
  }

  private void pause(String why) {
    pausedBecause = why;
    LOG.info("Continuous verification: {}; trying again later", why);
  }

  /**
   * Compares what each table needs at the cut: its changed rows, or all of it. With {@code everything}, every table
   * that needs a comparison gets one (cutover); otherwise whole-table comparisons stop once the cut is
   * {@link #CUT_BUDGET} old (the next cut takes the rest).
   *
   * @return one map per table compared (for the progress log)
   */
  List<Map<String, Object>> compareAt(SnapshotSession snapshot, long lsn, Timestamp readAt, long cutStarted,
      boolean everything) {
    Plan plan = ctx.plan().get();
    if (plan != compiledFor) {
      converters = TableConverter.compileAll(plan);
      compiledFor = plan;
    }
    Set<String> deadLettered = Files.exists(ctx.deadLetterFile())
        ? DeadLetterFile.listedRows(ctx.deadLetterFile()) : Set.of();
    List<Map<String, Object>> compared = new ArrayList<>();
    List<TablePlan> whole = new ArrayList<>();
    try (Connection reader = snapshot.openReader()) {
      for (TablePlan table : plan.tables()) {
        if (!everything && stop.get()) {
          break;
        }
        VerificationLedger.Need need = ctx.ledger().need(table.target());
        if (need == VerificationLedger.Need.ALL_ROWS) {
          whole.add(table);
        } else if (need == VerificationLedger.Need.CHANGED_ROWS) {
          List<List<String>> rows = ctx.ledger().changedRows(table.target());
          long t0 = System.nanoTime();
          try {
            KeyCheck.Result r = new KeyCheck(table, converters.get(table.target()), deadLettered).run(reader,
                ctx.client(), readAt, rows);
            ctx.ledger().verifiedRows(table.target(), lsn, r.differing(), r.described());
            compared.add(entry(table, "changed rows", r.compared(), r.described(), t0));
          } catch (KeyCheck.NotByKey e) {
            ctx.ledger().compareWhole(table.target(), e.getMessage());
            whole.add(table);
          }
        }
      }
    } catch (java.sql.SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "reading changed rows at the "
          + "verification cut failed (" + e.getMessage() + ")", e);
    }
    for (TablePlan table : whole) {
      if (!everything && (stop.get() || System.nanoTime() - cutStarted > CUT_BUDGET.toNanos())) {
        break;
      }
      long t0 = System.nanoTime();
      try {
        List<Piece> pieces = PiecePlanner.wholeTables(snapshot.coordinator(), List.of(table));
        TableVerification v = SnapshotVerify.compareAt(plan, List.of(table), snapshot, pieces, ctx.client(),
            readAt, Files.exists(ctx.deadLetterFile()) ? ctx.deadLetterFile() : null, 1).get(0);
        ctx.ledger().verifiedWhole(table.target(), lsn, v.matches() ? List.of() : v.differingKeys());
        compared.add(entry(table, "all rows", v.sourceRowsRead(), v.matches() ? List.of() : v.differingKeys(), t0));
      } catch (Exception e) {
        if (everything) {
          throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
        ctx.ledger().failed(table.target(), "could not be compared at " + Lsn.text(lsn)
            + ": " + e.getMessage());
        LOG.info("Verification of {} at a cut failed: {}", table.target(), e.toString());
      }
    }
    return compared;
  }

  private static Map<String, Object> entry(TablePlan table, String what, long rows, List<String> differences,
      long since) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("table", table.target());
    m.put("compared", what);
    m.put("rows", rows);
    m.put("seconds", Math.round((System.nanoTime() - since) / 1e7) / 100.0);
    m.put("differences", differences);
    return m;
  }

  private void report(String cutLsn, List<Map<String, Object>> compared, long started) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("type", TYPE);
    line.put("at", Instant.now().toString());
    line.put("cut", cutLsn);
    line.put("seconds", Math.round((System.nanoTime() - started) / 1e7) / 100.0);
    line.put("compared", compared);
    line.put("summary", ctx.ledger().summary());
    line.put("tables", ctx.ledger().progress());
    if (ctx.progressLog() != null) {
      try {
        ctx.progressLog().append(line);
      } catch (Pg2SpannerException e) {
        LOG.warn("{}", e.getMessage());
      }
    }
    if (ctx.ledger().anyPersistentDifference()) {
      LOG.warn("Continuous verification: a difference persisted across two cuts; see pg2spanner status");
    }
  }

  /** Stops verifying (a comparison in progress is abandoned: its source reads are cut off). */
  @Override
  public void close() {
    stop.set(true);
    thread.interrupt();
    try {
      thread.join(5_000);
      SnapshotSession s = current;
      if (thread.isAlive() && s != null) {
        s.close(); // its reads fail, and the thread ends
        thread.join(10_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
