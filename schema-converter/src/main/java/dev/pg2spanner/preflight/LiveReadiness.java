package dev.pg2spanner.preflight;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.source.PgNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether the source can stream its changes for {@code migrate --live}: logical decoding enabled, a replication
 * slot and a WAL sender free, a role allowed to replicate, every table's updates and deletes identifiable, a
 * publication that can be created, and no pg2spanner slot left behind holding WAL. Each problem says what to run.
 *
 * <p>Identifiable: logical replication names an updated or deleted row by its replica identity. A table without a
 * primary key and with {@code REPLICA IDENTITY DEFAULT} has none, and worse, once such a table is in a publication
 * PostgreSQL refuses the <em>application's</em> UPDATE and DELETE on it; so such tables are never published.
 */
public final class LiveReadiness {

  /** Names of replication slots and publications pg2spanner creates start with this. */
  public static final String NAME_PREFIX = "pg2spanner_";

  private static final int NAMES_SHOWN = 10;

  private LiveReadiness() {}

  /**
   * The checks, each FAIL (with {@link ExitCode#SOURCE_NOT_READY} or {@link ExitCode#SOURCE_PRIVILEGES}) when it
   * would stop {@code migrate --live}.
   *
   * @param tables the source tables to stream, "schema.name"; null for every user table (what {@code check} asks)
   * @param publication an existing publication the run will use, or null when the run creates its own
   */
  public static List<CheckResult> run(Connection c, List<String> tables, String publication) throws SQLException {
    List<CheckResult> results = new ArrayList<>();
    results.add(walLevel(c));
    results.add(replicationRole(c));
    results.add(capacity(c));
    results.add(streamable(c, tables));
    results.add(identities(c, tables));
    results.add(publication == null ? publicationRights(c, tables) : existingPublication(c, publication, tables));
    results.addAll(leftoverSlots(c));
    return List.copyOf(results);
  }

  /** A replication slot pg2spanner created and nobody dropped. */
  public record LeftoverSlot(String name, boolean active, long retainedBytes) {}

