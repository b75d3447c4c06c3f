package dev.pg2spanner.load;

import com.google.cloud.spanner.DatabaseClient;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.load.write.BatchingSink;
import dev.pg2spanner.load.write.BoundedWrite;
import dev.pg2spanner.load.write.ProgressTracker;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.load.write.Stopped;
import dev.pg2spanner.load.write.WriteCommitter;
import dev.pg2spanner.load.write.WriteTarget;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.SourceErrors;
import io.grpc.Context;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Phaser;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads pieces into Spanner: {@code workers} threads, each with its own {@link PieceSource} and batch, take pieces
 * from a schedule in non-key order (round-robin across tables, shuffled within a table; level by level when
 * parents must come first), commit blind insert-or-update batches with bounded retries, bisect batches Spanner
 * refuses so that only the refused rows are dead-lettered, and checkpoint a piece only when all its rows are
 * committed. Memory is bounded: one batch per worker, no queues.
 *
 * <p>The run directory holds the checkpoint ({@link Checkpoint}) and {@value ProgressReporter#LOG_FILE}. The first
 * run saves the cut of pieces there; a later run (resume) must pass the same pieces
 * ({@link Checkpoint#savedPieces()}) and loads only those not done.
 */
public final class LoadEngine {

  private static final Logger LOG = LoggerFactory.getLogger(LoadEngine.class);

  private final WriteTarget target;
  private final RetryPolicy retry;
  private final Plan plan;
  private final LoadOptions options;
  private final PrintWriter out;
  private final SourceErrors.Blockers blockers;
  private final dev.pg2spanner.metrics.RunMetrics metrics;

  /**
   * @param client the target database; every commit is a blind {@code writeAtLeastOnce}, bounded by
   *     {@link BoundedWrite}
   * @param plan the plan the pieces come from (index counts for the mutation limit, table order for reports)
   * @param out where progress and the summary are printed
   */
  public LoadEngine(DatabaseClient client, Plan plan, LoadOptions options, PrintWriter out) {
    this(client, plan, options, out, SourceErrors.NONE);
  }

  /**
   * @param blockers how a piece that another session's lock stopped names that session ({@link
   *     SourceErrors#lookingUp})
   */
  public LoadEngine(DatabaseClient client, Plan plan, LoadOptions options, PrintWriter out,
      SourceErrors.Blockers blockers) {
    this(client, plan, options, out, blockers, new dev.pg2spanner.metrics.RunMetrics());
  }

  /** @param metrics counts rows, bytes, rejections, pieces and commits for a monitoring system too */
  public LoadEngine(DatabaseClient client, Plan plan, LoadOptions options, PrintWriter out,
      SourceErrors.Blockers blockers, dev.pg2spanner.metrics.RunMetrics metrics) {
    this(new BoundedWrite(client), RetryPolicy.DEFAULT, plan, options, out, blockers, metrics);
  }

  LoadEngine(WriteTarget target, RetryPolicy retry, Plan plan, LoadOptions options, PrintWriter out) {
    this(target, retry, plan, options, out, SourceErrors.NONE);
  }

  LoadEngine(WriteTarget target, RetryPolicy retry, Plan plan, LoadOptions options, PrintWriter out,
      SourceErrors.Blockers blockers) {
    this(target, retry, plan, options, out, blockers, new dev.pg2spanner.metrics.RunMetrics());
  }

  LoadEngine(WriteTarget target, RetryPolicy retry, Plan plan, LoadOptions options, PrintWriter out,
      SourceErrors.Blockers blockers, dev.pg2spanner.metrics.RunMetrics metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.blockers = Objects.requireNonNull(blockers, "blockers");
    this.target = Objects.requireNonNull(target, "target");
    this.retry = Objects.requireNonNull(retry, "retry");
    this.plan = Objects.requireNonNull(plan, "plan");
    this.options = Objects.requireNonNull(options, "options");
    this.out = Objects.requireNonNull(out, "out");
  }

  /**
   * Loads every piece not yet checkpointed.
   *
   * @param pieces the whole cut (done pieces included); saved in the run directory at the first run, and must
   *     equal the saved cut on a later run
   * @param sources called once per worker thread, on that thread; each source is closed when its worker ends
   * @throws Pg2SpannerException DATA_REJECTED naming the dead-letter file when more than {@code maxBadRows} rows
   *     were rejected; PLAN_INVALID when a piece names a table the plan lacks or the run directory holds another
   *     cut; TARGET_* when Spanner keeps failing; LOCAL_IO for the checkpoint or dead-letter file; whatever the
   *     source throws (checked exceptions wrapped as SOURCE_CONNECTION)
   * @throws InterruptedException when the calling thread is interrupted (workers are stopped first)
   */
  public LoadResult run(List<Piece> pieces, Supplier<PieceSource> sources) throws InterruptedException {
    Objects.requireNonNull(sources, "sources");
    Map<String, Integer> indexes = indexCounts(pieces);
    try (Checkpoint checkpoint = Checkpoint.open(options.runDirectory());
        DeadLetterFile deadLetters = DeadLetterFile.open(options.deadLetterFile())) {
      checkpoint.savePieces(pieces);
      Set<String> done = checkpoint.done();
      List<Piece> pending = pieces.stream().filter(p -> !done.contains(p.id())).toList();
      ProgressTracker tracker = new ProgressTracker(pending, plan.tables().stream().map(TablePlan::target).toList(),
          metrics);
      WriteCommitter committer = new WriteCommitter(target, retry, metrics.commits("load"));
      if (pending.isEmpty()) {
        out.println("Nothing to load: all " + pieces.size() + " pieces are already done (run directory "
            + options.runDirectory() + ").");
        out.flush();
        return result(tracker, committer, deadLetters, 0);
      }
      Run run = new Run(ScheduleOrder.stages(pending, options.parentsFirst()), indexes, checkpoint, deadLetters,
          tracker, committer, sources);
      try (ProgressReporter reporter = new ProgressReporter(tracker, out, options.runDirectory(),
          options.interactive(), options.progressInterval())) {
        reporter.start();
        InterruptedException interrupted = null;
        try {
          run.execute(Math.min(options.workers(), pending.size()));
        } catch (InterruptedException e) {
          interrupted = e;
        }
        long elapsed = System.nanoTime() - tracker.startNanos;
        Throwable failure = run.failure.get();
        boolean tooManyRejected = options.badRowLimit().exceededBy(deadLetters.listed());
        String status = interrupted != null ? "interrupted" : failure != null ? "failed"
            : tooManyRejected ? "rejected" : "completed";
        reporter.finish(summaryLine(status, tracker, committer, deadLetters, elapsed),
            summaryJson(status, tracker, committer, deadLetters, elapsed, failure));
        if (interrupted != null) {
          throw interrupted;
        }
        if (failure != null) {
          throw rethrow(failure);
        }
        if (tooManyRejected) {
          throw options.badRowLimit().failure(deadLetters.listed(), "rows", "; see " + deadLetters.path());
        }
        return result(tracker, committer, deadLetters, elapsed);
      }
    }
  }

  /** The number of secondary indexes of every table the pieces name (for the mutation count). */
  private Map<String, Integer> indexCounts(List<Piece> pieces) {
    Map<String, Integer> counts = new HashMap<>();
    Set<String> ids = new HashSet<>();
    for (Piece piece : pieces) {
      if (!ids.add(piece.id())) {
        throw new IllegalArgumentException("two pieces share the id " + piece.id());
      }
      if (!counts.containsKey(piece.table())) {
        TablePlan table = plan.tableByTarget(piece.table()).orElseThrow(() -> new Pg2SpannerException(
            ExitCode.PLAN_INVALID, "Piece " + piece.id() + " is for table " + piece.table() + ", which the plan "
                + "does not have; cut the pieces again from this plan (start with an empty run directory)."));
        counts.put(piece.table(), table.indexes().size());
      }
    }
    return counts;
  }

  /** The state of one run shared by its workers. */
  private final class Run {
    final List<List<Piece>> stages;
    final List<AtomicInteger> cursors = new ArrayList<>();
    final Map<String, Integer> indexes;
    final Checkpoint checkpoint;
    final DeadLetterFile deadLetters;
    final ProgressTracker tracker;
    final WriteCommitter committer;
    final Supplier<PieceSource> sources;
    final AtomicBoolean stopping = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    /**
     * The gRPC context every worker runs in. Cancelled when a worker fails the run, so the other workers' commits in
     * flight ({@link BoundedWrite} derives each attempt's context from it) and their backoffs end at once instead of
     * at their own deadlines: without this, a lost target stopped the run only about a minute after the first
     * worker had spent its retries.
     */
    final Context.CancellableContext workerContext = Context.current().withCancellation();

    Run(List<List<Piece>> stages, Map<String, Integer> indexes, Checkpoint checkpoint, DeadLetterFile deadLetters,
        ProgressTracker tracker, WriteCommitter committer, Supplier<PieceSource> sources) {
      this.stages = stages;
      stages.forEach(s -> cursors.add(new AtomicInteger()));
      this.indexes = indexes;
      this.checkpoint = checkpoint;
      this.deadLetters = deadLetters;
      this.tracker = tracker;
      this.committer = committer;
      this.sources = sources;
    }

    void execute(int workers) throws InterruptedException {
      // A stage ends when every worker has arrived; a worker that ends early deregisters, so none waits forever.
      Phaser stageBarrier = new Phaser(workers);
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        Thread thread = new Thread(workerContext.wrap(() -> work(stageBarrier)), "pg2spanner-load-" + (i + 1));
        threads.add(thread);
        thread.start();
      }
      try {
        for (Thread thread : threads) {
          thread.join();
        }
      } catch (InterruptedException e) {
        stopping.set(true);
        workerContext.cancel(e);
        threads.forEach(Thread::interrupt);
        for (Thread thread : threads) {
          joinUninterruptibly(thread);
        }
        throw e;
      } finally {
        workerContext.cancel(null); // releases the context's listeners; every worker has ended
      }
    }

    private void work(Phaser stageBarrier) {
      PieceSource source = null;
      try {
        source = Objects.requireNonNull(sources.get(), "the piece source supplier returned null");
        BatchingSink sink = new BatchingSink(committer, this::rejected, stopping::get, tracker);
        for (int s = 0; s < stages.size() && !stopping.get(); s++) {
          List<Piece> stage = stages.get(s);
          AtomicInteger cursor = cursors.get(s);
          for (int i = cursor.getAndIncrement(); i < stage.size() && !stopping.get(); i = cursor.getAndIncrement()) {
            loadPiece(source, sink, stage.get(i));
          }
          long waitStart = System.nanoTime();
          stageBarrier.arriveAndAwaitAdvance();
          tracker.idleNanos.add(System.nanoTime() - waitStart);
        }
      } catch (Stopped e) {
        // The run is stopping; the piece in hand is not marked done and will be loaded again on resume.
      } catch (Throwable t) {
        fail(t);
      } finally {
        stageBarrier.arriveAndDeregister();
        if (source != null) {
          try {
            source.close();
          } catch (Exception e) {
            LOG.warn("Closing a piece source failed: {}", e.toString());
          }
        }
      }
    }

    private void loadPiece(PieceSource source, BatchingSink sink, Piece piece) throws Exception {
      long start = System.nanoTime();
      long sinkBefore = sink.sinkNanos();
      sink.begin(piece.table(), indexes.get(piece.table()));
      long read;
      try {
        read = source.read(piece, sink);
      } catch (Stopped e) {
        throw e;
      } catch (Exception e) {
        if (stopping.get()) {
          throw new Stopped(); // the source wrapped our Stopped, or failed because we interrupted it
        }
        if (e instanceof RuntimeException) {
          throw e;
        }
        if (e instanceof java.sql.SQLException q) {
          // Permission denied (or row-level security that would have filtered the rows: row_security = off),
          // another session's lock, a cancelled statement, a lost connection: each its own documented failure.
          throw SourceErrors.reading(q, piece.relationSchema() + "." + piece.relationName(), " (piece " + piece.id()
              + ")", "migrate",
              WayOn.resume("rerun the same migrate command with --resume (finished pieces are kept)"),
              SnapshotSession.LOCK_TIMEOUT,
              blockers);
        }
        throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
            "Reading piece " + piece.id() + " of "
            + piece.source() + " failed (" + e.getMessage() + "); check the source database, then rerun with "
            + "--resume.", e);
      } finally {
        long sinkTime = sink.sinkNanos() - sinkBefore;
        tracker.readNanos.add(System.nanoTime() - start - sinkTime);
        tracker.sinkNanos.add(sinkTime);
      }
      long sinkBeforeFinish = sink.sinkNanos();
      long rows = sink.finish();
      tracker.sinkNanos.add(sink.sinkNanos() - sinkBeforeFinish);
      // Only now is every row of the piece committed or dead-lettered: a crash before this line redoes the piece.
      checkpoint.markDone(piece, rows);
      tracker.pieceDone(piece.table(), System.nanoTime() - start);
      LOG.debug("Piece {} done: {} rows read, {} committed", piece.id(), read, rows);
    }

    private void rejected(RejectedRow row) {
      deadLetters.write(row);
      tracker.rejected(row.table());
      if (options.badRowLimit().exceededBy(deadLetters.listed())) {
        // Workers finish the commit in hand and take no new piece; run() then reports DATA_REJECTED.
        stopping.set(true);
      }
    }

    private void fail(Throwable t) {
      if (failure.compareAndSet(null, t)) {
        LOG.debug("Load failed", t);
      }
      stopping.set(true);
      // Stop the others now: their commits in flight and their backoffs are cancelled, not waited for.
      workerContext.cancel(t);
    }
  }

  private static void joinUninterruptibly(Thread thread) {
    boolean interrupted = false;
    while (true) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static RuntimeException rethrow(Throwable failure) {
    if (failure instanceof RuntimeException runtime) {
      return runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(failure);
  }

  private LoadResult result(ProgressTracker tracker, WriteCommitter committer, DeadLetterFile deadLetters,
      long elapsedNanos) {
    List<TableLoadStats> tables = new ArrayList<>();
    for (ProgressTracker.Table t : tracker.tables()) {
      tables.add(new TableLoadStats(t.name, t.rows.sum(), t.bytes.sum(), deadLetters.listed(t.name),
          Duration.ofNanos(t.busyNanos.sum())));
    }
    return new LoadResult(tables, tracker.totalRows(), deadLetters.listed(), committer.commits(),
        Duration.ofNanos(elapsedNanos), Duration.ofNanos(tracker.readNanos.sum()),
        Duration.ofNanos(committer.writeNanos()));
  }

  /** Batching time: time in the sink that was neither a Spanner call nor a backoff sleep. */
  private static long batchNanos(ProgressTracker tracker, WriteCommitter committer) {
    return Math.max(0, tracker.sinkNanos.sum() - committer.writeNanos() - committer.backoffNanos());
  }

  private String summaryLine(String status, ProgressTracker tracker, WriteCommitter committer,
      DeadLetterFile deadLetters, long elapsedNanos) {
    double seconds = ProgressReporter.seconds(elapsedNanos);
    long rows = tracker.totalRows();
    String verb = status.equals("completed") ? "Loaded" : "Stopped (" + status + ") after loading";
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
        "%s %,d rows (%s) into %d tables in %.1f s (%,d rows/s), %,d commits", verb, rows,
        ProgressReporter.megabytes(tracker.totalBytes()), tracker.tables().size(), seconds,
        Math.round(rows / Math.max(1e-3, seconds)), committer.commits()));
    if (deadLetters.listed() > 0) {
      b.append(String.format(Locale.ROOT, ", %,d rows rejected in the whole run (see %s)", deadLetters.listed(),
          deadLetters.path()));
    }
    b.append(String.format(Locale.ROOT, ". Worker time: read %.1f s, batch %.1f s, write %.1f s, wait %.1f s.",
        ProgressReporter.seconds(tracker.readNanos.sum()), ProgressReporter.seconds(batchNanos(tracker, committer)),
        ProgressReporter.seconds(committer.writeNanos()),
        ProgressReporter.seconds(committer.backoffNanos() + tracker.idleNanos.sum())));
    return b.toString();
  }

  private Map<String, Object> summaryJson(String status, ProgressTracker tracker, WriteCommitter committer,
      DeadLetterFile deadLetters, long elapsedNanos, Throwable failure) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", status);
    m.put("elapsedSeconds", ProgressReporter.seconds(elapsedNanos));
    m.put("rowsWritten", tracker.totalRows());
    m.put("bytesWritten", tracker.totalBytes());
    m.put("rowsRejected", deadLetters.listed());
    m.put("commits", committer.commits());
    m.put("workers", options.workers());
    m.put("readSeconds", ProgressReporter.seconds(tracker.readNanos.sum()));
    m.put("batchSeconds", ProgressReporter.seconds(batchNanos(tracker, committer)));
    m.put("writeSeconds", ProgressReporter.seconds(committer.writeNanos()));
    m.put("waitSeconds", ProgressReporter.seconds(committer.backoffNanos() + tracker.idleNanos.sum()));
    m.put("deadLetterFile", deadLetters.path().toString());
    if (failure != null) {
      m.put("error", String.valueOf(failure.getMessage()));
    }
    return m;
  }
}
