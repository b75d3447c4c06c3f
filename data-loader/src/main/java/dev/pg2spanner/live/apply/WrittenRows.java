package dev.pg2spanner.live.apply;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Value;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rows of tables found by content (no primary key, or a replica identity that does not hold the key) that the
 * applier wrote since Spanner last held everything it applied: by Spanner key, the row's identity columns as last
 * written (canonical form), or deleted. A lookup by content consults them first and skips the Spanner rows they
 * override, so it need not commit what waits and wait for the commit before every query — which held a busy keyless
 * table to one change per commit. Cleared whenever Spanner holds everything applied ({@link ChangeApplier#flush}).
 *
 * <p>A table whose write could not be recorded whole (a value the change did not carry) is no longer tracked until the
 * next clear: its lookups then commit and wait first, as before. Used by the stream's thread only.
 */
final class WrittenRows {

  /** One written row: the value of its first identifying column, and its identity columns (null: deleted). */
  private record Row(Value rowKey, Map<String, String> identity) {}

  /** A row found among the written ones: its key and the value of its first identifying column. */
  record Found(Key key, Value rowKey) {}

  private final Map<String, Map<Key, Row>> byTable = new HashMap<>();
  /**
   * By table, the keys of the written rows that hold each whole identity: a lookup that names every identity column
   * is answered here at once instead of by comparing every written row (which took most of a keyless table's apply
   * time once thousands were remembered).
   */
  private final Map<String, Map<Map<String, String>, java.util.LinkedHashSet<Key>>> byIdentity = new HashMap<>();
  private final Set<String> untracked = new HashSet<>();
  private int size;
  private long generation;

  /** True when every write to {@code table} since the last clear is known here. */
  boolean tracks(String table) {
    return !untracked.contains(table);
  }

  /** A row written whole: its identity columns' canonical values by column (null when not all are known). */
  void wrote(String table, Key key, Value rowKey, Map<String, String> identity) {
    if (identity == null) {
      untracked.add(table);
      return;
    }
    put(table, key, new Row(rowKey, Map.copyOf(identity)));
  }

  void deleted(String table, Key key) {
    put(table, key, new Row(null, null));
  }

  /** The table changed in a way not recorded row by row (a TRUNCATE): its lookups commit and wait first. */
  void untrack(String table) {
    untracked.add(table);
  }

  private void put(String table, Key key, Row row) {
    Row before = byTable.computeIfAbsent(table, t -> new HashMap<>()).put(key, row);
    if (before == null) {
      size++;
    }
    Map<Map<String, String>, java.util.LinkedHashSet<Key>> keys = byIdentity.computeIfAbsent(table,
        t -> new HashMap<>());
    if (before != null && before.identity() != null) {
      java.util.LinkedHashSet<Key> same = keys.get(before.identity());
      same.remove(key);
      if (same.isEmpty()) {
        keys.remove(before.identity());
      }
    }
    if (row.identity() != null) {
      keys.computeIfAbsent(row.identity(), i -> new java.util.LinkedHashSet<>()).add(key);
    }
  }

  /** True when a row of this key was written or deleted here (its Spanner state is stale). */
  boolean knows(String table, Key key) {
    Map<Key, Row> rows = byTable.get(table);
    return rows != null && rows.containsKey(key);
  }

  /** A written row whose identity columns {@code names} hold {@code canonical}, or null. */
  Found match(String table, List<String> names, List<String> canonical) {
    Map<Key, Row> rows = byTable.get(table);
    if (rows == null) {
      return null;
    }
    Map<String, String> wanted = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      wanted.put(names.get(i), canonical.get(i));
    }
    Map<Map<String, String>, java.util.LinkedHashSet<Key>> identities = byIdentity.get(table);
    if (!identities.isEmpty() && identities.keySet().iterator().next().keySet().equals(wanted.keySet())) {
      // Every identity column named (the identities of one table all have the same columns): an exact look-up.
      java.util.LinkedHashSet<Key> keys = identities.get(wanted);
      if (keys == null) {
        return null;
      }
      Key key = keys.iterator().next();
      return new Found(key, rows.get(key).rowKey());
    }
    for (Map.Entry<Key, Row> e : rows.entrySet()) {
      Map<String, String> identity = e.getValue().identity();
      if (identity == null) {
        continue;
      }
      boolean equal = true;
      for (int i = 0; i < names.size() && equal; i++) {
        equal = canonical.get(i).equals(identity.get(names.get(i)));
      }
      if (equal) {
        return new Found(e.getKey(), e.getValue().rowKey());
      }
    }
    return null;
  }

  int size() {
    return size;
  }

  /** Counts the clears: what was read from Spanner before the last clear is not corrected by what is known here. */
  long generation() {
    return generation;
  }

  void clear() {
    byTable.clear();
    byIdentity.clear();
    untracked.clear();
    size = 0;
    generation++;
  }
}
