package dev.pg2spanner.load.row;

import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerLimits;

/**
 * The loader's own commit targets, set against Spanner's per-commit limits ({@link SpannerDialect}: at most 80,000
 * mutations and 100 MiB per commit, 10 MiB per cell, 8 KiB per key). The emulator enforces none of the mutation
 * limits, so the loader must.
 */
public final class CommitLimits {

  /** The limits of the dialect the loader writes. */
  public static final SpannerLimits SPANNER = SpannerLimits.GOOGLE_STANDARD_SQL;

  /**
   * Our target: a quarter of Spanner's mutation limit (20,000), so index multipliers and estimates never bring us
   * near it. A row write counts its cells (columns written) times one plus the number of secondary indexes.
   */
  public static final int TARGET_MUTATIONS_PER_COMMIT = SPANNER.maxMutationsPerCommit() / 4;

  /** Our target: Spanner's bulk-load advice asks for commits of about 1–5 MB. */
  public static final long TARGET_COMMIT_BYTES = 2L << 20;

  private CommitLimits() {}
}
