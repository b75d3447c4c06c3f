package dev.pg2spanner.load;

/**
 * A source value that cannot become a Spanner value. Thrown by the parsers and caught by {@link TableConverter},
 * which turns it into a {@link RejectedRow}; it never leaves this package. It carries no stack trace: bad values
 * are data, not bugs, and a table with many of them must not pay for stack walks.
 */
final class ValueRejection extends Exception {

  private static final long serialVersionUID = 1L;

  /** The offending text (or a description of it), or null. */
  private final String value;

  ValueRejection(String reason, String value) {
    super(reason, null, false, false);
    this.value = value;
  }

  /** The offending value's text, or null. */
  String value() {
    return value;
  }
}
