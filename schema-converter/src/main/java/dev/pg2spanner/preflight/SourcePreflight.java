package dev.pg2spanner.preflight;

import dev.pg2spanner.error.ExitCode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code pg2spanner check} verifies on the source before {@code plan} and {@code migrate}: the server
 * version, that the catalog and statistics can be read, that every table (and partition) can be selected and every
 * row is visible to this role ({@link RowVisibility}), that a snapshot can be exported (so all readers see one
 * consistent copy), settings that would kill a long consistent read, and tables other sessions hold locked.
 */
public final class SourcePreflight {

  /** Schemas that are never migrated. */
  static final String SYSTEM_SCHEMA_FILTER =
      "n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg\\_temp\\_%' "
          + "AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%'";

  private static final int MIN_VERSION_NUM = 110000;
  private static final int NAMES_SHOWN = 10;

  private SourcePreflight() {}

  public static List<CheckResult> run(Connection c) throws SQLException {
    List<CheckResult> results = new ArrayList<>();
    results.add(version(c));
    results.add(identity(c));
    results.add(catalog(c));
    RowVisibility.Report visibility = RowVisibility.read(c, null);
    results.add(tablePrivileges(visibility));
    results.add(rowVisibility(visibility));
    results.add(sequencePrivileges(c));
    results.add(snapshotExport(c));
    results.add(locks(TableLocks.exclusive(c, null)));
    results.addAll(longReadSettings(c));
    results.add(statistics(c));
    return List.copyOf(results);
  }

