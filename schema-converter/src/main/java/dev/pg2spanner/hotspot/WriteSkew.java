package dev.pg2spanner.hotspot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The predicted write skew of a key: the share of concurrent inserts that land on the same key range.
 *
 * <p>The model. Spanner splits a table into key ranges and moves busy ranges to different servers (load-based
 * splitting), so in the long run range boundaries follow the data: we place K boundaries at the quantiles of the
 * keys of the whole insert stream (the sampled rows, in arrival order). What splitting cannot fix is a stream
 * whose <em>concurrent</em> inserts all fall in one narrow range — the tail of a monotonic key. So we cut the stream
 * into short bursts of consecutive inserts (a tenth of a range long) and measure, per burst, how concentrated it is:
 * the chance that two inserts of the burst land on the same range (the Herfindahl index of the burst's range counts,
 * corrected for the burst's finite size). The figure is the average over bursts. A monotonic key scores ~100%
 * whatever K is; a uniformly spread key scores ~1/K (the floor); a key with N hash shards about 1/N.
 *
 * <p>K is {@link #rangesFor(int) 10 × nodes}, about how many splits a busy table has per node (fewer for a small
 * sample: at least 20 sampled rows per range).
 */
public final class WriteSkew {

  private WriteSkew() {}

  /** K for a given node count. */
  public static int rangesFor(int nodes) {
    return Math.max(2, 10 * nodes);
  }

  /** The K actually used for {@code sampled} keys: at most {@code ranges}, and at least 20 keys per range. */
  public static int effectiveRanges(int sampled, int ranges) {
    return Math.min(ranges, sampled / 20);
  }

  /**
   * @param keys the keys of an insert stream, in arrival order
   * @param ranges K (reduced to {@link #effectiveRanges} for small samples)
   * @return the share of concurrent inserts that land on the same range, 0..1 (1 when there are too few keys)
   */
  public static <T extends Comparable<? super T>> double concentration(List<T> keys, int ranges) {
    Objects.requireNonNull(keys, "keys");
    int k = effectiveRanges(keys.size(), ranges);
    if (k < 2) {
      return 1.0;
    }
    List<T> sorted = new ArrayList<>(keys);
    Collections.sort(sorted);
    List<T> boundaries = new ArrayList<>(k - 1);
    for (int i = 1; i < k; i++) {
      boundaries.add(sorted.get((int) ((long) i * sorted.size() / k)));
    }
    int burst = Math.max(2, keys.size() / (10 * k));
    double total = 0;
    int bursts = 0;
    for (int start = 0; start + burst <= keys.size(); start += burst) {
      int[] counts = new int[k];
      for (int i = start; i < start + burst; i++) {
        counts[rangeOf(keys.get(i), boundaries)]++;
      }
      double herfindahl = 0;
      for (int c : counts) {
        herfindahl += ((double) c / burst) * ((double) c / burst);
      }
      // Unbiased for a finite burst: a burst of b uniformly spread inserts has E[H] = 1/K + (1 - 1/K)/b.
      total += (burst * herfindahl - 1) / (burst - 1);
      bursts++;
    }
    // An even spread is the floor: the finite-burst correction can dip below 1/K for sequences spread more evenly
    // than random (bit-reversed ids), and "0%" would overstate it.
    return Math.max(1.0 / k, Math.min(1, total / bursts));
  }

  /** The range a key falls in: the number of boundaries at or below it (binary search). */
  private static <T extends Comparable<? super T>> int rangeOf(T key, List<T> boundaries) {
    int lo = 0;
    int hi = boundaries.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (boundaries.get(mid).compareTo(key) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** A positive 63-bit bit-reversal of {@code value}: what a {@code bit_reversed_positive} sequence hands out. */
  public static long bitReversedPositive(long value) {
    return Long.reverse(value) >>> 1;
  }

  /** A stable 64-bit mix of a value (splitmix64 finaliser): stands for FARM_FINGERPRINT and random UUIDs. */
  public static long mix(long value) {
    long z = value + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A stable hash of any sampled value. */
  public static long mix(Object value) {
    return value instanceof Long l ? mix(l.longValue()) : mix((long) String.valueOf(value).hashCode());
  }

  /** A lexicographically ordered pair, for keys like (shard, id) or (tenant, created_at). */
  public record Pair(Comparable<Object> first, Comparable<Object> second) implements Comparable<Pair> {
    @SuppressWarnings("unchecked")
    public static Pair of(Object first, Object second) {
      return new Pair((Comparable<Object>) first, (Comparable<Object>) second);
    }

    @Override
    public int compareTo(Pair o) {
      int c = compareNullable(first, o.first);
      return c != 0 ? c : compareNullable(second, o.second);
    }

    private static int compareNullable(Comparable<Object> a, Comparable<Object> b) {
      if (a == null || b == null) {
        return a == null ? (b == null ? 0 : -1) : 1;
      }
      if (a.getClass() != b.getClass()) {
        return a.getClass().getName().compareTo(b.getClass().getName());
      }
      return a.compareTo(b);
    }
  }
}
