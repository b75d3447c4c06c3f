package dev.pg2spanner.verify;

import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one pass over one side of one table accumulates. Bounded by design:
 * <ul>
 *   <li>the first pass keeps the table checksum and a checksum per key bucket ({@link #BUCKETS} buckets chosen by
 *       a hash of the key text: a fixed 1.5 MiB per side, whatever the table size);
 *   <li>a second pass, only for a table whose checksums differ, keeps a checksum per key, but only for the keys
 *       of the few buckets whose checksums differ ({@link Verifier#MAX_DIFFERING_KEYS} at most, each holding
 *       about rows / {@link #BUCKETS} keys) — every differing bucket holds at least one differing key, so these
 *       buckets are enough to name the first differing keys.
 * </ul>
 * Not thread-safe: one per side and pass.
 */
final class TableScan {

  static final int BUCKET_BITS = 16;
  static final int BUCKETS = 1 << BUCKET_BITS;

  private final Checksum total = new Checksum();
  /** Per bucket: row count, high and low 64 bits of the hash sum; null in a second pass. */
  private final long[] bucketRows;
  private final long[] bucketHigh;
  private final long[] bucketLow;
  /** Buckets whose keys are kept, or null in a first pass. */
  private final BitSet drill;
  private final Map<String, Checksum> keys;

  private TableScan(BitSet drill) {
    this.drill = drill;
    if (drill == null) {
      bucketRows = new long[BUCKETS];
      bucketHigh = new long[BUCKETS];
      bucketLow = new long[BUCKETS];
      keys = null;
    } else {
      bucketRows = null;
      bucketHigh = null;
      bucketLow = null;
      keys = new HashMap<>();
    }
  }

  static TableScan firstPass() {
    return new TableScan(null);
  }

  /** A second pass that keeps the per-key checksums of the rows in {@code buckets}. */
  static TableScan secondPass(BitSet buckets) {
    return new TableScan((BitSet) buckets.clone());
  }

  void accept(String key, List<Value> values) {
    byte[] hash = Canonical.rowHash(values);
    total.add(hash);
    int bucket = bucketOf(key);
    if (drill == null) {
      // Inline arrays instead of 65,536 Checksum objects: the first pass must stay cheap per table.
      long low = bucketLow[bucket] + lowOf(hash);
      long carry = Long.compareUnsigned(low, bucketLow[bucket]) < 0 ? 1 : 0;
      bucketLow[bucket] = low;
      bucketHigh[bucket] += highOf(hash) + carry;
      bucketRows[bucket]++;
    } else if (drill.get(bucket)) {
      keys.computeIfAbsent(key, k -> new Checksum()).add(hash);
    }
  }

  Checksum total() {
    return total;
  }

  /** Per-key checksums of the drilled buckets (second pass only). */
  Map<String, Checksum> keys() {
    return keys;
  }

  /** The first {@code limit} buckets (in bucket order) whose checksums differ between two first passes. */
  static BitSet differingBuckets(TableScan a, TableScan b, int limit) {
    BitSet differing = new BitSet(BUCKETS);
    for (int i = 0; i < BUCKETS && differing.cardinality() < limit; i++) {
      if (a.bucketRows[i] != b.bucketRows[i] || a.bucketHigh[i] != b.bucketHigh[i]
          || a.bucketLow[i] != b.bucketLow[i]) {
        differing.set(i);
      }
    }
    return differing;
  }

  /** The bucket of a key text: the top bits of a well-mixed hash (murmur3's finaliser over String.hashCode). */
  static int bucketOf(String key) {
    int h = key.hashCode();
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h >>> (32 - BUCKET_BITS);
  }

  private static long highOf(byte[] hash) {
    return Checksum.readLong(hash, 0);
  }

  private static long lowOf(byte[] hash) {
    return Checksum.readLong(hash, 8);
  }
}
