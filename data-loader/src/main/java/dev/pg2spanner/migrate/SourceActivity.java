package dev.pg2spanner.migrate;

import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.SourceConnector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Did the source take writes after the load's snapshot? A non-live migrate copies the snapshot, so anything written
 * later is not in the target, and verify (which compares against the same snapshot) cannot see it. The cheap evidence
 * is PostgreSQL's per-table statistics counters ({@code n_tup_ins}, {@code n_tup_upd}, {@code n_tup_del} in
 * {@code pg_stat_all_tables}, partitions summed into their planned table), read just before the snapshot and again
 * at the end. They count rows written by transactions that rolled back too, and a backend reports them when its
 * transaction ends and it goes idle (up to some seconds later), so they are evidence, not an exact diff.
 */
final class SourceActivity {

  /**
   * Counters per planned table ("schema.name"): inserted, updated, deleted rows since the statistics were reset.
   *
   * @param tables the counters, in plan order
   */
  record Counters(Map<String, long[]> tables) {}

  /**
   * What changed in one planned table between two readings.
   *
   * @param table the planned table, "schema.name"
   */
  record Change(String table, long inserted, long updated, long deleted) {
    String describe() {
      List<String> parts = new ArrayList<>();
      if (inserted > 0) {
        parts.add(String.format(Locale.ROOT, "%,d inserted", inserted));
      }
      if (updated > 0) {
        parts.add(String.format(Locale.ROOT, "%,d updated", updated));
      }
      if (deleted > 0) {
        parts.add(String.format(Locale.ROOT, "%,d deleted", deleted));
      }
      return table + " (" + String.join(", ", parts) + ")";
    }
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SourceActivity.class);
  private static final int NAMES_SHOWN = 10;

  private SourceActivity() {}

  /**
   * The counters now, on a connection of its own; null when they cannot be read (the check is evidence, never a
   * reason to fail a migration).
   */
  static Counters read(SourceConnector source, Plan plan) {
    String sql = "WITH RECURSIVE planned(oid, planned_name) AS ("
        + "SELECT c.oid, n.nspname || '.' || c.relname FROM pg_catalog.pg_class c "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname || '.' || c.relname = ANY (?) "
        + "UNION ALL SELECT i.inhrelid, p.planned_name FROM planned p "
        + "JOIN pg_catalog.pg_inherits i ON i.inhparent = p.oid "
        + "JOIN pg_catalog.pg_class k ON k.oid = i.inhrelid WHERE k.relispartition) "
        + "SELECT p.planned_name, coalesce(sum(s.n_tup_ins), 0) AS inserted, coalesce(sum(s.n_tup_upd), 0) AS updated, "
        + "coalesce(sum(s.n_tup_del), 0) AS deleted FROM planned p "
        + "LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid = p.oid GROUP BY p.planned_name";
    List<String> tables = plan.tables().stream().map(TablePlan::source).toList();
    try (Connection c = source.open()) {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        // Statistics are cached for the rest of a transaction; each reading must see the latest.
        s.execute("SELECT pg_catalog.pg_stat_clear_snapshot()");
      }
      Map<String, long[]> counters = new LinkedHashMap<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, c.createArrayOf("text", tables.toArray()));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            counters.put(rs.getString("planned_name"), new long[] {rs.getLong("inserted"), rs.getLong("updated"),
                rs.getLong("deleted")});
          }
        }
      }
      Map<String, long[]> ordered = new LinkedHashMap<>();
      tables.forEach(t -> ordered.put(t, counters.getOrDefault(t, new long[3])));
      return new Counters(ordered);
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Cannot read the source's statistics counters ({}); migrate cannot tell whether the source took "
          + "writes after the load's snapshot", e.toString());
      return null;
    }
  }

  /** The tables whose counters grew from {@code before} to {@code after}; empty when either is unknown. */
  static List<Change> since(Counters before, Counters after) {
    List<Change> changes = new ArrayList<>();
    if (before == null || after == null) {
      return changes;
    }
    for (Map.Entry<String, long[]> e : after.tables().entrySet()) {
      long[] was = before.tables().get(e.getKey());
      long[] now = e.getValue();
      if (was == null) {
        continue;
      }
      // A counter that went down was reset (pg_stat_reset): nothing can be told for that table.
      long inserted = Math.max(0, now[0] - was[0]);
      long updated = Math.max(0, now[1] - was[1]);
      long deleted = Math.max(0, now[2] - was[2]);
      if (inserted + updated + deleted > 0) {
        changes.add(new Change(e.getKey(), inserted, updated, deleted));
      }
    }
    return changes;
  }

  /** The warning a non-live migrate ends with when the source took writes after its snapshot. */
  static String warning(List<Change> changes, String snapshotTakenAt) {
    List<String> named = changes.stream().map(Change::describe).toList();
    return "the source took writes after the load's snapshot (" + snapshotTakenAt + "), so the target holds the "
        + "source as it was then, without them: " + String.join(", ", named.subList(0, Math.min(NAMES_SHOWN,
        named.size()))) + (named.size() > NAMES_SHOWN ? " and " + (named.size() - NAMES_SHOWN) + " more table(s)" : "")
        + " (PostgreSQL's statistics counters, which count rolled-back writes too). verify compared the snapshot, so "
        + "it could not see them. Stop the application's writes and migrate again into a new database, or use "
        + "migrate --live, which streams the writes made after the snapshot until cutover.";
  }
}
