package dev.pg2spanner.planner;

import dev.pg2spanner.hotspot.Monotonicity;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.ValueConversion;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The key policy's decision for one top-level table: the strategy, why, and the evidence it was decided on.
 *
 * @param kind the strategy to apply
 * @param reason why the policy chose it
 * @param evidence what the policy decided on
 */
record KeyDecision(KeyStrategy.Kind kind, Reason reason, KeyEvidence evidence) {

  /** Why the policy chose a strategy; the strategy for each is in {@link KeyPolicy#decide}. */
  enum Reason {
    /** Keep: the key leads with a column another table's uuid request remaps to (evenly spread) UUIDs. */
    REMAPPED_REFERENCE,
    /** Keep: nothing shows the leading column grows monotonically. */
    NOT_MONOTONIC,
    /** The strategy asked for with {@code --key-strategy}, which replaces the policy. */
    REQUESTED,
    /** Keep: values arrive in order but nothing generates them, and the table is not proven busy. */
    ORDER_ONLY,
    /** Keep: the table is written rarely, over a trusted statistics window. */
    LOW_WRITE,
    /** Swap: another key column is well distributed. */
    WELL_DISTRIBUTED_COLUMN,
    /** Bit-reversed: an INT64 key fed by a sequence. */
    SEQUENCE,
    /** Bit-reversed: 64-bit ids the application makes with their time in the top bits (Snowflake-style). */
    APPLICATION_IDS,
    /** Uuid: the key holds time-ordered UUIDs. */
    TIME_ORDERED_UUID,
    /** Hash-shard: the key's leading columns take few values before a column that grows (few hot key ranges). */
    FEW_LEADING_VALUES,
    /** Keep: a shard column would not fit in a key of the hierarchy; the hotspot remains. */
    NO_ROOM_FOR_SHARD,
    /** Hash-shard: a monotonic key that nothing else fits. */
    MONOTONIC
  }

  KeyDecision {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(evidence, "evidence");
  }

  /** Uuid on an integer key: its values and every copy of them are remapped to UUIDs. */
  boolean remapsIntegerKey() {
    return kind == KeyStrategy.Kind.UUID && evidence.lead().conversion() == ValueConversion.INT64;
  }

  /** ORDER_ONLY: the strategy to opt in to if the table does get busy (swap where a column could lead). */
  KeyStrategy.Kind optIn() {
    return evidence.swapColumn() != null ? KeyStrategy.Kind.SWAP : KeyStrategy.Kind.HASH_SHARD;
  }

  /** The monotonic cause is time: a swapped key keeps that column in descending order. */
  boolean temporal() {
    return evidence.monotonicity() != null && evidence.monotonicity().cause() == Monotonicity.Cause.TEMPORAL;
  }

  /**
   * The evidence as a finding records it: the monotonicity's own evidence and cause, the write rate, the request
   * and (order only) the strategy to opt in to. A new mutable map, in that order.
   */
  Map<String, Object> findingEvidence() {
    Map<String, Object> out = new LinkedHashMap<>();
    Monotonicity mono = evidence.monotonicity();
    if (mono != null) {
      out.putAll(mono.evidence());
      out.put("cause", mono.cause().name());
    }
    if (evidence.fewLeading() != null) {
      out.putAll(evidence.fewLeading().evidence());
    }
    out.put("writeRate", evidence.writeRate().describe());
    if (evidence.requested() != null) {
      out.put("requested", evidence.requested().json());
    }
    if (reason == Reason.ORDER_ONLY) {
      out.put("optIn", optIn().json());
    }
    return out;
  }
}
