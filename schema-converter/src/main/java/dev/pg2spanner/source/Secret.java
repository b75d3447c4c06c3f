package dev.pg2spanner.source;

import java.util.Objects;

/**
 * A password held in memory. {@link #toString()} never reveals it, so a secret that reaches a log line, an
 * exception message or a record's {@code toString} prints as {@code ****}.
 */
public final class Secret {

  private final String value;

  private Secret(String value) {
    this.value = Objects.requireNonNull(value, "value");
  }

  public static Secret of(String value) {
    return new Secret(value);
  }

  /** The secret itself; call only where it is handed to a driver. */
  public String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "****";
  }
}
