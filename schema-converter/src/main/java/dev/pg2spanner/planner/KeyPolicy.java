package dev.pg2spanner.planner;

import dev.pg2spanner.hotspot.Monotonicity;
import dev.pg2spanner.hotspot.WriteRate;
import dev.pg2spanner.hotspot.WriteSkew;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.planner.KeyDecision.Reason;
import java.math.BigDecimal;

/**
 * The key policy: which strategy a top-level table's key gets, from evidence alone. Pure: it reads its arguments,
 * changes nothing, and either decides or refuses a request that cannot apply ({@link KeyStrategyRequestException}).
 *
 * <p>In order, for a key that leads with a monotonic column (or whose few-valued leading columns come before one):
 * <ol>
 *   <li>keep it when nothing generates the values (order alone) and the table is not proven busy: a trusted insert
 *       rate at or above the low-write threshold;</li>
 *   <li>keep it when the table's insert rate, over a statistics window of at least a day, is below the low-write
 *       threshold (Spanner's "accept the hotspot for low-write tables");</li>
 *   <li>swap, when another key column is well distributed: it leads, the monotonic column follows (DESC for time);</li>
 *   <li>bit-reversed, when the column is an INT64 fed by a sequence, or holding 64-bit ids the application makes
 *       with their time in the top bits (a new bit-reversed sequence; the application stops making ids or bit-reverses
 *       them);</li>
 *   <li>uuid, when the key holds time-ordered UUIDs;</li>
 *   <li>hash-shard, when the key's leading columns take fewer values than 10 × nodes before the monotonic column
 *       (as many hot key ranges as values), unless a shard column would not fit (keep);</li>
 *   <li>keep, when a shard column would not fit in a key of the hierarchy (the hotspot remains);</li>
 *   <li>hash-shard otherwise.</li>
 * </ol>
 * A strategy requested for a table ({@code plan --key-strategy}) replaces the policy for it, if it can apply.
 */
final class KeyPolicy {

  private KeyPolicy() {}

  /** The strategy for the key {@code e} describes. */
  static KeyDecision decide(KeyEvidence e) {
    KeyStrategy.Kind requested = e.requested();
    if (e.lead().conversion() == ValueConversion.KEY_UUID) {
      if (requested != null && requested != KeyStrategy.Kind.KEEP) {
        throw new KeyStrategyRequestException(e.table(), requested, "the key leads with "
            + e.lead().target() + ", which holds copies of another table's key that a uuid request already remaps "
            + "to UUIDs (spread evenly); drop this request");
      }
      return new KeyDecision(KeyStrategy.Kind.KEEP, Reason.REMAPPED_REFERENCE, e);
    }
    Monotonicity mono = e.monotonicity();
    if (mono == null && (requested == null || requested == KeyStrategy.Kind.KEEP)) {
      return new KeyDecision(KeyStrategy.Kind.KEEP, Reason.NOT_MONOTONIC, e);
    }
    if (requested != null) {
      return requested(e);
    }
    if (mono.orderOnly() && !provenBusy(e.writeRate(), e.lowWriteInsertsPerSecond())) {
      return new KeyDecision(KeyStrategy.Kind.KEEP, Reason.ORDER_ONLY, e);
    }
    if (lowWrite(e.writeRate(), e.lowWriteInsertsPerSecond())) {
      return new KeyDecision(KeyStrategy.Kind.KEEP, Reason.LOW_WRITE, e);
    }
    if (e.swapColumn() != null) {
      return new KeyDecision(KeyStrategy.Kind.SWAP, Reason.WELL_DISTRIBUTED_COLUMN, e);
    }
    if (e.fewLeading() != null) {
      // The growing column does not lead, so neither a sequence nor a UUID key can take its place at the front.
      return e.fullestKey() != null ? new KeyDecision(KeyStrategy.Kind.KEEP, Reason.NO_ROOM_FOR_SHARD, e)
          : new KeyDecision(KeyStrategy.Kind.HASH_SHARD, Reason.FEW_LEADING_VALUES, e);
    }
    if (mono.cause() == Monotonicity.Cause.SEQUENCE && e.lead().targetType().equals("INT64")
        && e.leadSource().sequence() != null) {
      return new KeyDecision(KeyStrategy.Kind.BIT_REVERSED, Reason.SEQUENCE, e);
    }
    if (applicationIds(e)) {
      return new KeyDecision(KeyStrategy.Kind.BIT_REVERSED, Reason.APPLICATION_IDS, e);
    }
    if (mono.cause() == Monotonicity.Cause.TIME_ORDERED_UUID && e.lead().targetType().startsWith("STRING")) {
      return new KeyDecision(KeyStrategy.Kind.UUID, Reason.TIME_ORDERED_UUID, e);
    }
    if (e.fullestKey() != null || e.fullestTable() != null) {
      return new KeyDecision(KeyStrategy.Kind.KEEP, Reason.NO_ROOM_FOR_SHARD, e);
    }
    return new KeyDecision(KeyStrategy.Kind.HASH_SHARD, Reason.MONOTONIC, e);
  }

