package dev.pg2spanner.load;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;

/**
 * The {@code --max-bad-rows} rule, the same for every loader and for the live stream: a run goes on while at most
 * {@code max} rows (or streamed changes) were rejected, and stops with {@link ExitCode#DATA_REJECTED} once one more
 * was. 0 means the first rejection stops it.
 *
 * @param max rejected rows tolerated (not negative)
 */
public record BadRowLimit(long max) {

  public BadRowLimit {
    if (max < 0) {
      throw new IllegalArgumentException("maxBadRows must not be negative, got " + max);
    }
  }

  /** True when {@code rejected} rows are more than the run tolerates. */
  public boolean exceededBy(long rejected) {
    return rejected > max;
  }

  /**
   * The failure for a run that rejected too many: "{@code rejected} {@code what} were rejected (limit --max-bad-rows
   * N)" followed by {@code next}, which names the dead-letter file and says how to go on.
   *
   * @param what what was rejected, plural ("rows", "streamed changes")
   * @param next the rest of the message, starting with its own punctuation ("; see FILE")
   */
  public Pg2SpannerException failure(long rejected, String what, String next) {
    return failure(rejected, what, next, NextStep.UNSAID);
  }

  /** As {@link #failure(long, String, String)}, whose {@code next} says which way on ({@code step}). */
  public Pg2SpannerException failure(long rejected, String what, String next, NextStep step) {
    return new Pg2SpannerException(ExitCode.DATA_REJECTED, step, rejected + " " + what + " were rejected (limit "
        + "--max-bad-rows " + max + ")" + next);
  }
}
