package dev.pg2spanner.live.apply;

/** The applier's counters, for progress and metrics; written by the applier, read from other threads. */
public final class ApplyCounters {
  public final java.util.concurrent.atomic.LongAdder inserts = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder updates = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder deletes = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder truncates = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder transactions = new java.util.concurrent.atomic.LongAdder();
  final java.util.concurrent.atomic.LongAdder skipped = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder rejected = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder commits = new java.util.concurrent.atomic.LongAdder();
  /** Changed rows of keyless tables found in Spanner through their row hash's index (issue 30). */
  public final java.util.concurrent.atomic.LongAdder foundByHash = new java.util.concurrent.atomic.LongAdder();
  /**
   * Reads of a keyless table's row hash index: one for each batch of changes read ahead
   * ({@link ChangeApplier#accept}), plus one for each lookup the batch could not answer.
   */
  public final java.util.concurrent.atomic.LongAdder hashReads = new java.util.concurrent.atomic.LongAdder();
  /** Changed rows looked for by a query over the table's columns (a scan of the table, unless it has an index). */
  public final java.util.concurrent.atomic.LongAdder lookupScans = new java.util.concurrent.atomic.LongAdder();
  /** Commit latency and retries for a monitoring system (the session binds the run's meters before the applier). */
  public volatile dev.pg2spanner.metrics.RunMetrics.Commits meters =
      dev.pg2spanner.metrics.RunMetrics.unobserved("live");

  public long changes() {
    return inserts.sum() + updates.sum() + deletes.sum() + truncates.sum();
  }
}
