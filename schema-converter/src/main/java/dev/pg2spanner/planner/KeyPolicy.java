package dev.pg2spanner.planner;

import dev.pg2spanner.hotspot.WriteRate;
import java.math.BigDecimal;

/**
 * The key policy: which strategy a table's key gets, from evidence alone. Pure: it reads its arguments and changes
 * nothing.
 */
final class KeyPolicy {

  private KeyPolicy() {}

  /**
   * At or above the low-write threshold over a trusted statistics window: busy enough that values stored in order,
   * with nothing generating them, are taken as a hotspot. A window too short to judge is "unknown", never "busy".
   */
  static boolean provenBusy(WriteRate rate, double lowWriteInsertsPerSecond) {
    return rate.trusted() && rate.insertsPerSecond() >= lowWriteInsertsPerSecond;
  }

  /** Below the low-write threshold over a trusted statistics window: a hotspot the policy accepts. */
  static boolean lowWrite(WriteRate rate, double lowWriteInsertsPerSecond) {
    return lowWriteInsertsPerSecond > 0 && rate.trusted() && rate.insertsPerSecond() < lowWriteInsertsPerSecond;
  }

  /** The threshold as prose shows it: "1", "0.5". */
  static String threshold(double lowWriteInsertsPerSecond) {
    return BigDecimal.valueOf(lowWriteInsertsPerSecond).stripTrailingZeros().toPlainString();
  }
}
