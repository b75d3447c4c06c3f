package dev.pg2spanner.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a schema phase's statements are grouped into {@code updateDatabaseDdl} requests, and how many requests run at
 * once. A policy, not a Spanner limit: Spanner accepts larger batches, but they cost more (see below).
 *
 * <p><b>Real Spanner</b>: statements that make Spanner validate existing data or backfill an index (CREATE INDEX,
 * ADD FOREIGN KEY, ADD CHECK) each create several schema versions, and Google's guidance for large schema updates is
 * to put no more than {@value #SPANNER_VALIDATING_PER_BATCH} of them in one batch, while statements that need neither
 * (CREATE TABLE on an empty database) may be batched freely, and to batch at all rather than send one request per
 * statement ("Schema update best practices", <a
 * href="https://cloud.google.com/spanner/docs/schema-updates-best-practices">
 * https://cloud.google.com/spanner/docs/schema-updates-best-practices</a>, and "Make schema updates", section "Large
 * updates", <a href="https://cloud.google.com/spanner/docs/schema-updates#large-updates">
 * https://cloud.google.com/spanner/docs/schema-updates#large-updates</a>). Spanner queues concurrent requests on a
 * database and may run them together, so {@value #SPANNER_IN_FLIGHT} are in flight. Fewer, larger requests also
 * spare Spanner's schema-version budget: the same page gives a database of 2,000 columns at most 1,500 schema
 * changes within the version retention period, fewer when a change needs several versions, and throttles beyond it.
 * {@code migrate --ddl-batch-size N} and {@code --ddl-concurrency N} override these defaults.
 *
 * <p><b>The emulator</b> rejects a second schema change while one runs ("concurrent schema change",
 * FAILED_PRECONDITION), so one request at a time, and it keeps about 20 MB per request that it never returns (a
 * 139-table schema: 944 requests grew it to 18.7 GB in 214 s, three batched requests to 2.3 GB in 89 s; issue 16), so
 * its batches are as large as {@value #EMULATOR_STATEMENTS_PER_BATCH} statements.
 *
 * @param maxStatements the most statements in one request, at least 1
 * @param maxValidating the most statements that validate or backfill ({@link #validates(String)}) in one request, at
 *     least 1
 * @param inFlight how many requests of one phase may run at once, at least 1 (phase 1 always uses 1: a table needs its
 *     interleave parent and its sequences first)
 */
public record DdlBatchPolicy(int maxStatements, int maxValidating, int inFlight) {

  /** Real Spanner: validating or backfilling statements per request (Google's "Large updates" guidance). */
  static final int SPANNER_VALIDATING_PER_BATCH = 10;

  /** Real Spanner: statements per request when none of them validates (tables on an empty database). */
  static final int SPANNER_STATEMENTS_PER_BATCH = 100;

  /** Real Spanner: requests in flight per phase. */
  static final int SPANNER_IN_FLIGHT = 3;

  /** The emulator: statements per request (it applies them in memory, one request at a time). */
  static final int EMULATOR_STATEMENTS_PER_BATCH = 500;

  public DdlBatchPolicy {
    if (maxStatements < 1 || maxValidating < 1 || inFlight < 1) {
      throw new IllegalArgumentException("batch sizes and requests in flight must be at least 1, were "
          + maxStatements + ", " + maxValidating + ", " + inFlight);
    }
  }

  /** The default for a target: the emulator's or real Spanner's (see the class comment). */
  public static DdlBatchPolicy forTarget(boolean emulator) {
    return emulator ? new DdlBatchPolicy(EMULATOR_STATEMENTS_PER_BATCH, EMULATOR_STATEMENTS_PER_BATCH, 1)
        : new DdlBatchPolicy(SPANNER_STATEMENTS_PER_BATCH, SPANNER_VALIDATING_PER_BATCH, SPANNER_IN_FLIGHT);
  }

  /**
   * This policy with at most {@code n} statements per request, validating ones included ({@code --ddl-batch-size}:
   * what the user asked for wins over the guidance's 10); n at least 1.
   */
  public DdlBatchPolicy withBatchSize(int n) {
    return new DdlBatchPolicy(n, n, inFlight);
  }

  /** This policy with {@code n} requests in flight; n at least 1. */
  public DdlBatchPolicy withInFlight(int n) {
    return new DdlBatchPolicy(maxStatements, maxValidating, n);
  }

  /**
   * Consecutive groups of {@code statements}, in order, each within both caps; an empty list gives no groups.
   * Order is kept so a statement never runs before one it follows in the migration file.
   */
  public List<List<String>> group(List<String> statements) {
    List<List<String>> batches = new ArrayList<>();
    List<String> current = new ArrayList<>();
    int validating = 0;
    for (String s : statements) {
      boolean v = validates(s);
      if (!current.isEmpty() && (current.size() == maxStatements || v && validating == maxValidating)) {
        batches.add(List.copyOf(current));
        current.clear();
        validating = 0;
      }
      current.add(s);
      validating += v ? 1 : 0;
    }
    if (!current.isEmpty()) {
      batches.add(List.copyOf(current));
    }
    return List.copyOf(batches);
  }

  /**
   * Whether Spanner must read existing rows to apply {@code statement}: an index backfill, a foreign key or CHECK
   * validation. CREATE TABLE / SCHEMA / SEQUENCE need neither.
   */
  public static boolean validates(String statement) {
    String s = statement.strip().toUpperCase(Locale.ROOT);
    return s.matches("(?s)CREATE\\s+(UNIQUE\\s+)?(NULL_FILTERED\\s+)?(SEARCH\\s+)?INDEX\\b.*")
        || s.matches("(?s)ALTER\\s+TABLE\\b.*\\bADD\\s+(CONSTRAINT\\b.*|FOREIGN\\s+KEY\\b.*|CHECK\\b.*)");
  }
}
