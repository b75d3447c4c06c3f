package dev.pg2spanner.live.stream;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.PgNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What the change stream cannot show: tables created or dropped in the planned schemas, and indexes created or
 * dropped on planned tables. pgoutput carries no DDL, and an index never appears in it, so the source's catalog is
 * compared with the plan the stream converts by (on a timer while streaming, and at cutover).
 */
public final class CatalogFollower {

  private CatalogFollower() {}

  /**
   * How the catalog differs from the plan now.
   *
   * @param created tables of the planned schemas neither planned nor left out by the plan's --exclude-tables, each
   *     "schema.name", with whether PostgreSQL can identify its updated and deleted rows
   * @param dropped planned source tables the catalog no longer has
   * @param indexes per planned source table whose indexes differ from the plan's: the catalog's index names now
   */
  public record Seen(Map<String, Boolean> created, List<String> dropped, Map<String, Set<String>> indexes) {
    public Seen {
      created = Map.copyOf(created);
      dropped = List.copyOf(dropped);
      indexes = Map.copyOf(indexes);
    }

    public boolean isEmpty() {
      return created.isEmpty() && dropped.isEmpty() && indexes.isEmpty();
    }
  }

  private static final String TABLES = "SELECT n.nspname AS schema_name, c.relname AS table_name, "
      + "c.relreplident::text AS identity, EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND "
      + "i.indisprimary) AS has_key FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = "
      + "c.relnamespace WHERE n.nspname = ANY (?) AND c.relkind IN ('r', 'p') AND c.relpersistence = 'p' AND NOT "
      + "c.relispartition";

  private static final String INDEXES = "SELECT n.nspname AS schema_name, t.relname AS table_name, ic.relname AS "
      + "index_name FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "
      + "JOIN pg_catalog.pg_class t ON t.oid = i.indrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace "
      + "WHERE n.nspname = ANY (?) AND NOT i.indisprimary AND NOT t.relispartition";

  /**
   * Compares the catalog with {@code plan}.
   *
   * @param ignoredIndexes "schema.table/index" of catalog indexes planning left out (an expression index ...): not
   *     differences
   */
  public static Seen look(Connection c, Plan plan, Set<String> ignoredIndexes) throws SQLException {
    Set<String> planned = new HashSet<>();
    plan.tables().forEach(t -> planned.add(t.source()));
    Pattern excluded = plan.source().excludeTables() == null ? null : Pattern.compile(plan.source().excludeTables());
    Map<String, Boolean> created = new TreeMap<>();
    Set<String> present = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(TABLES)) {
      ps.setArray(1, c.createArrayOf("text", plan.source().schemas().toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString("schema_name") + "." + rs.getString("table_name");
          present.add(name);
          if (!planned.contains(name) && (excluded == null || !excluded.matcher(name).find())) {
            String identity = rs.getString("identity");
            created.put(name, "f".equals(identity) || "i".equals(identity)
                || ("d".equals(identity) && rs.getBoolean("has_key")));
          }
        }
      }
    }
    List<String> dropped = plan.tables().stream().map(TablePlan::source).filter(s -> !present.contains(s)).toList();

    Map<String, Set<String>> catalogIndexes = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(INDEXES)) {
      ps.setArray(1, c.createArrayOf("text", plan.source().schemas().toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String table = rs.getString("schema_name") + "." + rs.getString("table_name");
          catalogIndexes.computeIfAbsent(table, k -> new TreeSet<>()).add(rs.getString("index_name"));
        }
      }
    }
    Map<String, Set<String>> indexes = new TreeMap<>();
    for (TablePlan t : plan.tables()) {
      if (!present.contains(t.source())) {
        continue;
      }
      Set<String> now = catalogIndexes.getOrDefault(t.source(), Set.of());
      Set<String> considered = new TreeSet<>(now);
      considered.removeIf(i -> ignoredIndexes.contains(t.source() + "/" + i));
      Set<String> inPlan = new TreeSet<>(t.indexes().stream().map(IndexPlan::source).filter(Objects::nonNull)
          .toList());
      if (!considered.equals(inPlan)) {
        indexes.put(t.source(), Set.copyOf(now));
      }
    }
    return new Seen(created, dropped, indexes);
  }

  /**
   * Makes sure the publication streams {@code table}'s changes from now on: {@code ALTER PUBLICATION ... ADD TABLE}
   * when it does not yet (a table created after the publication, which a {@code FOR TABLE} list does not follow).
   *
   * @param ours whether this run created the publication (else it is the user's to change)
   * @throws Pg2SpannerException SOURCE_PRIVILEGES when the table cannot be added, with the command that adds it
   */
  public static void publish(Connection c, String publication, String table, boolean ours) throws SQLException {
    int dot = table.indexOf('.');
    String qualified = PgNames.qualified(table.substring(0, dot), table.substring(dot + 1));
    try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_publication_tables p "
        + "JOIN pg_catalog.pg_class c ON c.relname = p.tablename JOIN pg_catalog.pg_namespace n ON n.oid = "
        + "c.relnamespace AND n.nspname = p.schemaname WHERE p.pubname = ? AND (c.oid = ?::regclass OR c.oid IN "
        + "(SELECT relid FROM pg_catalog.pg_partition_tree(?::regclass)))) AS published")) {
      ps.setString(1, publication);
      ps.setString(2, qualified);
      ps.setString(3, qualified);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getBoolean("published")) {
          return;
        }
      }
    }
    String sql = "ALTER PUBLICATION " + PgNames.quote(publication) + " ADD TABLE " + qualified;
    if (!ours) {
      throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, NextStep.RESUME,
          "the table " + table + " was created on the source "
          + "while its schema streams, and the publication " + publication + " (yours, named by --publication) "
          + "does not stream it. Streaming stopped before any of its changes; have the publication's owner run `"
          + sql + ";`, then rerun migrate --live --resume (its rows are copied then, and its changes streamed)");
    }
    try (var s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, NextStep.RESUME,
          "the table " + table + " was created on the source "
          + "while its schema streams, and cannot be added to the publication " + publication + " ("
          + e.getMessage() + "). Streaming stopped before any of its changes; have the table's owner run `" + sql
          + ";`, then rerun migrate --live --resume", e);
    }
  }

  /** "schema.table/index": how an ignored index is named. */
  public static String indexKey(String table, String index) {
    return table + "/" + index;
  }

  /** The planned schemas' tables, for messages. */
  public static List<String> describe(Seen seen) {
    List<String> out = new ArrayList<>();
    seen.created().keySet().forEach(t -> out.add("table " + t + " created"));
    seen.dropped().forEach(t -> out.add("table " + t + " dropped"));
    seen.indexes().keySet().forEach(t -> out.add("indexes of " + t + " changed"));
    return out;
  }
}
