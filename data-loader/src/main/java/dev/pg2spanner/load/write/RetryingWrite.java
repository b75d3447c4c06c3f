package dev.pg2spanner.load.write;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.metrics.RunMetrics;
import io.grpc.Context;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One commit, retried while Spanner's failure is transient: the loop that the bulk load's {@link WriteCommitter} and
 * the live applier's committer share. It returns Spanner's refusal when the content is refused (the caller bisects
 * the batch, or applies it change by change), and throws what the caller's {@link Failures} make of a failure for
 * good, so each path keeps its own words and way on. Thread-safe (its only state is counters).
 */
public final class RetryingWrite {

  private static final Logger LOG = LoggerFactory.getLogger(RetryingWrite.class);

  /** What the caller says when a commit fails for good. */
  public interface Failures {
    /**
     * Spanner refused the commit for a reason no retry mends; {@code schemaMismatch} when a table or column the
     * commit names is missing or of another type.
     */
    Pg2SpannerException refused(SpannerException e, boolean schemaMismatch);

    /** The retries ran out: {@code attempts} made over {@code seconds}, {@code last} the last error. */
    Pg2SpannerException exhausted(SpannerException last, int attempts, long seconds);

    /**
     * The committing thread was interrupted in a backoff by someone other than the run's gRPC context (its interrupt
     * is kept for them); by default the work is abandoned as {@link Stopped}.
     */
    default RuntimeException interrupted(InterruptedException e) {
      return new Stopped();
    }
  }

  private final WriteTarget target;
  private final RetryPolicy retry;
  private final java.util.function.Supplier<RunMetrics.Commits> meters;
  private final long boundNanos;
  private final LongAdder commits = new LongAdder();
  private final LongAdder writeNanos = new LongAdder();
  private final LongAdder backoffNanos = new LongAdder();

  /**
   * @param meters the meters a commit counts into, asked at each commit (a live run binds its meters to counters that
   *     outlive one session)
   * @param bound the longest one commit may take, all its attempts together (null: only the policy's attempts
   *     bound it); past it no further attempt is made and {@link Failures#exhausted} is thrown
   */
  public RetryingWrite(WriteTarget target, RetryPolicy retry, java.util.function.Supplier<RunMetrics.Commits> meters,
      Duration bound) {
    this.target = target;
    this.retry = retry;
    this.meters = meters;
    this.boundNanos = bound == null ? Long.MAX_VALUE : bound.toNanos();
  }

  /**
   * Commits {@code mutations}, retrying transient failures with the policy's backoff.
   *
   * @param what names the commit in the debug log ("table Orders", "12 streamed mutations")
   * @param stopping checked after every failed attempt and every backoff; when true, throws {@link Stopped} (a
   *     commit the run cancelled may or may not have happened: the caller's work is not marked done)
   * @return null when committed; Spanner's refusal when it refused the content (a value or a constraint)
   */
  public SpannerException write(List<Mutation> mutations, String what, Failures failures,
      BooleanSupplier stopping) {
    long firstAttempt = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      long start = System.nanoTime();
      try {
        target.write(mutations);
        long took = System.nanoTime() - start;
        writeNanos.add(took);
        commits.increment();
        meters.get().committed(took);
        return null;
      } catch (SpannerException e) {
        writeNanos.add(System.nanoTime() - start);
        if (stopping.getAsBoolean()) {
          // Another worker failed the run and cancelled this commit (or it failed as the run stopped).
          throw new Stopped();
        }
        switch (RetryPolicy.classify(e)) {
          case REJECT_ROWS:
            return e;
          case FAIL:
            throw failures.refused(e, RetryPolicy.isSchemaMismatch(e));
          case RETRY:
          default:
            long elapsed = System.nanoTime() - firstAttempt;
            if (attempt >= retry.maxAttempts() || elapsed >= boundNanos) {
              throw failures.exhausted(e, attempt, elapsed / 1_000_000_000L);
            }
            meters.get().retried();
            long wait = Math.min(retry.backoffMillis(attempt, e.getRetryDelayInMillis()),
                Math.max(0, (boundNanos - elapsed) / 1_000_000L));
            LOG.debug("Commit of {} failed ({}), attempt {} of {}; retrying in {} ms", what,
                RetryPolicy.describe(e), attempt, retry.maxAttempts(), wait);
            long sleepStart = System.nanoTime();
            try {
              backoff(wait, failures);
            } finally {
              backoffNanos.add(System.nanoTime() - sleepStart);
            }
            if (stopping.getAsBoolean()) {
              throw new Stopped();
            }
        }
      }
    }
  }

  /**
   * Sleeps {@code millis} through the policy's sleeper, but ends at once with {@link Stopped} when the
   * current gRPC context is cancelled: the load cancels its workers' context when one of them fails the run, so a
   * worker in backoff does not sleep on (up to {@link RetryPolicy#maxBackoff()}) and then try again.
   */
  private void backoff(long millis, Failures failures) {
    Context context = Context.current();
    if (context.isCancelled()) {
      throw new Stopped();
    }
    Thread sleeping = Thread.currentThread();
    Context.CancellationListener wake = cancelled -> sleeping.interrupt();
    context.addListener(wake, Runnable::run);
    try {
      retry.sleeper().sleep(millis);
    } catch (InterruptedException interrupted) {
      if (context.isCancelled()) {
        throw new Stopped();
      }
      Thread.currentThread().interrupt(); // someone else's interrupt: keep it for them
      throw failures.interrupted(interrupted);
    } finally {
      context.removeListener(wake);
    }
    if (context.isCancelled()) {
      Thread.interrupted(); // the wake-up may have come just after the sleep ended: it must not hit the next call
      throw new Stopped();
    }
  }

  public long commits() {
    return commits.sum();
  }

  public long writeNanos() {
    return writeNanos.sum();
  }

  public long backoffNanos() {
    return backoffNanos.sum();
  }
}
