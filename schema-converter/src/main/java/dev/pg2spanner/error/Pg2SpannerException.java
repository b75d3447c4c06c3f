package dev.pg2spanner.error;

import java.util.Objects;

/**
 * An expected failure: the message says what failed, on which object, and what to do next, in one or two
 * sentences a user can act on without a stack trace. The code decides the exit code.
 */
public class Pg2SpannerException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final ExitCode code;

  public Pg2SpannerException(ExitCode code, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.code = Objects.requireNonNull(code, "code");
  }

  public Pg2SpannerException(ExitCode code, String message, Throwable cause) {
    super(Objects.requireNonNull(message, "message"), cause);
    this.code = Objects.requireNonNull(code, "code");
  }

  public ExitCode code() {
    return code;
  }
}
