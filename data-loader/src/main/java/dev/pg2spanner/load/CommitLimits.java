package dev.pg2spanner.load;

/**
 * Spanner's per-commit limits and the loader's own targets, each constant citing the limit it respects
 * (Spanner "Quotas and limits"). The emulator enforces none of the mutation limits, so the loader must.
 */
public final class CommitLimits {

  /**
   * Spanner: at most 80,000 mutations per commit, where a row write counts its cells (columns written) times
   * one plus the number of secondary indexes on the table.
   */
  public static final int SPANNER_MAX_MUTATIONS_PER_COMMIT = 80_000;

  /** Spanner: a commit request is at most 100 MiB. */
  public static final long SPANNER_MAX_COMMIT_BYTES = 100L << 20;

  /** Spanner: a single cell (a column value, a whole array included) is at most 10 MiB. */
  public static final long SPANNER_MAX_CELL_BYTES = 10L << 20;

  /** Spanner: all key columns of a row together are at most 8 KiB (the emulator does not enforce it). */
  public static final long SPANNER_MAX_KEY_BYTES = 8L << 10;

  /** Our target: a quarter of the mutation limit, so index multipliers and estimates never bring us near it. */
  public static final int TARGET_MUTATIONS_PER_COMMIT = 20_000;

  /** Our target: DESIGN §5 and Spanner's bulk-load advice ask for commits of about 1–5 MB. */
  public static final long TARGET_COMMIT_BYTES = 2L << 20;

  private CommitLimits() {}
}
