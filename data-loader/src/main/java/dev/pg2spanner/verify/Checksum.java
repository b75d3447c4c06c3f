package dev.pg2spanner.verify;

import java.util.Locale;

/**
 * A running table checksum: the row count and the sum of 128-bit row hashes modulo 2^128. A sum (unlike XOR) is
 * order-independent and still sees duplicates: a row loaded twice adds its hash twice. Not thread-safe.
 */
final class Checksum {

  private long rows;
  private long high;
  private long low;

  /** Adds one row's 16-byte hash. */
  void add(byte[] hash) {
    add(1, readLong(hash, 0), readLong(hash, 8));
  }

  private void add(long count, long addHigh, long addLow) {
    long sum = low + addLow;
    long carry = Long.compareUnsigned(sum, low) < 0 ? 1 : 0;
    low = sum;
    high = high + addHigh + carry;
    rows += count;
  }

  long rows() {
    return rows;
  }

  /** The sum as 32 lower-case hex digits. */
  String hex() {
    return String.format(Locale.ROOT, "%016x%016x", high, low);
  }

  boolean sameAs(Checksum other) {
    return rows == other.rows && high == other.high && low == other.low;
  }

  static long readLong(byte[] b, int offset) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[offset + i] & 0xffL);
    }
    return v;
  }
}