  /** Every slot named {@value #NAME_PREFIX}... on this server, with the WAL it holds back. */
  public static List<LeftoverSlot> slots(Connection c) throws SQLException {
    String sql = "SELECT slot_name, active, CASE WHEN pg_is_in_recovery() THEN NULL "
        + "ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint END AS retained "
        + "FROM pg_catalog.pg_replication_slots WHERE slot_name LIKE 'pg2spanner\\_%' ORDER BY slot_name";
    List<LeftoverSlot> slots = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        slots.add(new LeftoverSlot(rs.getString("slot_name"), rs.getBoolean("active"), rs.getLong("retained")));
      }
    }
    return slots;
  }

  /** The statement that drops a slot (and, when active, first ends the session that holds it). */
  public static String dropCommand(String slot) {
    return "SELECT pg_drop_replication_slot(" + PgNames.literal(slot) + ");";
  }

  /** "12.3 MB" for a byte count. */
  public static String size(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }

  private static CheckResult walLevel(Connection c) throws SQLException {
    String level = setting(c, "wal_level");
    if (standby(c)) {
      return CheckResult.fail("wal_level", "the server is a standby; PostgreSQL 15 and older decode changes only on "
          + "the primary. Point --source at the primary for a live migration", ExitCode.SOURCE_NOT_READY);
    }
    if ("logical".equals(level)) {
      return CheckResult.ok("wal_level", "logical: changes can be streamed");
    }
    return CheckResult.fail("wal_level", "wal_level = " + level + "; streaming changes needs logical. Run "
        + "`ALTER SYSTEM SET wal_level = logical;` and restart PostgreSQL (Amazon RDS/Aurora: parameter "
        + "rds.logical_replication = 1; Cloud SQL: flag cloudsql.logical_decoding = on; Azure: server parameter "
        + "wal_level = logical)", ExitCode.SOURCE_NOT_READY);
  }

  private static CheckResult replicationRole(Connection c) throws SQLException {
    String sql = "SELECT current_user AS usr, r.rolsuper AS su, r.rolreplication AS repl, "
        + "EXISTS (SELECT 1 FROM pg_catalog.pg_roles g WHERE g.rolname = 'rds_replication' "
        + "AND pg_has_role(current_user, g.oid, 'MEMBER')) AS rds "
        + "FROM pg_catalog.pg_roles r WHERE r.rolname = current_user";
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      String user = rs.getString("usr");
      if (rs.getBoolean("su") || rs.getBoolean("repl") || rs.getBoolean("rds")) {
        return CheckResult.ok("replication role", user + " may create replication slots and stream changes");
      }
      return CheckResult.fail("replication role", user + " may not stream changes: run `ALTER ROLE "
          + PgNames.quote(user) + " WITH REPLICATION;` as a superuser (Amazon RDS/Aurora: `GRANT rds_replication TO "
          + PgNames.quote(user) + ";`) and allow replication connections for it in pg_hba.conf",
          ExitCode.SOURCE_PRIVILEGES);
    }
  }

  private static CheckResult capacity(Connection c) throws SQLException {
    String sql = "SELECT current_setting('max_replication_slots')::int AS max_slots, "
        + "(SELECT count(*) FROM pg_catalog.pg_replication_slots) AS slots, "
        + "current_setting('max_wal_senders')::int AS max_senders, "
        + "(SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = 'walsender') AS senders";
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      int maxSlots = rs.getInt("max_slots");
      int slots = rs.getInt("slots");
      int maxSenders = rs.getInt("max_senders");
      int senders = rs.getInt("senders");
      String figures = slots + " of " + maxSlots + " replication slots and " + senders + " of " + maxSenders
          + " WAL senders in use";
      if (slots >= maxSlots || senders >= maxSenders) {
        return CheckResult.fail("slots and senders", figures + "; a live migration needs one of each. Drop an "
            + "unused slot, or raise max_replication_slots / max_wal_senders (restart needed)",
            ExitCode.SOURCE_NOT_READY);
      }
      return CheckResult.ok("slots and senders", figures);
    }
  }

  /**
   * Planned relations logical replication cannot stream: unlogged and temporary tables (their changes are not in the
   * WAL; PostgreSQL refuses to publish them) and foreign tables (their rows live on another server). A partitioned
   * table is published through its partitions, and PostgreSQL accepts it even when a partition is unlogged or
   * foreign, whose changes then never arrive: so every partition counts. Relations that are not planned
   * (materialized views, views, top-level foreign tables: plan never plans them) do not.
   *
   * @param tables the planned tables "schema.name"; null for what plan would plan (every user table)
   */
  private static CheckResult streamable(Connection c, List<String> tables) throws SQLException {
    String sql = "WITH RECURSIVE planned(oid, planned_name) AS ("
        + "SELECT c.oid, n.nspname || '.' || c.relname FROM pg_catalog.pg_class c "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE c.relkind IN ('r', 'p', 'f') AND NOT c.relispartition AND "
        + (tables == null ? "c.relkind <> 'f' AND " + SourcePreflight.SYSTEM_SCHEMA_FILTER
            : "n.nspname || '.' || c.relname = ANY (?)")
        + " UNION ALL SELECT i.inhrelid, p.planned_name FROM planned p "
        + "JOIN pg_catalog.pg_inherits i ON i.inhparent = p.oid "
        + "JOIN pg_catalog.pg_class k ON k.oid = i.inhrelid WHERE k.relispartition) "
        + "SELECT p.planned_name, n.nspname || '.' || c.relname AS relation_name, "
        + "format('%I.%I', n.nspname, c.relname) AS quoted_name, c.relkind::text AS kind, "
        + "c.relpersistence::text AS persistence, c.relispartition AS is_partition "
        + "FROM planned p JOIN pg_catalog.pg_class c ON c.oid = p.oid "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE c.relpersistence IN ('u', 't') OR c.relkind = 'f' ORDER BY 2";
    List<String> problems = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (tables != null) {
        ps.setArray(1, c.createArrayOf("text", tables.toArray()));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String planned = rs.getString("planned_name");
          String relation = rs.getString("relation_name");
          String quoted = rs.getString("quoted_name");
          boolean partition = rs.getBoolean("is_partition");
          String of = partition ? " partition of " + planned : " table";
          String leaveOut = "leave " + (partition ? planned : relation) + " out with plan --exclude-tables '^"
              + regex(partition ? planned : relation) + "$'";
          if (rs.getString("kind").equals("f")) {
            problems.add(relation + " (a foreign" + of + "): its rows live on another server and its changes never "
                + "reach this server's WAL. Move its rows into a local table (or partition), or " + leaveOut
                + " and migrate it without --live");
          } else if (rs.getString("persistence").equals("u")) {
            problems.add(relation + " (an unlogged" + of + "): its changes are not written to the WAL. Make it "
                + "logged with `ALTER TABLE " + quoted + " SET LOGGED;` (it rewrites the table under an ACCESS "
                + "EXCLUSIVE lock), or " + leaveOut);
          } else {
            problems.add(relation + " (a temporary" + of + "): it exists only in the session that created it. "
                + "Create it as a regular table, or " + leaveOut);
          }
        }
      }
    }
    if (!problems.isEmpty()) {
      return CheckResult.fail("streamable", problems.size() + " planned relation(s) cannot be streamed by logical "
          + "replication (PostgreSQL refuses to publish them, or publishes a partition whose changes never "
          + "arrive): " + String.join("; ", problems.subList(0, Math.min(NAMES_SHOWN, problems.size())))
          + (problems.size() > NAMES_SHOWN ? "; and " + (problems.size() - NAMES_SHOWN) + " more" : ""),
          ExitCode.SOURCE_NOT_READY);
    }
    return CheckResult.ok("streamable", "every planned table and partition can be published (none is unlogged, "
        + "temporary or foreign)");
  }

  /** {@code name} as a regular expression that matches exactly it ({@code --exclude-tables} takes one). */
  private static String regex(String name) {
    return name.replaceAll("([\\^$.|?*+()\\[\\]{}])", "\\\\$1");
  }

  private static CheckResult identities(Connection c, List<String> tables) throws SQLException {
    String sql = "SELECT format('%I.%I', n.nspname, c.relname) AS name, c.relkind::text AS kind, "
        + "c.relreplident::text AS identity, "
        + "EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND i.indisprimary) AS has_pk "
        + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND "
        + SourcePreflight.SYSTEM_SCHEMA_FILTER
        + (tables == null ? "" : " AND n.nspname || '.' || c.relname = ANY (?)") + " ORDER BY 1";
    List<String> unidentified = new ArrayList<>();
    List<String> full = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (tables != null) {
        ps.setArray(1, c.createArrayOf("text", tables.toArray()));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString("name");
          String identity = rs.getString("identity");
          if (identity.equals("n") || (identity.equals("d") && !rs.getBoolean("has_pk"))) {
            unidentified.add(name);
          } else if (identity.equals("f") && !rs.getBoolean("has_pk")) {
            full.add(name);
          }
        }
      }
    }
    if (!unidentified.isEmpty()) {
      String first = unidentified.get(0);
      return CheckResult.fail("row identity", unidentified.size() + " table(s) have no primary key and no replica "
          + "identity, so their updates and deletes cannot be streamed (and publishing them would make PostgreSQL "
          + "refuse the application's UPDATE and DELETE on them): " + shortList(unidentified) + ". Add a primary "
          + "key, or run e.g. `ALTER TABLE " + first + " REPLICA IDENTITY FULL;` (each update then logs the whole "
          + "old row), or leave them out with plan --exclude-tables", ExitCode.SOURCE_NOT_READY);
    }
    if (!full.isEmpty()) {
      return CheckResult.warn("row identity", full.size() + " table(s) without a primary key use REPLICA IDENTITY "
          + "FULL: " + shortList(full) + ". Their streamed updates and deletes find the Spanner row by its whole "
          + "content: through the row hash the plan adds to such a table (two point reads a change), or, for a "
          + "plan without one (made before pg2spanner planned it, or edited out), by a scan of the table per "
          + "change, fine only for small or rarely changed tables");
    }
    return CheckResult.ok("row identity", "every table's updates and deletes can be identified");
  }

  private static CheckResult publicationRights(Connection c, List<String> tables) throws SQLException {
    String sql = "SELECT has_database_privilege(current_database(), 'CREATE') AS can_create, "
        + "(SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) AS su, "
        + "ARRAY(SELECT format('%I.%I', n.nspname, c.relname) FROM pg_catalog.pg_class c "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND " + SourcePreflight.SYSTEM_SCHEMA_FILTER
        + (tables == null ? "" : " AND n.nspname || '.' || c.relname = ANY (?)")
        + " AND NOT pg_has_role(current_user, c.relowner, 'USAGE') ORDER BY 1) AS not_owned";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (tables != null) {
        ps.setArray(1, c.createArrayOf("text", tables.toArray()));
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getBoolean("su")) {
          return CheckResult.ok("publication", "this role may create the publication");
        }
        List<String> notOwned = List.of((String[]) rs.getArray("not_owned").getArray());
        if (rs.getBoolean("can_create") && notOwned.isEmpty()) {
          return CheckResult.ok("publication", "this role may create the publication (it owns every table)");
        }
        String why = !rs.getBoolean("can_create") ? "this role lacks CREATE on the database"
            : "this role does not own " + notOwned.size() + " table(s): " + shortList(notOwned);
        return CheckResult.fail("publication", "a live run publishes its tables, but " + why + ". Have an owner "
            + "run `CREATE PUBLICATION pg2spanner FOR TABLE ...;` with the planned tables and pass --publication "
            + "pg2spanner, or grant CREATE on the database and table ownership", ExitCode.SOURCE_PRIVILEGES);
      }
    }
  }

  private static CheckResult existingPublication(Connection c, String publication, List<String> tables)
      throws SQLException {
    boolean allActions;
    try (PreparedStatement ps = c.prepareStatement("SELECT pubinsert AND pubupdate AND pubdelete AND pubtruncate "
        + "AS all_actions FROM pg_catalog.pg_publication WHERE pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return CheckResult.fail("publication", "publication " + publication + " does not exist on the source; "
              + "create it (CREATE PUBLICATION " + PgNames.quote(publication) + " FOR TABLE ...) or leave out "
              + "--publication to let migrate create one", ExitCode.SOURCE_NOT_READY);
        }
        allActions = rs.getBoolean("all_actions");
      }
    }
    // A partitioned table is published through its partitions: covered when a published relation has it as root.
    String sql = "SELECT t AS name FROM unnest(?::text[]) t WHERE NOT EXISTS (SELECT 1 "
        + "FROM pg_catalog.pg_publication_tables pt WHERE pt.pubname = ? AND (pt.schemaname || '.' || pt.tablename = t "
        + "OR (SELECT n.nspname || '.' || k.relname FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace n "
        + "ON n.oid = k.relnamespace WHERE k.oid = pg_partition_root(format('%I.%I', pt.schemaname, pt.tablename)"
        + "::regclass)) = t)) ORDER BY 1";
    List<String> missing = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setArray(1, c.createArrayOf("text", (tables == null ? List.<String>of() : tables).toArray()));
      ps.setString(2, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          missing.add(rs.getString("name"));
        }
      }
    }
    if (!missing.isEmpty()) {
      return CheckResult.fail("publication", "publication " + publication + " does not publish " + missing.size()
          + " planned table(s): " + shortList(missing) + "; their changes would be lost. Run `ALTER PUBLICATION "
          + PgNames.quote(publication) + " ADD TABLE ...;`", ExitCode.SOURCE_NOT_READY);
    }
    if (!allActions) {
      return CheckResult.fail("publication", "publication " + publication + " does not publish every kind of "
          + "change (insert, update, delete, truncate); run `ALTER PUBLICATION " + PgNames.quote(publication)
          + " SET (publish = 'insert, update, delete, truncate');`", ExitCode.SOURCE_NOT_READY);
    }
    return CheckResult.ok("publication", publication + " publishes every planned table");
  }

  private static List<CheckResult> leftoverSlots(Connection c) throws SQLException {
    List<CheckResult> results = new ArrayList<>();
    for (LeftoverSlot slot : slots(c)) {
      results.add(CheckResult.warn("slot " + slot.name(), "a pg2spanner replication slot"
          + (slot.active() ? " in use by a running live migration" : " that no live run is using")
          + " holds " + size(slot.retainedBytes()) + " of WAL on the source, which grows until it is consumed or "
          + "dropped. Continue that run with migrate --live --resume (or finish it with cutover), or drop it: `"
          + dropCommand(slot.name()) + "`"));
    }
    return results;
  }

  private static String setting(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT current_setting(?) AS v")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString("v");
      }
    }
  }

  private static boolean standby(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery() AS r")) {
      rs.next();
      return rs.getBoolean("r");
    }
  }

  private static String shortList(List<String> names) {
    if (names.size() <= NAMES_SHOWN) {
      return String.join(", ", names);
    }
    return String.join(", ", names.subList(0, NAMES_SHOWN)) + " and " + (names.size() - NAMES_SHOWN) + " more";
  }
}