  /** The requested strategy, or why it cannot apply to this key. */
  private static KeyDecision requested(KeyEvidence e) {
    KeyStrategy.Kind requested = e.requested();
    String name = e.table();
    switch (requested) {
      case KEEP -> { }
      case SWAP -> {
        if (e.swapColumn() == null) {
          throw new KeyStrategyRequestException(name, requested, "no other key column is well distributed in the "
              + "sampled rows (a swap needs a composite key with another column that is not monotonic and has at "
              + "least " + WriteSkew.rangesFor(e.nodes()) + " distinct values); choose hash-shard");
        }
      }
      case BIT_REVERSED -> {
        if (!e.lead().targetType().equals("INT64") || e.leadSource().sequence() == null && !applicationIds(e)) {
          throw new KeyStrategyRequestException(name, requested, "bit-reversed keeps the ids of a key fed by a "
              + "sequence (or of 64-bit ids the application makes with their time in them), but "
              + e.leadSource().name() + " is " + e.leadSource().type().display()
              + (e.leadSource().sequence() == null ? " with no sequence default" : "") + "; choose hash-shard (or "
              + "uuid, for a single-column integer key)");
        }
      }
      case UUID -> {
        if (e.lead().conversion() == ValueConversion.INT64) {
          if (e.key().size() > 1) {
            throw new KeyStrategyRequestException(name, requested, "uuid replaces a single-column integer key by "
                + "UUIDs, but the key is (" + String.join(", ", e.key()) + "), where " + e.lead().target()
                + " alone does not identify a row; choose hash-shard");
          }
        } else if (e.lead().conversion() != ValueConversion.UUID_TEXT) {
          throw new KeyStrategyRequestException(name, requested, "uuid needs a key that leads with an integer or "
              + "uuid column, but " + e.leadSource().name() + " is " + e.leadSource().type().display()
              + "; choose hash-shard");
        }
      }
      case HASH_SHARD -> {
        if (e.fullestKey() != null) {
          throw new KeyStrategyRequestException(name, requested, "the shard column would lead the key of "
              + e.fullestKey() + ", which already has " + KeyDrafts.LIMITS.maxKeyColumns() + " key columns "
              + "(Spanner's limit); shorten that key in plan.yaml first, or choose "
              + (e.key().size() > 1 ? "swap or " : "") + "keep");
        }
        if (e.fullestTable() != null) {
          int limit = KeyDrafts.LIMITS.maxColumnsPerTable();
          throw new KeyStrategyRequestException(name, requested, "hash-shard adds a shard column to "
              + e.fullestTable() + ", which already has " + String.format(java.util.Locale.ROOT, "%,d", limit)
              + " columns (Spanner's limit per table): the shard column is what would cross the limit. Choose "
              + (e.key().size() > 1 ? "swap, " : "") + "bit-reversed (for a sequence-fed integer key) or keep (what "
              + "plan chooses for it without the request, with the hotspot reported)");
        }
      }
      default -> throw new IllegalStateException("not a requestable strategy: " + requested);
    }
    return new KeyDecision(requested, Reason.REQUESTED, e);
  }

  /**
   * The key leads with 64-bit ids the application makes with their creation time in the top bits (Snowflake-style):
   * the application can bit-reverse the ids it makes, or leave them to a bit-reversed Spanner sequence.
   */
  static boolean applicationIds(KeyEvidence e) {
    Monotonicity mono = e.monotonicity();
    return mono != null && e.fewLeading() == null && mono.cause() == Monotonicity.Cause.TIME_ENCODED_ID
        && mono.layout().bitReversible()
        && e.lead().targetType().equals("INT64") && e.leadSource().sequence() == null;
  }

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
