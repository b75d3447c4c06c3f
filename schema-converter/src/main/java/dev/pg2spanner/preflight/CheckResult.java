package dev.pg2spanner.preflight;

import dev.pg2spanner.error.ExitCode;
import java.util.Objects;

/**
 * One line of a {@code check} report.
 *
 * @param subject what was checked, e.g. "SELECT on every table"
 * @param status the outcome
 * @param detail what was found and, when not OK, what to do next
 * @param failure for {@link Status#FAIL}, the error kind that decides the exit code; null otherwise
 */
public record CheckResult(String subject, Status status, String detail, ExitCode failure) {

  public enum Status { OK, INFO, WARN, FAIL }

  public CheckResult {
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(detail, "detail");
    if ((status == Status.FAIL) != (failure != null)) {
      throw new IllegalArgumentException("a FAIL result needs an error code, and only a FAIL result has one");
    }
  }

  public static CheckResult ok(String subject, String detail) {
    return new CheckResult(subject, Status.OK, detail, null);
  }

  public static CheckResult info(String subject, String detail) {
    return new CheckResult(subject, Status.INFO, detail, null);
  }

  public static CheckResult warn(String subject, String detail) {
    return new CheckResult(subject, Status.WARN, detail, null);
  }

  public static CheckResult fail(String subject, String detail, ExitCode failure) {
    return new CheckResult(subject, Status.FAIL, detail, failure);
  }
}
