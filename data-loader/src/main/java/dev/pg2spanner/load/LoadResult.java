package dev.pg2spanner.load;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one run of {@link LoadEngine#run} did.
 *
 * @param tables per table, in plan order, for every table with a piece to load in this run
 * @param rowsWritten rows committed
 * @param rowsRejected rows sent to the dead-letter file in this run
 * @param commits successful Spanner commits (bisect commits included)
 * @param elapsed wall time of the run
 * @param readTime time inside {@link PieceSource#read} minus the time spent in the sink, summed over workers
 *     (so it includes the source's conversion of values)
 * @param writeTime time inside Spanner's {@code writeAtLeastOnce}, summed over workers (retries included,
 *     backoff sleeps not)
 */
public record LoadResult(List<TableLoadStats> tables, long rowsWritten, long rowsRejected, long commits,
    Duration elapsed, Duration readTime, Duration writeTime) {

  /** Nothing loaded (a resumed live run past its load). */
  public static LoadResult none() {
    return new LoadResult(List.of(), 0, 0, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
  }

  public LoadResult {
    tables = List.copyOf(tables);
    Objects.requireNonNull(elapsed, "elapsed");
    Objects.requireNonNull(readTime, "readTime");
    Objects.requireNonNull(writeTime, "writeTime");
  }
}
