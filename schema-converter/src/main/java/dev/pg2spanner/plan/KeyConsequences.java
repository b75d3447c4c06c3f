package dev.pg2spanner.plan;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What each key strategy changes for an application, written once per strategy: the ordering of new ids
 * (bit-reversed; for ids the application makes itself, also how it must make them), the shard predicate on reads (hash-shard), what to stop generating (uuid on UUID keys), the UUID
 * typing and the lookup by old id (uuid on integer keys), the lookups and range scans after a reordering (swap), and
 * what the added key is not (synthetic). A key kept as in PostgreSQL changes nothing, so keep has no text.
 *
 * <p>Three texts show this sentence, each framing it without rewording it: the planner's finding prefixes it with
 * "Application-visible: " ({@link #inFinding}); report.md's key line puts its bold title and what the key becomes
 * (the sequence and its skip range, the shard expression) in front of it; the list of application-visible changes
 * puts a title and a short layout in front of it. What the key becomes stays with each rendering because each shows
 * it at its own level of detail; what the application must change is only here. Names and expressions arrive
 * formatted for the caller's output (report.md escapes them first); nothing here escapes or adds markup.
 */
public final class KeyConsequences {

  private KeyConsequences() {}

  /** The consequence as the planner's finding states it, after it says what the plan does. */
  public static String inFinding(String consequence) {
    return "Application-visible: " + consequence;
  }

  /**
   * The consequence of {@code t}'s key strategy, as the reports show it.
   *
   * @param plan the plan {@code t} is part of (its sequences tell ids the application makes from a sequence's)
   * @param name formats a plan name (column) for the caller's output, e.g. report.md's escaping
   * @return empty for a kept key, which changes nothing for the application
   */
  public static Optional<String> of(Plan plan, TablePlan t, UnaryOperator<String> name) {
    KeyStrategy s = t.keyStrategy();
    String first = name.apply(t.primaryKey().isEmpty() ? "?" : t.primaryKey().get(0).column());
    return Optional.ofNullable(switch (s.kind()) {
      case KEEP -> null;
      case BIT_REVERSED -> replacesApplicationIds(plan, t) ? bitReversedOwnIds(first) : bitReversed(first);
      case HASH_SHARD -> hashShard(name.apply(hashedColumns(s.shardSource())),
          name.apply(String.valueOf(s.shardColumn())), s.shards());
      case UUID -> uuidRemapped(t) ? uuidRemap(first, s.keptKeyColumn() == null ? null
          : name.apply(s.keptKeyColumn())) : uuidNewRows(first);
      case SWAP -> swap(first);
      case SYNTHETIC -> synthetic(first);
    });
  }

  /**
   * Whether {@code t}'s uuid strategy replaced integer key values by UUIDs derived from them (so applications hold
   * ids that changed), rather than keeping UUID values and changing only new rows.
   */
  public static boolean uuidRemapped(TablePlan t) {
    return t.keyStrategy().keptKeyColumn() != null || !t.primaryKey().isEmpty()
        && t.column(t.primaryKey().get(0).column()).map(c -> c.conversion() == ValueConversion.KEY_UUID)
            .orElse(false);
  }

  /**
   * Whether {@code t}'s bit-reversed sequence replaces ids the application made (no PostgreSQL sequence fed the key:
   * the plan's sequence has no source), rather than a PostgreSQL sequence.
   */
  public static boolean replacesApplicationIds(Plan plan, TablePlan t) {
    return t.keyStrategy().kind() == KeyStrategy.Kind.BIT_REVERSED && plan.sequences().stream()
        .anyMatch(q -> q.target().equals(t.keyStrategy().sequence()) && q.source() == null);
  }

  /** What a shard column is computed from: the strategy's source columns, or "the key" when the plan omits them. */
  public static String hashedColumns(List<String> shardSource) {
    return shardSource == null ? "the key" : String.join(", ", shardSource);
  }

  /** Bit-reversed: new ids from a sequence that spreads them, existing ids kept. */
  public static String bitReversed(String keyColumn) {
    return "New ids are no longer ordered or dense: ORDER BY " + keyColumn + " no longer means creation order and "
        + "MAX(" + keyColumn + ") is no longer the newest row, so code that relies on either must use a timestamp "
        + "instead.";
  }

  /**
   * Bit-reversed on 64-bit ids the application makes itself (Snowflake-style, with the time in the top bits): the
   * application must change how it makes them.
   */
  public static String bitReversedOwnIds(String keyColumn) {
    return "The application makes these ids itself and must change how: stop making them and omit " + keyColumn
        + " on insert (the sequence fills it), or bit-reverse each id it makes before writing it (reverse the 64 bits "
        + "and shift right by one, as a bit_reversed_positive sequence does); ids already handed out stay valid. "
        + "Either way new ids are no longer ordered by time: ORDER BY " + keyColumn + " no longer means creation "
        + "order, MAX(" + keyColumn + ") is no longer the newest row, and code that reads the creation time out of "
        + "an id must use a timestamp instead.";
  }

  /** Hash-shard: a stored shard column computed from {@code hashed} leads the key. */
  public static String hashShard(String hashed, String shardColumn, Integer shards) {
    return "Inserts do not change (Spanner computes " + shardColumn + "); reads by " + hashed + " must add the shard "
        + "predicate (" + shardColumn + " = MOD(ABS(FARM_FINGERPRINT(...)), " + shards + ")) or scan all " + shards
        + " shards, and range scans over " + hashed + " touch all " + shards + " shards (a " + shards + "-way "
        + "merge in key order).";
  }

  /** Uuid on a key that already holds UUIDs: every value kept, new rows get random ones from the default. */
  public static String uuidNewRows(String keyColumn) {
    return "Stop generating time-ordered UUIDs (v1/v6/v7) for new rows: omit " + keyColumn + " and let Spanner's "
        + "default fill it, or generate random (v4) UUIDs.";
  }

  /**
   * Uuid on an integer key: its values, and every copy of them, become UUIDs derived from the old ids.
   *
   * @param keptKeyColumn the column that keeps the old ids, or null when the plan keeps none
   */
  public static String uuidRemap(String keyColumn, String keptKeyColumn) {
    return keyColumn + " and the columns that reference it hold UUID text now: code that parses or orders ids as "
        + "numbers must change, and " + (keptKeyColumn == null
            ? "applications that hold old ids must translate them."
            : "code that looks rows up by an old id must use " + keptKeyColumn + ", which keeps the old key values "
                + "(unique).");
  }

  /** Swap: {@code newLead} now leads the key, the column that led it follows. */
  public static String swap(String newLead) {
    return "Lookups must supply " + newLead + "; range scans by the old leading column alone become full scans "
        + "(they now need " + newLead + " too, or an index on that column).";
  }

  /** Synthetic: a random key the plan adds to a table that has no usable one. */
  public static String synthetic(String keyColumn) {
    return "The application never writes " + keyColumn + " and should not treat it as a business identifier; "
        + "duplicate rows in the source stay duplicates.";
  }
}
