package dev.pg2spanner.migrate;

import dev.pg2spanner.targetdb.SpannerFailures;
import java.util.function.Consumer;

/**
 * Spanner (and the emulator) refuse a schema change while another one is still running — e.g. right after the
 * database was created — with "concurrent schema change". Nothing was applied then, so waiting and sending the request
 * again is safe: {@value #ATTEMPTS} attempts, 2, 4, 6 and 8 s apart. Anything else is reported at once.
 */
final class ConcurrentSchemaChange {

  /** Attempts of one request in all, the first included. */
  static final int ATTEMPTS = 5;

  private ConcurrentSchemaChange() {}

  /**
   * After attempt number {@code attempt} failed with {@code detail}: when the target was only busy with another schema
   * change and attempts remain, says so through {@code note}, waits and returns true (send it again); otherwise
   * returns false at once (report the failure).
   */
  static boolean waitToRetry(String detail, int attempt, Consumer<String> note) throws InterruptedException {
    if (!SpannerFailures.isConcurrentSchemaChange(detail) || attempt >= ATTEMPTS) {
      return false;
    }
    note.accept("the target is busy with another schema change; retrying in " + attempt * 2 + " s");
    Thread.sleep(attempt * 2000L);
    return true;
  }
}
