package dev.pg2spanner.error;

import java.util.Objects;

/**
 * An expected failure: the message says what failed, on which object, and what to do next, in one or two
 * sentences a user can act on without a stack trace. The code decides the exit code; {@link #next()} says, as a
 * value, which way on the message gives.
 */
public class Pg2SpannerException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final ExitCode code;
  private final NextStep next;

  /** A failure whose message names no way on yet ({@link NextStep#UNSAID}). */
  public Pg2SpannerException(ExitCode code, String message) {
    this(code, NextStep.UNSAID, message, null);
  }

  /** A failure whose message names no way on yet ({@link NextStep#UNSAID}). */
  public Pg2SpannerException(ExitCode code, String message, Throwable cause) {
    this(code, NextStep.UNSAID, message, cause);
  }

  /** @param next what the message tells the user to do next */
  public Pg2SpannerException(ExitCode code, NextStep next, String message) {
    this(code, next, message, null);
  }

  /** @param next what the message tells the user to do next */
  public Pg2SpannerException(ExitCode code, NextStep next, String message, Throwable cause) {
    super(Objects.requireNonNull(message, "message"), cause);
    this.code = Objects.requireNonNull(code, "code");
    this.next = Objects.requireNonNull(next, "next");
  }

  public ExitCode code() {
    return code;
  }

  /** What the message tells the user to do next. */
  public NextStep next() {
    return next;
  }
}
