package dev.pg2spanner.load.write;

import com.google.cloud.spanner.SpannerException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a failed commit is treated: retried with exponential backoff and jitter, bisected to find the rows Spanner
 * refuses, or fatal. Immutable.
 *
 * @param maxAttempts attempts per commit, the first included
 * @param initialBackoff the first backoff (before jitter)
 * @param maxBackoff the cap of one backoff
 * @param sleeper how to wait (tests pass one that records instead of sleeping)
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Sleeper sleeper) {

  /** Ten attempts, 200 ms doubling up to 16 s: about a minute of patience per commit before the run fails. */
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(10, Duration.ofMillis(200), Duration.ofSeconds(16), Thread::sleep);

  /** What to do with a failed commit. */
  public enum Verdict {
    /** A transient failure: the same commit may succeed later (blind upserts make a repeat harmless). */
    RETRY,
    /** Spanner refused the content: split the batch to find the rows it refuses. */
    REJECT_ROWS,
    /** Nothing a retry or a split can fix (missing table, permissions, ...): stop the run. */
    FAIL
  }

  @FunctionalInterface
  public interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  /** INTERNAL errors the Spanner client itself treats as transient (stream resets on the way). */
  private static final List<String> RETRYABLE_INTERNAL = List.of(
      "received unexpected eos on data frame", "rst_stream", "stream terminated", "http/2 error code: internal_error",
      "connection closed with unknown cause", "authentication backend internal server error");

  /**
   * FAILED_PRECONDITION messages of the emulator's transaction races (concurrent read-write transactions fail with
   * "Invalid transaction ID …" or "Cannot commit a transaction after it has been rolled back", and the client does not
   * retry them): nothing wrong with the rows.
   * Blind writeAtLeastOnce commits should never see them, but if they appear, a retry is the right answer.
   */
  private static final List<String> RETRYABLE_PRECONDITION = List.of(
      "invalid transaction id", "cannot commit a transaction after it has been rolled back");

  /** Messages that mean the target schema does not match the rows: every row would fail, so do not bisect. */
  private static final List<String> SCHEMA_MISMATCH = List.of(
      "table not found", "column not found", "database not found", "instance not found");

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1");
    }
  }

  public static Verdict classify(SpannerException e) {
    String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    if (SCHEMA_MISMATCH.stream().anyMatch(message::contains)) {
      return Verdict.FAIL;
    }
    switch (e.getErrorCode()) {
      case ABORTED:
      case UNAVAILABLE:
      case DEADLINE_EXCEEDED:
      case RESOURCE_EXHAUSTED:
        return Verdict.RETRY;
      case INTERNAL:
        return RETRYABLE_INTERNAL.stream().anyMatch(message::contains) ? Verdict.RETRY : Verdict.FAIL;
      case UNKNOWN:
        // gRPC's "channel closed": the connection went away under a call in flight (the emulator killed mid-load
        // showed it); the same commit may succeed once the target is back.
        return message.contains("channel closed") ? Verdict.RETRY : Verdict.FAIL;
      case FAILED_PRECONDITION:
        return RETRYABLE_PRECONDITION.stream().anyMatch(message::contains) ? Verdict.RETRY : Verdict.REJECT_ROWS;
      case INVALID_ARGUMENT:
      case OUT_OF_RANGE:
      case ALREADY_EXISTS:
        return Verdict.REJECT_ROWS;
      case NOT_FOUND:
        // An interleaved child whose parent row is missing, or an update of a row that does not exist: that row's
        // problem. Any other NOT_FOUND (database, table, session) is the target's.
        // Spanner says "Parent row for row [...] is missing", the emulator "key was not found in parent table";
        // both say "Table t: Row {Int64(1)} not found." for an update of a missing row.
        return message.contains("parent row") || message.contains("not found in parent table")
            || message.contains(": row {") ? Verdict.REJECT_ROWS : Verdict.FAIL;
      default:
        return Verdict.FAIL;
    }
  }

  /**
   * The wait before attempt {@code attempt + 1} (attempt counts from 1): exponential, capped, with "equal
   * jitter" (half fixed, half random) so workers that failed together do not retry together; never shorter than
   * the server's retry hint.
   */
  public long backoffMillis(int attempt, long serverHintMillis) {
    long base = initialBackoff.toMillis() << Math.min(attempt - 1, 20);
    long capped = Math.min(base, maxBackoff.toMillis());
    long half = capped / 2;
    long jittered = half + (half > 0 ? ThreadLocalRandom.current().nextLong(half + 1) : 0);
    return Math.max(jittered, serverHintMillis);
  }

  /**
   * A failure because the target's schema is not the plan's (a table or column missing): the load and the live
   * applier both stop on it with {@code TARGET_CONFLICT}, not as a lost connection.
   */
  public static boolean isSchemaMismatch(SpannerException e) {
    String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    return message.contains("table not found") || message.contains("column not found");
  }

  /** The text of a Spanner error without the client's repeated "CODE: io.grpc.StatusRuntimeException: CODE:". */
  public static String describe(SpannerException e) {
    String code = e.getErrorCode().name();
    String message = String.valueOf(e.getMessage()).trim();
    // The client wraps the cause's text in class names (which ones varies by client version, e.g.
    // "UnavailableException: io.grpc.StatusRuntimeException: UNAVAILABLE: ..."): strip every leading class name and
    // repeated code, so the person reads the status and Spanner's own words once.
    java.util.regex.Pattern wrapper = java.util.regex.Pattern.compile(
        "^(?:" + java.util.regex.Pattern.quote(code) + "|[A-Za-z_$][\\w.$]*(?:Exception|Error)):\\s*");
    java.util.regex.Matcher m = wrapper.matcher(message);
    while (m.find()) {
      message = message.substring(m.end());
      m = wrapper.matcher(message);
    }
    return code + ": " + message;
  }
}
