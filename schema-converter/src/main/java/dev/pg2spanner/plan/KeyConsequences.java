package dev.pg2spanner.plan;

import java.util.List;

/**
 * What each key strategy changes for an application, in one place for every text that explains it: the planner's
 * finding (its "Application-visible" sentence), report.md's key line and the report's list of application-visible
 * changes. A change to what a strategy means for an application is made here, kind by kind.
 *
 * <p>The three texts are worded differently (a finding explains a decision, the report states the layout, the
 * changes list is a checklist) and plan.yaml and the reports are compared byte for byte, so the wording stays as
 * it was; only the phrases they truly share are written once. Names and expressions arrive formatted for the
 * caller's output (report.md escapes them first); nothing here escapes or adds markup.
 */
public final class KeyConsequences {

  /**
   * One consequence: a short title and the text that follows it. report.md sets the title in bold and appends the
   * detail as it is (so the detail starts with its own punctuation); the changes list shows the two as a pair.
   */
  public record Consequence(String title, String detail) {}

  private KeyConsequences() {}

  // KEEP

  /** report.md: the key as it was. */
  public static Consequence keepInReport(String key) {
    return new Consequence("Key kept", ": (" + key + "), as in PostgreSQL.");
  }

  // BIT_REVERSED

  /** The planner's finding, after it says what the plan does to {@code keyColumn}. */
  public static String bitReversedInFinding(String keyColumn) {
    return "Application-visible: new ids are no longer ordered or dense, so ORDER BY " + keyColumn + " no longer "
        + "means creation order.";
  }

  /**
   * report.md.
   *
   * @param skipRange the sequence's skip range as "min–max", or null when the plan lists no such sequence
   */
  public static Consequence bitReversedInReport(String keyColumn, String sequence, String skipRange) {
    String skip = skipRange == null ? "" : ", which skips " + skipRange + " (the migrated range) so that no new id "
        + "collides with an existing one";
    return new Consequence("Key: bit-reversed sequence.", " Every existing " + keyColumn + " is kept; new rows take "
        + "ids from the Spanner sequence " + sequence + skip + ". New ids are no longer ordered: code that sorts by "
        + keyColumn + " to get insertion order, or reads MAX(" + keyColumn + "), must use a timestamp instead.");
  }

  /** The application-visible changes list. */
  public static Consequence bitReversedForApplication(String keyColumn, String sequence) {
    return new Consequence("New ids come from a bit-reversed sequence", sequence + ": existing ids are kept, new "
        + "ones are no longer ordered; code that sorts by " + keyColumn + " for insertion order or reads MAX("
        + keyColumn + ") must use a timestamp.");
  }

  // HASH_SHARD

  /** What a shard column is computed from: the strategy's source columns, or "the key" when the plan omits them. */
  public static String hashedColumns(List<String> shardSource) {
    return shardSource == null ? "the key" : String.join(", ", shardSource);
  }

  /** The planner's finding, after it says what the plan adds in front of the key ({@code keyList}). */
  public static String hashShardInFinding(String keyList, String shardColumn, int shards) {
    return "Application-visible: reads by " + keyList + " must add the shard predicate (" + shardColumn + " = MOD(ABS("
        + "FARM_FINGERPRINT(...)), " + shards + ")) or scan all " + shards + " shards, and range scans in key order "
        + "become " + shards + "-way merges.";
  }

  /**
   * report.md.
   *
   * @param expression " = " and the shard column's expression, or "" when the plan has no such column
   */
  public static Consequence hashShardInReport(String key, String shardColumn, String expression, String hashed,
      Integer shards) {
    return new Consequence("Key: hash-sharded", " into " + shards + " shards: the key becomes (" + key + "), where "
        + shardColumn + expression + " is a stored generated column computed from " + hashed + ". Inserts do not "
        + "change (Spanner computes the shard). Reads by " + hashed + " must add the shard predicate ("
        + shardColumn + " = the same expression) or they scan every shard; range scans over " + hashed
        + " now touch all " + shards + " shards.");
  }

  /** The application-visible changes list. */
  public static Consequence hashShardForApplication(String key, Integer shards, String hashed, String shardColumn) {
    return new Consequence("Hash-sharded key", "(" + key + ") in " + shards + " shards: inserts do not change; reads "
        + "by " + hashed + " must add the shard predicate on " + shardColumn + " or scan every shard.");
  }

  // UUID

  /** The planner's finding for a UUID key whose values are kept: only new rows change. */
  public static String uuidNewRowsInFinding() {
    return "Application-visible: stop generating time-ordered UUIDs (v1/v6/v7) for new rows; omit the key and let "
        + "Spanner's default fill it, or generate v4 UUIDs.";
  }

  /** The planner's finding for an integer key remapped to UUIDs, its old values kept in {@code keptKeyColumn}. */
  public static String uuidRemapInFinding(String keyColumn, String keptKeyColumn) {
    return "Application-visible: " + keyColumn + " and the columns that reference it are STRING(36) now; code that "
        + "parses or orders ids as numbers must change, and lookups by an old id go through " + keptKeyColumn + ".";
  }

  /** report.md; {@code keptKeyColumn} is null when the old key values are not kept. */
  public static Consequence uuidInReport(String keyColumn, String keptKeyColumn) {
    return new Consequence("Key: random UUID", " in " + keyColumn + ", so new rows spread over every split. "
        + (keptKeyColumn == null
            ? "Existing keys are remapped consistently in every referencing column: applications that hold old "
                + "ids must translate them."
            : "The old key values stay in " + keptKeyColumn + " (unique): code that looks rows up by the old id "
                + "must use that column."));
  }

  /** The application-visible changes list; {@code keptKeyColumn} is null when the old key values are not kept. */
  public static Consequence uuidForApplication(String keyColumn, String keptKeyColumn) {
    return new Consequence("Random UUID key", "in " + keyColumn + ": " + (keptKeyColumn == null
        ? "existing keys are remapped in every referencing column; applications holding old ids must translate "
            + "them."
        : "the old key values stay in " + keptKeyColumn + "; look rows up by the old id there."));
  }

  // SWAP

  /** The planner's finding: range scans by the column that led the key. */
  public static String swapInFinding(String oldLead, String newLead) {
    return "Application-visible: range scans by " + oldLead + " alone now need " + newLead + " (or an index on "
        + oldLead + ").";
  }

  /** report.md. */
  public static Consequence swapInReport(String key, String newLead) {
    return new Consequence("Key reordered", " to (" + key + ") so that a well-distributed column leads. Lookups "
        + swapLookups(newLead));
  }

  /** The application-visible changes list. */
  public static Consequence swapForApplication(String key, String newLead) {
    return new Consequence("Key reordered", "to (" + key + "): lookups " + swapLookups(newLead));
  }

  private static String swapLookups(String newLead) {
    return "must supply " + newLead + "; range scans by the old leading column alone become full scans.";
  }

  // SYNTHETIC

  /** report.md; {@code type} is " (TYPE...)" or "". */
  public static Consequence syntheticInReport(String keyColumn, String type) {
    return new Consequence("Key added", ": the source table has no primary key and Spanner needs one, so the plan "
        + "adds " + keyColumn + type + ". The application never writes it and should not treat it as a business "
        + "identifier; duplicate rows in the source stay duplicates.");
  }

  /** The application-visible changes list. */
  public static Consequence syntheticForApplication(String keyColumn) {
    return new Consequence("Key added", keyColumn + ", which the application never writes and should not treat as a "
        + "business identifier.");
  }
}
