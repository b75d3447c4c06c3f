package dev.pg2spanner.targetdb;

import com.google.cloud.spanner.SpannerException;

/**
 * What a failed Spanner call means for the call, by its status code: one place for the code lists the schema phases,
 * Flyway's history and the commits' retry rules share. A commit's own verdict (retry, split to find refused rows, or
 * stop) is {@code RetryPolicy.classify}, which also reads the message; these answer the simpler questions.
 */
public final class SpannerFailures {

  private SpannerFailures() {}

  /**
   * The target was not reached, or refused who we are: a connection, credentials or permission problem, not a
   * problem with what was asked (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, UNAUTHENTICATED, PERMISSION_DENIED).
   */
  public static boolean isReachFailure(SpannerException e) {
    return switch (e.getErrorCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, UNAUTHENTICATED, PERMISSION_DENIED -> true;
      default -> false;
    };
  }

  /**
   * An idempotent call (a read, a CREATE of what may already exist) that failed with {@code e} may succeed if simply
   * made again: the codes a cut connection or a busy target give (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED,
   * CANCELLED, RESOURCE_EXHAUSTED), and INTERNAL or UNKNOWN, which a connection cut mid-call also gives. A commit is
   * judged more narrowly, since repeating it must be harmless too.
   */
  public static boolean isTransientForIdempotentCall(SpannerException e) {
    return switch (e.getErrorCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, CANCELLED, RESOURCE_EXHAUSTED, INTERNAL, UNKNOWN -> true;
      default -> false;
    };
  }

  /**
   * Spanner (and the emulator) refused a schema change because another one is still running ("concurrent schema
   * change"): nothing of the request was applied, so sending it again once the other is done is safe. How long to
   * wait is the caller's: the migrate phases a few attempts, the live stream as long as a killed run's change lasts.
   */
  public static boolean isConcurrentSchemaChange(String detail) {
    return detail != null && detail.toLowerCase(java.util.Locale.ROOT).contains("concurrent schema change");
  }
}
