package dev.pg2spanner.load.convert;

/**
 * A source value that cannot become a Spanner value. Thrown by the parsers and caught by {@link TableConverter},
 * which turns it into a {@link RejectedRow}, and by the live applier for single values. It carries no stack trace: bad values
 * are data, not bugs, and a table with many of them must not pay for stack walks.
 */
public final class ValueRejection extends Exception {

  private static final long serialVersionUID = 1L;

  /** The offending text (or a description of it), or null. */
  private final String value;

  public ValueRejection(String reason, String value) {
    super(reason, null, false, false);
    this.value = value;
  }

  /** The offending value's text, or null. */
  public String value() {
    return value;
  }
}
