package dev.pg2spanner.load.write;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.row.RejectedRow;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Commits one batch of one table: retries transient failures, and when Spanner refuses the content, bisects the
 * batch so that only the refused rows are rejected (with Spanner's reason) and their batch-mates are committed.
 * Each commit goes through {@link RetryingWrite}. Shared by all workers; thread-safe (its only state is counters).
 */
public final class WriteCommitter {

  /** How Spanner names the column it refuses ("... for column: Strict.Code, ..."). */
  private static final Pattern REFUSED_COLUMN =
      Pattern.compile("[Cc]olumn: `?([A-Za-z][A-Za-z0-9_]*(?:\\.[A-Za-z][A-Za-z0-9_]*)*)");

  /** Rows and estimated bytes that a call committed. */
  record WriteOutcome(long rows, long bytes) {
    static final WriteOutcome NONE = new WriteOutcome(0, 0);

    WriteOutcome plus(WriteOutcome other) {
      return new WriteOutcome(rows + other.rows, bytes + other.bytes);
    }
  }

  private final RetryingWrite write;
  private final WayOn wayOn;

  /** The in-process loader's way on after a failed commit: its checkpoint keeps the pieces already done. */
  public static final WayOn RESUME = WayOn.resume("rerun with --resume");

  public WriteCommitter(WriteTarget target, RetryPolicy retry) {
    this(target, retry, dev.pg2spanner.metrics.RunMetrics.unobserved("load"));
  }

  /** @param meters commit latency and retries for a monitoring system */
  public WriteCommitter(WriteTarget target, RetryPolicy retry, dev.pg2spanner.metrics.RunMetrics.Commits meters) {
    this(target, retry, meters, RESUME);
  }

  /**
   * @param wayOn what the user does after a commit failed for good, the end of the failure's sentence ("rerun with
   *     --resume" for the in-process loader; a Beam job has no checkpoint and says its own)
   */
  public WriteCommitter(WriteTarget target, RetryPolicy retry, dev.pg2spanner.metrics.RunMetrics.Commits meters,
      WayOn wayOn) {
    this.write = new RetryingWrite(target, retry, () -> meters, null);
    this.wayOn = java.util.Objects.requireNonNull(wayOn, "wayOn");
  }

  /**
   * Commits {@code rows} (all of {@code table}).
   *
   * @param onReject receives each row Spanner refuses, with Spanner's reason
   * @param stopping checked before every commit; when true, throws {@link Stopped} (the rows not yet
   *     committed are dropped: their piece is not marked done)
   * @throws Pg2SpannerException when retries are exhausted or Spanner refuses the whole table (missing table or
   *     column, permissions)
   */
  WriteOutcome commit(String table, List<ConvertedRow> rows, Consumer<RejectedRow> onReject,
      BooleanSupplier stopping) {
    if (rows.isEmpty()) {
      return WriteOutcome.NONE;
    }
    if (stopping.getAsBoolean()) {
      throw new Stopped();
    }
    SpannerException refused = writeWithRetry(table, rows, stopping);
    if (refused == null) {
      long bytes = 0;
      for (ConvertedRow row : rows) {
        bytes += row.bytes();
      }
      return new WriteOutcome(rows.size(), bytes);
    }
    if (rows.size() == 1) {
      ConvertedRow row = rows.get(0);
      onReject.accept(new RejectedRow(table, row.key(), refusedColumn(refused), null,
          "Spanner refused the row: " + RetryPolicy.describe(refused)));
      return WriteOutcome.NONE;
    }
    // Bisect: each half is committed or split again, so k bad rows cost about 2·k·log2(n) extra commits.
    int middle = rows.size() / 2;
    return commit(table, rows.subList(0, middle), onReject, stopping)
        .plus(commit(table, rows.subList(middle, rows.size()), onReject, stopping));
  }

  /** Null when committed; the exception when Spanner refused the rows (REJECT_ROWS). */
  private SpannerException writeWithRetry(String table, List<ConvertedRow> rows, BooleanSupplier stopping) {
    List<Mutation> mutations = new ArrayList<>(rows.size());
    for (ConvertedRow row : rows) {
      mutations.add(row.mutation());
    }
    return write.write(mutations, "table " + table, failures(table), stopping);
  }

  private RetryingWrite.Failures failures(String table) {
    return new RetryingWrite.Failures() {
      @Override
      public Pg2SpannerException refused(SpannerException e, boolean schemaMismatch) {
        return new Pg2SpannerException(schemaMismatch ? ExitCode.TARGET_CONFLICT : ExitCode.TARGET_CONNECTION,
            wayOn.next(), "Spanner refused a commit to table " + table + " (" + RetryPolicy.describe(e) + "); check "
            + "the target database and that the plan's schema is applied, then " + wayOn.words() + ".", e);
      }

      @Override
      public Pg2SpannerException exhausted(SpannerException last, int attempts, long seconds) {
        return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, wayOn.next(), "Spanner did not accept a commit to "
            + "table " + table + " after " + attempts + " attempts over " + seconds + " s (last error: "
            + RetryPolicy.describe(last) + "); check that the target is reachable and not overloaded, then "
            + wayOn.words() + ".", last);
      }
    };
  }

  /** "column: Strict.Code" in Spanner's message: the column it names, without the table; else null. */
  static String refusedColumn(SpannerException e) {
    Matcher m = REFUSED_COLUMN.matcher(String.valueOf(e.getMessage()));
    if (!m.find()) {
      return null;
    }
    String name = m.group(1);
    return name.substring(name.lastIndexOf('.') + 1);
  }

  public long commits() {
    return write.commits();
  }

  public long writeNanos() {
    return write.writeNanos();
  }

  public long backoffNanos() {
    return write.backoffNanos();
  }
}
