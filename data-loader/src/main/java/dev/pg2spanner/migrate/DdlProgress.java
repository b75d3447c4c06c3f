package dev.pg2spanner.migrate;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * A schema phase's progress lines. A phase of at most {@value #PER_STATEMENT_MAX} statements gets one line per
 * statement as Spanner commits it; a larger one a line every {@value #EVERY_STATEMENTS} statements or
 * {@value #EVERY_SECONDS} s, so 500 indexes do not flood the terminal. Called from several request threads.
 */
final class DdlProgress {

  static final int PER_STATEMENT_MAX = 50;
  static final int EVERY_STATEMENTS = 50;
  static final int EVERY_SECONDS = 10;

  private final PrintWriter out;
  private final String phase;
  private final int total;
  private final long started = System.nanoTime();
  private int done;
  private int requests;
  private int lastPrintedCount;
  private long lastPrinted = System.nanoTime();

  /**
   * @param phase the migration's file name, e.g. {@code V2__indexes.sql}
   * @param total the statements this run sends (those already present excluded)
   */
  DdlProgress(PrintWriter out, String phase, int total) {
    this.out = out;
    this.phase = phase;
    this.total = total;
  }

  synchronized void requestStarted(int statements) {
    requests++;
    if (total > PER_STATEMENT_MAX) {
      out.printf(Locale.ROOT, "  %s: request %d sent (%d statements)%n", phase, requests, statements);
      out.flush();
    }
  }

  synchronized void statementDone(String statement) {
    done++;
    long now = System.nanoTime();
    if (total <= PER_STATEMENT_MAX) {
      out.printf(Locale.ROOT, "  %s (%d/%d) %s: done at %s%n", phase, done, total, DdlObjects.describe(statement),
          seconds(now));
    } else if (done - lastPrintedCount >= EVERY_STATEMENTS || now - lastPrinted >= EVERY_SECONDS * 1_000_000_000L
        || done == total) {
      out.printf(Locale.ROOT, "  %s: %d/%d statements applied, %s%n", phase, done, total, seconds(now));
      lastPrintedCount = done;
      lastPrinted = now;
    }
    out.flush();
  }

  synchronized void note(String text) {
    out.println("  " + phase + ": " + text);
    out.flush();
  }

  /** The phase's summary line. */
  synchronized void finished(int alreadyPresent) {
    out.printf(Locale.ROOT, "  %s: %d statement(s) in %d request(s), %s%s%n", phase, done, requests,
        seconds(System.nanoTime()), alreadyPresent == 0 ? "" : "; " + alreadyPresent + " already present");
    out.flush();
  }

  synchronized int done() {
    return done;
  }

  long elapsedMillis() {
    return (System.nanoTime() - started) / 1_000_000;
  }

  private String seconds(long now) {
    return String.format(Locale.ROOT, "%.1f s", (now - started) / 1e9);
  }
}
