package dev.pg2spanner.load;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link LoadEngine} runs.
 *
 * @param workers worker threads, each with its own {@link PieceSource} and its own batch (at least 1)
 * @param maxBadRows the run stops once more rows than this were rejected (0: the first rejection stops it)
 * @param runDirectory where the checkpoint and {@code progress.jsonl} live; created when missing
 * @param deadLetterFile the JSON-lines file rejected rows are appended to
 * @param parentsFirst true when interleaved children need their parent rows first (the emulator): pieces of level
 *     L+1 start only when every piece of level ≤ L is committed
 * @param progressInterval how often progress is printed and logged (positive)
 * @param interactive true on a terminal: one progress bar redrawn with {@code \r}; else a plain line per table
 */
public record LoadOptions(int workers, long maxBadRows, Path runDirectory, Path deadLetterFile, boolean parentsFirst,
    Duration progressInterval, boolean interactive) {

  public LoadOptions {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    new BadRowLimit(maxBadRows); // validates
    Objects.requireNonNull(runDirectory, "runDirectory");
    Objects.requireNonNull(deadLetterFile, "deadLetterFile");
    Objects.requireNonNull(progressInterval, "progressInterval");
    if (progressInterval.isNegative() || progressInterval.isZero()) {
      throw new IllegalArgumentException("progressInterval must be positive, got " + progressInterval);
    }
  }

  /** The {@code --max-bad-rows} rule of this load. */
  public BadRowLimit badRowLimit() {
    return new BadRowLimit(maxBadRows);
  }
}