  private static CheckResult version(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int AS num, "
            + "current_setting('server_version') AS version")) {
      rs.next();
      int num = rs.getInt("num");
      String version = rs.getString("version");
      if (num < MIN_VERSION_NUM) {
        return CheckResult.fail("server version", "PostgreSQL " + version
            + " is older than 11, which pg2spanner does not read; upgrade, or migrate from a newer replica",
            ExitCode.SOURCE_CONNECTION);
      }
      return CheckResult.ok("server version", "PostgreSQL " + version);
    }
  }

  private static CheckResult identity(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_user AS usr, current_database() AS db, "
            + "pg_is_in_recovery() AS standby, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS su")) {
      rs.next();
      String detail = "user " + rs.getString("usr") + " on database " + rs.getString("db")
          + (rs.getBoolean("su") ? " (superuser)" : "")
          + (rs.getBoolean("standby") ? "; the server is a standby (reading from a replica is fine)" : "");
      return CheckResult.info("connected as", detail);
    }
  }

  private static CheckResult catalog(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
            + "ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') AND " + SYSTEM_SCHEMA_FILTER + ") AS tables, "
            + "(SELECT count(*) FROM pg_catalog.pg_stats) AS stats")) {
      rs.next();
      return CheckResult.ok("catalog readable", rs.getLong("tables") + " tables in user schemas; pg_stats readable ("
          + rs.getLong("stats") + " column statistics visible to this role)");
    } catch (SQLException e) {
      return CheckResult.fail("catalog readable", "reading pg_catalog failed (" + e.getMessage()
          + "); plan needs read access to pg_catalog", ExitCode.SOURCE_PRIVILEGES);
    }
  }

  private static CheckResult tablePrivileges(RowVisibility.Report visibility) {
    List<String> missing = visibility.unreadable().stream()
        .map(r -> r.where() + (r.problem() == RowVisibility.Problem.NO_SCHEMA_USAGE ? " (no USAGE on its schema)" : ""))
        .distinct().toList();
    if (missing.isEmpty()) {
      return CheckResult.ok("SELECT on every table", "this role can read every table"
          + (visibility.role().superuser() ? " (superuser)" : " and partition"));
    }
    return CheckResult.fail("SELECT on every table", "this role cannot SELECT " + missing.size() + " table(s): "
        + shortList(missing) + ". Run GRANT SELECT ON <table> TO <role> (or GRANT pg_read_all_data TO <role>); "
        + "migrate reads each partition directly, so a partitioned table needs it on its partitions too. Or leave "
        + "the tables out with --exclude-tables", ExitCode.SOURCE_PRIVILEGES);
  }

  /** Row-level security returns fewer rows without an error: every table it filters fails the check. */
  private static CheckResult rowVisibility(RowVisibility.Report visibility) {
    List<RowVisibility.Restriction> filtered = visibility.filtered();
    RowVisibility.Role role = visibility.role();
    if (filtered.isEmpty()) {
      return CheckResult.ok("every row visible", role.superuser() ? "superuser: row-level security never applies"
          : role.bypassRls() ? "BYPASSRLS: row-level security never applies to this role"
          : "no row-level security policy filters the tables this role reads");
    }
    List<String> described = filtered.stream().map(RowVisibility.Restriction::describe).toList();
    return CheckResult.fail("every row visible", "row-level security hides rows of "
        + visibility.filteredTables().size() + " table(s) from " + role.name() + ", so migrate would copy only "
        + "the rows it can see: " + String.join("; ", described.subList(0, Math.min(NAMES_SHOWN, described.size())))
        + (described.size() > NAMES_SHOWN ? " and " + (described.size() - NAMES_SHOWN) + " more" : "") + ". "
        + capitalise(visibility.advice()) + "; or accept a copy of only the visible rows with migrate "
        + "--accept-filtered-copy", ExitCode.SOURCE_PRIVILEGES);
  }

  private static CheckResult sequencePrivileges(Connection c) throws SQLException {
    String sql = "SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_catalog.pg_class c "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'S' AND " + SYSTEM_SCHEMA_FILTER
        + " AND CASE WHEN c.relkind = 'S' THEN NOT has_sequence_privilege(c.oid, 'SELECT') ELSE false END ORDER BY 1";
    List<String> missing = names(c, sql);
    if (missing.isEmpty()) {
      return CheckResult.ok("sequences readable", "this role can read every sequence's position");
    }
    return CheckResult.warn("sequences readable", missing.size() + " sequence(s) cannot be read: "
        + shortList(missing) + ". plan then sizes skip ranges from the table's max key instead; "
        + "GRANT SELECT ON SEQUENCE <name> TO <role> to use the sequence position");
  }

  private static CheckResult snapshotExport(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    try {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_export_snapshot() AS id")) {
        rs.next();
        return CheckResult.ok("snapshot export", "pg_export_snapshot() works: parallel readers can share one "
            + "consistent snapshot");
      } catch (SQLException e) {
        return CheckResult.fail("snapshot export", "pg_export_snapshot() failed (" + e.getMessage()
            + "); migrate needs it for a consistent parallel copy", ExitCode.SOURCE_PRIVILEGES);
      } finally {
        c.rollback();
      }
    } finally {
      c.setAutoCommit(autoCommit);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }
  }

  private static CheckResult locks(List<TableLocks.Holder> holders) {
    if (holders.isEmpty()) {
      return CheckResult.ok("table locks", "no other session holds a table locked against reading");
    }
    List<String> described = holders.stream().map(TableLocks.Holder::describe).toList();
    return CheckResult.warn("table locks", holders.size() + " table(s) are locked ACCESS EXCLUSIVE by another "
        + "session, which blocks every read of them: " + shortList(described) + ". migrate waits a few seconds "
        + "for such a lock, then stops before touching the target; let the holder finish (or end it with "
        + "pg_cancel_backend(pid)) first");
  }

  private static List<CheckResult> longReadSettings(Connection c) throws SQLException {
    List<CheckResult> results = new ArrayList<>();
    String sql = "SELECT name, setting, unit FROM pg_catalog.pg_settings WHERE name IN "
        + "('statement_timeout', 'idle_in_transaction_session_timeout', 'old_snapshot_threshold', "
        + "'default_transaction_read_only')";
    boolean timeouts = false;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        String name = rs.getString("name");
        String setting = rs.getString("setting");
        String unit = rs.getString("unit") == null ? "" : rs.getString("unit");
        switch (name) {
          case "statement_timeout", "idle_in_transaction_session_timeout" -> {
            if (!"0".equals(setting)) {
              timeouts = true;
              results.add(CheckResult.warn(name, name + " = " + setting + unit + " for this role: a long table read or "
                  + "the snapshot-holding transaction may be cancelled mid-load. migrate sets it to 0 for its own "
                  + "sessions; if a pooler or proxy enforces a limit, raise it there"));
            }
          }
          case "old_snapshot_threshold" -> {
            if (!"-1".equals(setting)) {
              results.add(CheckResult.warn(name, "old_snapshot_threshold = " + setting + unit + ": a load that outlives "
                  + "it fails with 'snapshot too old'; set it to -1 (restart needed) or migrate from a replica"));
            }
          }
          default -> { }
        }
      }
    }
    if (!timeouts) {
      results.add(CheckResult.ok("timeouts", "no statement or idle-in-transaction timeout limits a long read"));
    }
    return results;
  }

  private static CheckResult statistics(Connection c) throws SQLException {
    String sql = "SELECT current_setting('track_counts')::boolean AS track, "
        + "(SELECT count(*) FROM pg_catalog.pg_stat_user_tables WHERE last_analyze IS NULL AND last_autoanalyze IS NULL) "
        + "AS never_analyzed";
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      if (!rs.getBoolean("track")) {
        return CheckResult.warn("statistics", "track_counts is off: write rates per table are unknown, so plan "
            + "cannot tell low-write tables from hot ones");
      }
      long never = rs.getLong("never_analyzed");
      if (never > 0) {
        return CheckResult.warn("statistics", never + " table(s) were never analyzed; run ANALYZE first so "
            + "plan sees row estimates and column correlation (hotspot evidence)");
      }
      return CheckResult.ok("statistics", "tables are analyzed and activity is tracked");
    }
  }

  private static List<String> names(Connection c, String sql) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        names.add(rs.getString("name"));
      }
    }
    return names;
  }

  private static String capitalise(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  private static String shortList(List<String> names) {
    if (names.size() <= NAMES_SHOWN) {
      return String.join(", ", names);
    }
    return String.join(", ", names.subList(0, NAMES_SHOWN)) + " and " + (names.size() - NAMES_SHOWN) + " more";
  }
}
