package dev.pg2spanner.error;

import java.util.Objects;

/**
 * A command-line value that cannot be right whatever the environment: a source URL that is not a PostgreSQL JDBC
 * URL, a target that is not a database path, an emulator address that is not HOST:PORT. The CLI reports it as a
 * usage error (exit code 2), like an unknown option; the message names the option and the form it takes.
 */
public final class InvalidValueException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidValueException(String message) {
    super(Objects.requireNonNull(message, "message"));
  }
}
