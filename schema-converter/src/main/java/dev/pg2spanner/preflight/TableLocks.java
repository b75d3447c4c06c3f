package dev.pg2spanner.preflight;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Tables other sessions hold in ACCESS EXCLUSIVE mode (ALTER TABLE, TRUNCATE, DROP, VACUUM FULL, CLUSTER, LOCK
 * TABLE): the one lock mode that blocks reading. The load reads every table and partition and waits only briefly for
 * a lock ({@code lock_timeout}), so {@code check} reports such holders and {@code migrate} waits for them before it
 * touches the target.
 */
public final class TableLocks {

  private TableLocks() {}

  /**
   * A session holding a table.
   *
   * @param relation the locked relation, "schema.name" quoted where needed
   * @param pid the holding backend, or null for a prepared transaction (it holds its locks until
   *     {@code COMMIT PREPARED} or {@code ROLLBACK PREPARED})
   * @param user its role, or null when not visible
   * @param since when its transaction started (ISO-8601), or null when not visible
   * @param query its current or last statement (first 120 characters), or null when not visible to this role
   * @param waiting true when the session waits for the lock rather than holds it (PostgreSQL queues later readers
   *     behind a waiting ACCESS EXCLUSIVE request too)
   */
  public record Holder(String relation, Integer pid, String user, String since, String query, boolean waiting) {
    public Holder {
      Objects.requireNonNull(relation, "relation");
    }

    public Holder(String relation, Integer pid, String user, String since, String query) {
      this(relation, pid, user, since, query, false);
    }

    /** "public.t (pid 123, user bob, transaction since 2024-05-01 10:15:30+00: ALTER TABLE ...)". */
    public String describe() {
      if (pid == null) {
        return relation + " (a prepared transaction: see pg_prepared_xacts)";
      }
      return relation + " (pid " + pid + (user == null ? "" : ", user " + user)
          + (since == null ? "" : ", transaction since " + since) + (waiting ? ", waiting for the lock" : "")
          + (query == null ? "" : ": " + query) + ")";
    }
  }

  /**
   * Sessions that hold or wait for an ACCESS EXCLUSIVE lock on {@code relation} (the one mode that blocks reading,
   * and PostgreSQL queues new readers behind a waiting request as well): who blocks a reader of it, as far as
   * PostgreSQL can tell ({@code pg_locks}, the way {@code pg_blocking_pids} decides). Holders first.
   *
   * @param relation "schema.name", unquoted
   */
  public static List<Holder> onRelation(Connection c, String relation) throws SQLException {
    int dot = relation.indexOf('.');
    String sql = "SELECT format('%I.%I', n.nspname, k.relname) AS relation_name, l.pid, l.granted, "
        + "a.usename::text AS usr, "
        + "to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || ' UTC' AS since, "
        + "left(regexp_replace(a.query, '\\s+', ' ', 'g'), 120) AS query "
        + "FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace "
        + "JOIN pg_catalog.pg_locks l ON l.locktype = 'relation' AND l.relation = k.oid "
        + "LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid "
        + "WHERE n.nspname = ? AND k.relname = ? AND l.mode = 'AccessExclusiveLock' "
        + "AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid() ORDER BY l.granted DESC, l.pid";
    List<Holder> holders = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, relation.substring(0, dot));
      ps.setString(2, relation.substring(dot + 1));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String query = rs.getString("query");
          holders.add(new Holder(rs.getString("relation_name"), (Integer) rs.getObject("pid"), rs.getString("usr"),
              rs.getString("since"), query == null || query.startsWith("<insufficient") ? null : query,
              !rs.getBoolean("granted")));
        }
      }
    }
    return holders;
  }

  /**
   * Granted ACCESS EXCLUSIVE locks of other sessions on the tables (and their partitions).
   *
   * @param tables the planned tables, "schema.name" unquoted; null for every table in the user schemas
   */
  public static List<Holder> exclusive(Connection c, List<String> tables) throws SQLException {
    String sql = "WITH RECURSIVE tree(oid) AS ("
        + "SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE c.relkind IN ('r', 'p', 'm', 'f') AND NOT c.relispartition AND "
        + SourcePreflight.SYSTEM_SCHEMA_FILTER
        + (tables == null ? "" : " AND n.nspname || '.' || c.relname = ANY (?)")
        + " UNION ALL SELECT i.inhrelid FROM tree t JOIN pg_catalog.pg_inherits i ON i.inhparent = t.oid "
        + "JOIN pg_catalog.pg_class k ON k.oid = i.inhrelid WHERE k.relispartition) "
        + "SELECT format('%I.%I', n.nspname, c.relname) AS relation_name, l.pid, a.usename::text AS usr, "
        + "to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || ' UTC' AS since, "
        + "left(regexp_replace(a.query, '\\s+', ' ', 'g'), 120) AS query "
        + "FROM pg_catalog.pg_locks l JOIN tree t ON t.oid = l.relation "
        + "JOIN pg_catalog.pg_class c ON c.oid = l.relation JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid "
        + "WHERE l.locktype = 'relation' AND l.granted AND l.mode = 'AccessExclusiveLock' "
        + "AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()) "
        + "AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid() ORDER BY 1, 2";
    List<Holder> holders = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (tables != null) {
        ps.setArray(1, c.createArrayOf("text", tables.toArray()));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String query = rs.getString("query");
          holders.add(new Holder(rs.getString("relation_name"), (Integer) rs.getObject("pid"), rs.getString("usr"),
              rs.getString("since"), query == null || query.startsWith("<insufficient") ? null : query));
        }
      }
    }
    return holders;
  }
}
