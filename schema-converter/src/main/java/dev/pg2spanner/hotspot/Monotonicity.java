package dev.pg2spanner.hotspot;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Evidence that a column's new values grow (or shrink) with time, so that rows keyed by it are all inserted at
 * one end of the key space.
 *
 * @param column the source column
 * @param cause which rule found it
 * @param descending true when values shrink (a descending sequence, negative correlation)
 * @param evidence the facts, for the plan and the report
 * @param explanation one sentence: why this column's values arrive in order
 * @param layout TIME_ENCODED_ID: how the ids carry their time; else null
 */
public record Monotonicity(String column, Cause cause, boolean descending, Map<String, Object> evidence,
    String explanation, IdLayout layout) {

  /** The rules, strongest evidence first. */
  public enum Cause {
    SEQUENCE, TEMPORAL, TIME_ORDERED_UUID,
    /** Ids the application makes with their creation time in them, decoded and shown to follow insertion order. */
    TIME_ENCODED_ID,
    TIME_PREFIXED_TEXT, CORRELATED_VALUES
  }

  public Monotonicity {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(cause, "cause");
    evidence = Map.copyOf(new TreeMap<>(evidence));
    Objects.requireNonNull(explanation, "explanation");
    if ((cause == Cause.TIME_ENCODED_ID) != (layout != null)) {
      throw new IllegalArgumentException("a layout goes with TIME_ENCODED_ID and only with it, not with " + cause);
    }
  }

  /** Evidence of any cause but TIME_ENCODED_ID, which has no layout. */
  public Monotonicity(String column, Cause cause, boolean descending, Map<String, Object> evidence,
      String explanation) {
    this(column, cause, descending, evidence, explanation, null);
  }

  /**
   * True when the only evidence is the order the values are stored in ({@code pg_stats.correlation} and ordered
   * sampled neighbours): no sequence, identity, time default, temporal type or time-ordered UUID generates them. A
   * natural or externally assigned key that was bulk-loaded in order (product codes, device ids assigned by another
   * system, invoice numbers) looks exactly the same, so such evidence alone does not justify changing a key.
   */
  public boolean orderOnly() {
    return cause == Cause.CORRELATED_VALUES || cause == Cause.TIME_PREFIXED_TEXT;
  }
}
