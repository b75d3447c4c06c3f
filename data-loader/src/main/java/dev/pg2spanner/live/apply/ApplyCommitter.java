package dev.pg2spanner.live.apply;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.load.write.RetryingWrite;
import dev.pg2spanner.load.write.WriteTarget;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the applier's batches ({@link ChangeApplier} builds them: whole source transactions, and the position row
 * when the batch ends one) on a thread of its own, one at a time and in order, so the stream decodes and converts the
 * next batch while the last is being committed (on the emulator the two took turns: the applier waited on most
 * commits). Each commit is retried within {@link #COMMIT_BOUND} overall; a batch whose content Spanner refuses
 * is applied again one change at a time, each refused change reported, then the position alone.
 *
 * <p>The stream's thread calls every method; {@link Outcomes} is called on the committer's thread.
 */
final class ApplyCommitter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ApplyCommitter.class);

  /**
   * The longest one apply commit may take, all its attempts together: past it the stream stops with a clear error
   * (resume continues) rather than wait on a target that does not answer.
   */
  static final Duration COMMIT_BOUND = Duration.ofMinutes(3);

  /** One mutation waiting for the next commit, with what names it in a dead-letter line. */
  record Pending(Mutation mutation, String table, String key, Long transactionLsn) {}

  /** What a commit did, told to the applier on the committer's thread. */
  interface Outcomes {
    /** Spanner refused this change's content; {@code reason} says how. */
    void refused(Pending change, String reason);

    /** The commit that recorded {@code recorded} succeeded: every source transaction up to it is in Spanner. */
    void committed(LivePosition.Applied recorded);

    /** After each commit: throws to stop the stream (the bad-row limit). */
    void check();
  }

  private final RetryingWrite write;
  private final LivePosition position;
  private final ApplyCounters counters;
  /** The commit LSN of a transaction whose first part an earlier run applied, or null. */
  private final Long partiallyApplied;
  private final Outcomes outcomes;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "pg2spanner-apply-commit");
    t.setDaemon(true);
    return t;
  });
  /** The commit in flight, or null. */
  private Future<?> inFlight;
  /** The tables the commit in flight writes. */
  private Set<String> inFlightTables = Set.of();

  ApplyCommitter(WriteTarget target, RetryPolicy retry, LivePosition position, ApplyCounters counters,
      Long partiallyApplied, Outcomes outcomes) {
    this.write = new RetryingWrite(target, retry, () -> counters.meters, COMMIT_BOUND);
    this.position = position;
    this.counters = counters;
    this.partiallyApplied = partiallyApplied;
    this.outcomes = outcomes;
  }

  /**
   * Starts committing {@code mutations} (the batch's, then the position row when {@code position} is not null); the
   * caller has waited for the commit before ({@link #await}).
   *
   * @param recorded the completed transaction the position records, or null (a part of a transaction only)
   * @param tables the tables the batch writes
   */
  void submit(List<Pending> batch, List<Mutation> mutations, LivePosition.Applied position,
      LivePosition.Applied recorded, Set<String> tables) {
    inFlightTables = tables;
    inFlight = thread.submit(() -> commit(batch, mutations, position, recorded));
  }

  /** No commit is in flight, or the one in flight is done (its outcome is taken by the next {@link #await}). */
  boolean free() {
    Future<?> f = inFlight;
    return f == null || f.isDone();
  }

  /** The commit in flight (or not yet awaited) writes {@code table}. */
  boolean writes(String table) {
    return inFlightTables.contains(table);
  }

  /** Waits for the commit in flight; its failure is thrown here, on the caller's thread. */
  void await() {
    Future<?> f = inFlight;
    if (f == null) {
      return;
    }
    try {
      f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
          "interrupted while committing streamed changes; "
          + "rerun migrate --live --resume", e);
    } finally {
      inFlight = null;
      inFlightTables = Set.of();
    }
  }

  /** Stops the committer's thread (after the last {@link #await}, or when the stream fails). */
  @Override
  public void close() {
    thread.shutdownNow();
  }

  /** On the committer's thread: one batch, with its position; refused content is reported change by change. */
  private void commit(List<Pending> batch, List<Mutation> mutations, LivePosition.Applied position,
      LivePosition.Applied recorded) {
    SpannerException refused = write(mutations);
    if (refused != null) {
      LOG.debug("A commit of {} mutations was refused ({}); applying them one by one", mutations.size(),
          RetryPolicy.describe(refused));
      for (Pending p : batch) {
        SpannerException one = write(List.of(p.mutation()));
        // A replayed transaction's first part was applied already: a row it deleted or moved is not found again.
        boolean ownEffect = partiallyApplied != null && partiallyApplied.equals(p.transactionLsn())
            && one != null && one.getErrorCode() == com.google.cloud.spanner.ErrorCode.NOT_FOUND;
        if (one != null && !ownEffect) {
          outcomes.refused(p, "Spanner refused the change: " + RetryPolicy.describe(one));
        }
      }
      if (position != null && write(List.of(this.position.mutation(position))) != null) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
            "Spanner refused to record the applied position "
            + "in " + LivePosition.TABLE + "; check the target, then rerun migrate --live --resume");
      }
    }
    if (recorded != null) {
      outcomes.committed(recorded);
    }
    outcomes.check();
  }

  /**
   * One commit with retries (the load's loop), within {@link #COMMIT_BOUND} overall; null when committed, the
   * exception when Spanner refused the content.
   */
  private SpannerException write(List<Mutation> mutations) {
    SpannerException refused = write.write(mutations, mutations.size() + " streamed mutation(s)", FAILURES,
        () -> false);
    if (refused == null) {
      counters.commits.increment();
    }
    return refused;
  }

  /** The way on is always the same: the slot keeps every change whose position was not committed. */
  private static final RetryingWrite.Failures FAILURES = new RetryingWrite.Failures() {
    @Override
    public Pg2SpannerException refused(SpannerException e, boolean schemaMismatch) {
      if (schemaMismatch) {
        return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.RESUME, "Spanner refused the streamed "
            + "changes (" + RetryPolicy.describe(e) + "): the target's tables no longer match the plan. Check the "
            + "target database (a table or column dropped or renamed there), then rerun migrate --live --resume (the "
            + "slot keeps every change not yet applied)", e);
      }
      return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "Spanner refused the streamed "
          + "changes (" + RetryPolicy.describe(e) + "); check the target (its permissions and that it is the plan's "
          + "database), then rerun migrate --live --resume (the slot keeps every change not yet applied)", e);
    }

    @Override
    public Pg2SpannerException exhausted(SpannerException last, int attempts, long seconds) {
      return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "Spanner did not accept the "
          + "streamed changes after " + attempts + " attempt(s) over " + seconds + " s (the bound is "
          + COMMIT_BOUND.toMinutes() + " minutes; last error: " + RetryPolicy.describe(last) + "); the target is "
          + "down or overloaded. Check it, then rerun migrate --live --resume (the slot keeps every change not yet "
          + "applied)", last);
    }

    @Override
    public RuntimeException interrupted(InterruptedException e) {
      return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "interrupted while committing "
          + "streamed changes; rerun migrate --live --resume", e);
    }
  };
}
