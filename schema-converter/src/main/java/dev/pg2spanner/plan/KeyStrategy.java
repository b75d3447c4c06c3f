package dev.pg2spanner.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Objects;

/**
 * How a table's primary key is laid out on Spanner, and why. The parameters that a strategy does not use are null.
 *
 * @param kind the strategy
 * @param reason why it was chosen (policy or the person who edited the plan), one sentence
 * @param sequence BIT_REVERSED: the target sequence name (see {@link SequencePlan}); else null
 * @param shardColumn HASH_SHARD: the added first key column; else null
 * @param shards HASH_SHARD: the number of shards; else null
 * @param shardSource HASH_SHARD: the target columns hashed into the shard (the original key); else null
 * @param keptKeyColumn UUID: the column that keeps the old key values (unique) of a remapped integer key; null when
 *     the key held UUIDs already (its values are kept) or a hand-edited plan remaps without keeping them
 */
@JsonPropertyOrder({"kind", "reason", "sequence", "shardColumn", "shards", "shardSource", "keptKeyColumn"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KeyStrategy(
    Kind kind,
    String reason,
    String sequence,
    String shardColumn,
    Integer shards,
    // Absent means "not used by this kind" (null), unlike the plan's other lists where absent means empty.
    @com.fasterxml.jackson.annotation.JsonSetter(nulls = com.fasterxml.jackson.annotation.Nulls.SET)
    java.util.List<String> shardSource,
    String keptKeyColumn) {

  /** The strategies; serialised in the plan as kebab-case ("bit-reversed"). */
  public enum Kind {
    /** Keep the key as it is (accepted hotspot, or already distributed). */
    KEEP,
    /** Keep INT64 and every value; new ids from a bit-reversed sequence that skips the migrated range. */
    BIT_REVERSED,
    /** Prefix the key with a stored shard column = MOD(hash(key), shards). */
    HASH_SHARD,
    /** A random UUID key; the old key kept as a unique column or remapped consistently. */
    UUID,
    /** Reorder a composite key so a well-distributed column leads. */
    SWAP,
    /** The table has no primary key: a synthetic random key is added. */
    SYNTHETIC;

    @JsonValue
    public String json() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @com.fasterxml.jackson.annotation.JsonCreator
    public static Kind fromJson(String value) {
      for (Kind k : values()) {
        if (k.json().equals(value)) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown key strategy '" + value + "'; use one of keep, bit-reversed, "
          + "hash-shard, uuid, swap, synthetic");
    }
  }

  public KeyStrategy {
    Objects.requireNonNull(kind, "kind");
    shardSource = shardSource == null ? null : java.util.List.copyOf(shardSource);
  }

  public static KeyStrategy keep(String reason) {
    return new KeyStrategy(Kind.KEEP, reason, null, null, null, null, null);
  }

  /** Every existing id kept; new ones from the bit-reversed Spanner sequence {@code sequence}. */
  public static KeyStrategy bitReversed(String reason, String sequence) {
    return new KeyStrategy(Kind.BIT_REVERSED, reason, Objects.requireNonNull(sequence, "sequence"), null, null, null,
        null);
  }

  /** The stored {@code shardColumn} = MOD(hash of {@code shardSource}, {@code shards}) leads the key. */
  public static KeyStrategy hashShard(String reason, String shardColumn, int shards,
      java.util.List<String> shardSource) {
    return new KeyStrategy(Kind.HASH_SHARD, reason, null, Objects.requireNonNull(shardColumn, "shardColumn"), shards,
        Objects.requireNonNull(shardSource, "shardSource"), null);
  }

  /** UUID keys; {@code keptKeyColumn} holds the old key values when an integer key was remapped, else null. */
  public static KeyStrategy uuid(String reason, String keptKeyColumn) {
    return new KeyStrategy(Kind.UUID, reason, null, null, null, null, keptKeyColumn);
  }

  /** A reordered composite key. */
  public static KeyStrategy swap(String reason) {
    return new KeyStrategy(Kind.SWAP, reason, null, null, null, null, null);
  }

  /** A random synthetic key for a table without a usable primary key. */
  public static KeyStrategy synthetic(String reason) {
    return new KeyStrategy(Kind.SYNTHETIC, reason, null, null, null, null, null);
  }

  /** This strategy with another reason. */
  public KeyStrategy withReason(String newReason) {
    return new KeyStrategy(kind, newReason, sequence, shardColumn, shards, shardSource, keptKeyColumn);
  }

  @JsonProperty("kind")
  public Kind kind() {
    return kind;
  }
}
