package dev.pg2spanner.live.stream;

/**
 * Where {@link LiveStream} hands the decoded change stream, in order (the applier). The stream confirms to PostgreSQL
 * only what the sink says the target holds.
 */
public interface ChangeSink {

  /** One decoded message, in stream order. */
  void accept(PgOutput.Message message);

  /** Nothing arrived for a moment: commit what waits, if the sink wants to now. */
  void idle();

  /** Commit everything accepted so far and wait until the target holds it. */
  void flush();

  /** True while a source transaction is half received, or accepted messages are not yet applied. */
  boolean inTransaction();

  /**
   * The stream has delivered everything before {@code received} and nothing is half received.
   *
   * @param received the server's last sent position
   */
  void caughtUp(long received);

  /**
   * The end of the last source transaction the target holds, with its position recorded in the same commit; 0
   * before the first (0 is no position in PostgreSQL).
   */
  long appliedEndLsn();
}
