package dev.pg2spanner.catalog;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a PostgreSQL 11–17 database's schema from {@code pg_catalog} into a {@link PgCatalog}.
 *
 * <p>Every object kind is read with one set-based query for the whole database (never one query per table), so
 * a database with thousands of tables reads in a few seconds; the rows are grouped by table in Java. All queries
 * run in one {@code REPEATABLE READ, READ ONLY} transaction, so the catalog is one consistent snapshot even while
 * DDL runs on the server.
 */
public final class CatalogReader {

  private static final Logger LOG = LoggerFactory.getLogger(CatalogReader.class);

  /** Schemas that are never read (system and temporary ones). */
  private static final String USER_SCHEMA =
      "n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg\\_temp\\_%' "
          + "AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%'";

  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  private static final Comparator<PgObject> OBJECT_ORDER = Comparator
      .comparing((PgObject o) -> o.kind().ordinal())
      .thenComparing(o -> o.schema() == null ? "" : o.schema())
      .thenComparing(PgObject::name)
      .thenComparing(o -> o.on() == null ? "" : o.on())
      .thenComparing(o -> o.detail() == null ? "" : o.detail());

  private final CatalogFilter filter;

  /** @param filter which schemas and tables to read; not null */
  public CatalogReader(CatalogFilter filter) {
    this.filter = Objects.requireNonNull(filter, "filter");
  }

  /**
   * Reads in one REPEATABLE READ, READ ONLY transaction on the given connection (restores its state after).
   * The connection must not be inside a transaction of its own; the reader's transaction is rolled back.
   *
   * @throws IllegalStateException when the connection (auto-commit off) has a transaction in progress
   * @throws Pg2SpannerException {@link ExitCode#PLAN_INVALID} when a schema of the filter does not exist,
   *     {@link ExitCode#SOURCE_PRIVILEGES} when the role may not read part of the catalog
   * @throws SQLException on any other database failure
   */
  public PgCatalog read(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    // Rolling back at the end would throw away the caller's open transaction: refuse instead.
    BaseConnection pg = connection.isWrapperFor(BaseConnection.class) ? connection.unwrap(BaseConnection.class) : null;
    if (!autoCommit && pg != null && pg.getTransactionState() != TransactionState.IDLE) {
      throw new IllegalStateException("the catalog is read in a transaction of its own: commit or roll back the "
          + "connection's open transaction first");
    }
    try {
      connection.setAutoCommit(false);
      String searchPath;
      try (Statement s = connection.createStatement()) {
        // pgjdbc opens the transaction with this first statement; SET TRANSACTION must be its first command
        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        // Only pg_catalog on the path while reading: format_type, pg_get_expr and friends then qualify every
        // user object ("public.mood", nextval('public.seq'::regclass)), so the catalog reads the same whatever
        // the role's search_path is. SET LOCAL ends with the transaction.
        try (ResultSet rs = s.executeQuery("SELECT pg_catalog.current_setting('search_path') AS path")) {
          rs.next();
          searchPath = rs.getString("path");
        }
        s.execute("SELECT pg_catalog.set_config('search_path', 'pg_catalog', true)");
      }
      try {
        return new Session(connection, searchPath).read();
      } catch (SQLException e) {
        if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
          throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "reading the PostgreSQL catalog failed ("
              + firstLine(e.getMessage()) + "); grant this role read access to the schemas being migrated "
              + "(e.g. GRANT pg_read_all_data and pg_read_all_stats) or narrow --schemas", e);
        }
        throw e;
      } finally {
        connection.rollback();
      }
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }

  /** One read: the connection, the server version and what has been read so far. */
  private final class Session {
    private final Connection c;
    private int versionNum;
    private String database;
    private final String sessionSearchPath;
    private Array schemaArray;
    private List<String> schemas;
    /** Tables of the read schemas that the filter left out: listed as not migrated, by name. */
    private final List<PgObject> excluded = new ArrayList<>();

    Session(Connection c, String sessionSearchPath) {
      this.c = c;
      this.sessionSearchPath = sessionSearchPath;
    }

    PgCatalog read() throws SQLException {
      long started = System.nanoTime();
      String version;
      Instant statsSince;
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT current_setting('server_version') AS version, "
              + "current_setting('server_version_num')::int AS num, current_database() AS db, "
              + "coalesce((SELECT stats_reset FROM pg_catalog.pg_stat_database WHERE datname = current_database()), "
              + "pg_catalog.pg_postmaster_start_time()) AS since")) {
        rs.next();
        version = rs.getString("version");
        versionNum = rs.getInt("num");
        database = rs.getString("db");
        statsSince = instant(rs.getTimestamp("since"));
      }
      schemas = chooseSchemas();
      schemaArray = c.createArrayOf("text", schemas.toArray(new String[0]));

      Map<Long, TableRow> tables = readTables(statsSince);
      Array tableOids = c.createArrayOf("int8", tables.keySet().toArray(new Long[0]));
      readPartitions(tables);
      Map<Long, TypeRow> types = readTypes(tableOids);
      readColumns(tables, tableOids, types);
      readConstraints(tables, tableOids);
      readIndexes(tables, tableOids);

      List<PgTable> pgTables = new ArrayList<>();
      for (TableRow t : tables.values()) {
        pgTables.add(t.toTable());
      }
      pgTables.sort(Comparator.comparing(PgTable::schema).thenComparing(PgTable::name));
      List<PgSequence> sequences = readSequences(pgTables);
      List<PgEnum> enums = new ArrayList<>();
      List<PgDomain> domains = new ArrayList<>();
      collectEnumsAndDomains(types, enums, domains);
      List<PgObject> others = new ArrayList<>(readOtherObjects());
      others.addAll(excluded);
      PgCatalog catalog = new PgCatalog(version, versionNum, database, pgTables, sequences, enums, domains, others);
      LOG.debug("read the catalog of {}: {} tables, {} sequences, {} other objects in {} ms", database,
          pgTables.size(), sequences.size(), others.size(), (System.nanoTime() - started) / 1_000_000);
      return catalog;
    }

    // ---------------------------------------------------------------------------------------------- schemas

    private List<String> chooseSchemas() throws SQLException {
      List<String> existing = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE " + USER_SCHEMA + " ORDER BY 1")) {
        while (rs.next()) {
          existing.add(rs.getString("nspname"));
        }
      }
      existing.sort(Comparator.naturalOrder());
      if (filter.schemas().isEmpty()) {
        return existing;
      }
      for (String wanted : filter.schemas()) {
        if (!existing.contains(wanted)) {
          throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "schema '" + wanted + "' given in --schemas does not "
              + "exist in database " + database + "; the schemas are: " + String.join(", ", existing));
        }
      }
      return List.copyOf(new TreeSet<>(filter.schemas()));
    }

    // ----------------------------------------------------------------------------------------------- tables

    private Map<Long, TableRow> readTables(Instant statsSince) throws SQLException {
      String sql = "SELECT c.oid, n.nspname, c.relname, c.relkind, obj_description(c.oid, 'pg_class') AS comment, "
          + "c.reltuples, c.relpages, pg_catalog.pg_total_relation_size(c.oid) AS total_bytes, "
          + "pg_catalog.pg_table_size(c.oid) AS table_bytes, s.n_tup_ins, s.n_tup_upd, s.n_tup_del, "
          + "greatest(s.last_analyze, s.last_autoanalyze) AS last_analyzed, "
          + "CASE WHEN c.relkind = 'p' THEN pg_catalog.pg_get_partkeydef(c.oid) END AS partkey, "
          + "pt.partstrat, "
          + "ARRAY(SELECT pn.nspname || '.' || p.relname FROM pg_catalog.pg_inherits i "
          + "  JOIN pg_catalog.pg_class p ON p.oid = i.inhparent "
          + "  JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace "
          + "  WHERE i.inhrelid = c.oid ORDER BY i.inhseqno) AS parents, "
          + "EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class ch ON ch.oid = i.inhrelid "
          + "  WHERE i.inhparent = c.oid AND NOT ch.relispartition) AS has_children "
          + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
          + "LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = c.oid "
          + "LEFT JOIN pg_catalog.pg_partitioned_table pt ON pt.partrelid = c.oid "
          + "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname = ANY (?)";
      Map<Long, TableRow> tables = new LinkedHashMap<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, schemaArray);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String schema = rs.getString("nspname");
            String name = rs.getString("relname");
            if (!filter.keeps(schema, name)) {
              excluded.add(new PgObject(PgObject.Kind.EXCLUDED_TABLE, schema, name, null,
                  "--exclude-tables '" + filter.exclude().pattern() + "'"));
              continue;
            }
            TableRow t = new TableRow(rs.getLong("oid"), schema, name, "p".equals(rs.getString("relkind")));
            t.comment = rs.getString("comment");
            t.partitionKey = rs.getString("partkey");
            t.partitionStrategy = strategy(rs.getString("partstrat"));
            t.parents = strings(rs.getArray("parents"));
            t.hasChildren = rs.getBoolean("has_children");
            t.statsSince = statsSince;
            double reltuples = rs.getDouble("reltuples");
            t.stats.rows = t.partitioned ? null : reltuples >= 0 ? reltuples : null;
            t.stats.pages = rs.getLong("relpages");
            t.stats.totalBytes = rs.getLong("total_bytes");
            t.stats.tableBytes = rs.getLong("table_bytes");
            t.stats.inserts = nullableLong(rs, "n_tup_ins");
            t.stats.updates = nullableLong(rs, "n_tup_upd");
            t.stats.deletes = nullableLong(rs, "n_tup_del");
            t.stats.lastAnalyzed = instant(rs.getTimestamp("last_analyzed"));
            tables.put(t.oid, t);
          }
        }
      }
      return tables;
    }

    /**
     * Partitions of every partitioned parent, all levels, and the parent's statistics summed over its leaves
     * (a partitioned table itself has no storage; since PostgreSQL 14 ANALYZE also sets the parent's reltuples,
     * so only leaves are summed to avoid counting rows twice).
     */
    private void readPartitions(Map<Long, TableRow> tables) throws SQLException {
      List<Long> roots = tables.values().stream().filter(t -> t.partitioned).map(t -> t.oid).toList();
      if (roots.isEmpty()) {
        return;
      }
      String sql = "WITH RECURSIVE tree(root, rel) AS ("
          + "  SELECT r.oid, r.oid FROM pg_catalog.pg_class r WHERE r.oid = ANY (CAST(? AS int8[])::oid[]) "
          + "  UNION ALL SELECT t.root, i.inhrelid FROM tree t JOIN pg_catalog.pg_inherits i ON i.inhparent = t.rel) "
          + "SELECT t.root, n.nspname, c.relname, c.relkind, c.reltuples, c.relpages, "
          + "pg_catalog.pg_total_relation_size(c.oid) AS total_bytes, pg_catalog.pg_table_size(c.oid) AS table_bytes, "
          + "s.n_tup_ins, s.n_tup_upd, s.n_tup_del, greatest(s.last_analyze, s.last_autoanalyze) AS last_analyzed "
          + "FROM tree t JOIN pg_catalog.pg_class c ON c.oid = t.rel "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
          + "LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = c.oid WHERE t.rel <> t.root";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, c.createArrayOf("int8", roots.toArray(new Long[0])));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            TableRow t = tables.get(rs.getLong("root"));
            t.partitions.add(rs.getString("nspname") + "." + rs.getString("relname"));
            Instant analyzed = instant(rs.getTimestamp("last_analyzed"));
            if (analyzed != null && (t.stats.lastAnalyzed == null || analyzed.isAfter(t.stats.lastAnalyzed))) {
              t.stats.lastAnalyzed = analyzed;
            }
            if ("p".equals(rs.getString("relkind"))) {
              continue; // an intermediate level: no storage, no rows of its own
            }
            t.leaves++;
            double reltuples = rs.getDouble("reltuples");
            if (reltuples >= 0) {
              t.stats.rows = (t.stats.rows == null ? 0 : t.stats.rows) + reltuples;
            }
            t.stats.pages += rs.getLong("relpages");
            t.stats.totalBytes += rs.getLong("total_bytes");
            t.stats.tableBytes += rs.getLong("table_bytes");
            t.stats.inserts = sum(t.stats.inserts, nullableLong(rs, "n_tup_ins"));
            t.stats.updates = sum(t.stats.updates, nullableLong(rs, "n_tup_upd"));
            t.stats.deletes = sum(t.stats.deletes, nullableLong(rs, "n_tup_del"));
          }
        }
      }
      for (TableRow t : tables.values()) {
        if (t.partitioned && t.leaves == 0) {
          t.stats.rows = 0.0; // no partition: no row can exist
        }
      }
    }

    // ------------------------------------------------------------------------------------------------ types

    /**
     * Every type the chosen tables' columns use, followed through array elements and domain bases, plus the
     * enums and domains defined in the chosen schemas.
     */
    private Map<Long, TypeRow> readTypes(Array tableOids) throws SQLException {
      String sql = "WITH RECURSIVE used(oid) AS ("
          + "  SELECT a.atttypid FROM pg_catalog.pg_attribute a "
          + "  WHERE a.attrelid = ANY (CAST(? AS int8[])::oid[]) AND a.attnum > 0 AND NOT a.attisdropped "
          + "  UNION SELECT t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace "
          + "  WHERE t.typtype IN ('e', 'd') AND n.nspname = ANY (?) "
          + "  UNION SELECT x.oid FROM used u JOIN pg_catalog.pg_type t ON t.oid = u.oid, "
          + "  LATERAL (VALUES (CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE 0 END), (t.typbasetype)) x(oid) "
          + "  WHERE x.oid <> 0) "
          + "SELECT t.oid, n.nspname, t.typname, t.typtype, t.typcategory, t.typelem, t.typbasetype, t.typtypmod, "
          + "t.typndims, t.typnotnull, pg_catalog.format_type(t.oid, NULL) AS display, "
          + "pg_catalog.format_type(t.typbasetype, t.typtypmod) AS base_display, "
          + "CASE WHEN t.typtype = 'd' THEN pg_catalog.pg_get_expr(t.typdefaultbin, 0) END AS default_expr, "
          + "ARRAY(SELECT pg_catalog.pg_get_constraintdef(k.oid) FROM pg_catalog.pg_constraint k "
          + "  WHERE k.contypid = t.oid AND k.contype = 'c' ORDER BY k.conname) AS checks, "
          + "ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid "
          + "  ORDER BY e.enumsortorder) AS labels "
          + "FROM used u JOIN pg_catalog.pg_type t ON t.oid = u.oid "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace";
      Map<Long, TypeRow> types = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, tableOids);
        ps.setArray(2, schemaArray);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            TypeRow t = new TypeRow(rs.getLong("oid"), rs.getString("nspname"), rs.getString("typname"),
                rs.getString("typtype"), "A".equals(rs.getString("typcategory")), rs.getLong("typelem"),
                rs.getLong("typbasetype"), rs.getInt("typtypmod"), rs.getInt("typndims"), rs.getBoolean("typnotnull"),
                rs.getString("display"), rs.getString("base_display"), rs.getString("default_expr"),
                strings(rs.getArray("checks")).stream().map(CatalogText::checkExpression).toList(),
                strings(rs.getArray("labels")));
            types.put(t.oid, t);
          }
        }
      }
      return types;
    }

    /**
     * The {@link PgType} of a value declared with type {@code oid}, modifier {@code typmod} and {@code ndims}
     * array dimensions; {@code display} is format_type's text for exactly that declaration.
     */
    private PgType type(Map<Long, TypeRow> types, long oid, int typmod, int ndims, String display) {
      TypeRow t = types.get(oid);
      if (t == null) {
        throw new IllegalStateException("type " + oid + " of " + display + " was not read");
      }
      boolean array = t.isArray && t.elem != 0;
      TypeRow element = array ? types.get(t.elem) : t;
      TypeModifiers mods = "pg_catalog".equals(element.schema) ? TypeModifiers.decode(element.name, typmod)
          : TypeModifiers.NONE;
      PgType.Kind kind = switch (element.typtype) {
        case "b" -> PgType.Kind.BASE;
        case "e" -> PgType.Kind.ENUM;
        case "d" -> PgType.Kind.DOMAIN;
        case "c" -> PgType.Kind.COMPOSITE;
        case "r" -> PgType.Kind.RANGE;
        case "m" -> PgType.Kind.MULTIRANGE;
        case "p" -> PgType.Kind.PSEUDO;
        default -> PgType.Kind.OTHER;
      };
      PgType base = null;
      if (kind == PgType.Kind.DOMAIN) {
        base = type(types, element.baseType, element.baseTypmod, element.ndims, element.baseDisplay);
      }
      return new PgType(element.schema, element.name, display, mods.length(), mods.precision(), mods.scale(), array,
          array ? ndims : 0, kind, base, kind == PgType.Kind.DOMAIN ? element.checks : List.of(),
          kind == PgType.Kind.DOMAIN && element.notNull, kind == PgType.Kind.ENUM ? element.labels : List.of());
    }

    private void collectEnumsAndDomains(Map<Long, TypeRow> types, List<PgEnum> enums, List<PgDomain> domains) {
      for (TypeRow t : types.values()) {
        if ("e".equals(t.typtype)) {
          enums.add(new PgEnum(t.schema, t.name, t.labels));
        } else if ("d".equals(t.typtype)) {
          domains.add(new PgDomain(t.schema, t.name, type(types, t.baseType, t.baseTypmod, t.ndims, t.baseDisplay),
              t.notNull, t.defaultExpression, t.checks));
        }
      }
      enums.sort(Comparator.comparing(PgEnum::schema).thenComparing(PgEnum::name));
      domains.sort(Comparator.comparing(PgDomain::schema).thenComparing(PgDomain::name));
    }

    // ---------------------------------------------------------------------------------------------- columns

    private void readColumns(Map<Long, TableRow> tables, Array tableOids, Map<Long, TypeRow> types)
        throws SQLException {
      String generated = versionNum >= 120000 ? "a.attgenerated" : "''::\"char\"";
      String sql = "SELECT a.attrelid, a.attnum, a.attname, a.atttypid, a.atttypmod, a.attndims, a.attnotnull, "
          + "a.attidentity, " + generated + " AS attgenerated, "
          + "pg_catalog.format_type(a.atttypid, a.atttypmod) AS display, "
          + "pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS default_expr, "
          + "CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation THEN co.collname END AS collation, "
          + "pg_catalog.col_description(a.attrelid, a.attnum) AS comment, "
          + "sq.seq_schema, sq.seq_name "
          + "FROM pg_catalog.pg_attribute a "
          + "JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
          + "LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
          + "LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation "
          // The sequence feeding the column: an identity's internal dependency, else the dependency PostgreSQL
          // records from the default expression to every sequence named by a 'x'::regclass constant in it.
          + "LEFT JOIN LATERAL ("
          + "  SELECT sn.nspname AS seq_schema, s.relname AS seq_name, 0 AS pref FROM pg_catalog.pg_depend dep "
          + "  JOIN pg_catalog.pg_class s ON s.oid = dep.objid AND s.relkind = 'S' "
          + "  JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace "
          + "  WHERE a.attidentity <> '' AND dep.classid = 'pg_catalog.pg_class'::regclass "
          + "  AND dep.refclassid = 'pg_catalog.pg_class'::regclass AND dep.refobjid = a.attrelid "
          + "  AND dep.refobjsubid = a.attnum AND dep.deptype = 'i' "
          + "  UNION ALL "
          + "  SELECT sn.nspname, s.relname, 1 FROM pg_catalog.pg_depend dep "
          + "  JOIN pg_catalog.pg_class s ON s.oid = dep.refobjid AND s.relkind = 'S' "
          + "  JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace "
          + "  WHERE dep.classid = 'pg_catalog.pg_attrdef'::regclass AND dep.objid = d.oid "
          + "  AND dep.refclassid = 'pg_catalog.pg_class'::regclass "
          + "  ORDER BY 3, 1, 2 LIMIT 1) sq ON true "
          + "WHERE a.attrelid = ANY (CAST(? AS int8[])::oid[]) AND a.attnum > 0 AND NOT a.attisdropped";
      Map<ColumnStatsKey, PgColumnStats> stats = readColumnStats();
      List<ColumnRow> needParsing = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, tableOids);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            TableRow table = tables.get(rs.getLong("attrelid"));
            ColumnRow col = new ColumnRow();
            col.name = rs.getString("attname");
            col.position = rs.getInt("attnum");
            col.type = type(types, rs.getLong("atttypid"), rs.getInt("atttypmod"), rs.getInt("attndims"),
                rs.getString("display"));
            col.notNull = rs.getBoolean("attnotnull");
            String expr = rs.getString("default_expr");
            String generatedKind = rs.getString("attgenerated");
            if (generatedKind != null && !generatedKind.isEmpty()) {
              col.generatedExpression = expr;
            } else {
              col.defaultExpression = expr;
            }
            col.identity = switch (Objects.requireNonNullElse(rs.getString("attidentity"), "")) {
              case "a" -> PgColumn.Identity.ALWAYS;
              case "d" -> PgColumn.Identity.BY_DEFAULT;
              default -> PgColumn.Identity.NONE;
            };
            String seqSchema = rs.getString("seq_schema");
            col.sequence = seqSchema == null ? null : seqSchema + "." + rs.getString("seq_name");
            if (col.sequence == null && col.defaultExpression != null) {
              CatalogText.nextvalArgument(col.defaultExpression).ifPresent(arg -> {
                col.nextvalArgument = arg;
                needParsing.add(col);
              });
            }
            col.collation = rs.getString("collation");
            col.comment = rs.getString("comment");
            col.stats = stats.get(new ColumnStatsKey(table.schema, table.name, col.name, table.partitioned));
            if (col.stats == null) {
              col.stats = stats.get(new ColumnStatsKey(table.schema, table.name, col.name, !table.partitioned));
            }
            table.columns.add(col);
          }
        }
      }
      resolveParsedSequences(needParsing);
    }

    /**
     * Resolves sequence names parsed from defaults such as {@code nextval('x'::text)} (which record no dependency)
     * through the server's own name rules, in one query.
     */
    private void resolveParsedSequences(List<ColumnRow> columns) throws SQLException {
      if (columns.isEmpty()) {
        return;
      }
      Set<String> names = new TreeSet<>();
      columns.forEach(col -> names.add(col.nextvalArgument));
      Map<String, String> resolved = new HashMap<>();
      String sql = "SELECT u.name, sn.nspname, s.relname FROM unnest(?::text[]) u(name) "
          + "JOIN pg_catalog.pg_class s ON s.oid = pg_catalog.to_regclass(u.name) AND s.relkind = 'S' "
          + "JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace";
      // to_regclass raises an error on a syntactically invalid name; a savepoint keeps the snapshot usable
      Savepoint savepoint = c.setSavepoint();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        // an unqualified name in nextval('x'::text) is looked up at insert time in the inserting session's
        // search_path; the role's own path is the best stand-in for it
        setSearchPath(sessionSearchPath);
        ps.setArray(1, c.createArrayOf("text", names.toArray(new String[0])));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            resolved.put(rs.getString("name"), rs.getString("nspname") + "." + rs.getString("relname"));
          }
        }
        setSearchPath("pg_catalog");
        c.releaseSavepoint(savepoint);
      } catch (SQLException e) {
        c.rollback(savepoint);
        LOG.debug("could not resolve sequence names parsed from defaults {}: {}", names, e.getMessage());
      }
      for (ColumnRow col : columns) {
        col.sequence = resolved.get(col.nextvalArgument);
      }
    }

    private void setSearchPath(String path) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.set_config('search_path', ?, true)")) {
        ps.setString(1, path);
        ps.executeQuery().close();
      }
    }

    /** pg_stats for the chosen schemas, keyed by table, column and the {@code inherited} flag. */
    private Map<ColumnStatsKey, PgColumnStats> readColumnStats() throws SQLException {
      String sql = "SELECT schemaname, tablename, attname, inherited, null_frac, n_distinct, correlation, avg_width "
          + "FROM pg_catalog.pg_stats WHERE schemaname = ANY (?)";
      Map<ColumnStatsKey, PgColumnStats> stats = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, schemaArray);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            double correlation = rs.getDouble("correlation");
            Double corr = rs.wasNull() ? null : correlation;
            stats.put(new ColumnStatsKey(rs.getString("schemaname"), rs.getString("tablename"), rs.getString("attname"),
                    rs.getBoolean("inherited")),
                new PgColumnStats(rs.getDouble("null_frac"), rs.getDouble("n_distinct"), corr, rs.getInt("avg_width")));
          }
        }
      }
      return stats;
    }

    // ------------------------------------------------------------------------------------------ constraints

    private void readConstraints(Map<Long, TableRow> tables, Array tableOids) throws SQLException {
      String nullsNotDistinct = versionNum >= 150000
          ? "coalesce((SELECT i.indnullsnotdistinct FROM pg_catalog.pg_index i WHERE i.indexrelid = k.conindid), false)"
          : "false";
      // conparentid <> 0 marks the per-partition copies PostgreSQL adds for a foreign key that references a
      // partitioned table; they repeat the parent constraint and are not declared by the user.
      String sql = "SELECT k.conrelid, k.conname, k.contype, k.condeferrable, k.convalidated, k.confmatchtype, "
          + "k.confupdtype, k.confdeltype, rn.nspname AS ref_schema, r.relname AS ref_table, "
          + "pg_catalog.pg_get_constraintdef(k.oid) AS def, " + nullsNotDistinct + " AS nulls_not_distinct, "
          + "ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY x(attnum, ord) "
          + "  JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.attnum "
          + "  ORDER BY x.ord) AS cols, "
          + "ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY x(attnum, ord) "
          + "  JOIN pg_catalog.pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.attnum ORDER BY x.ord) "
          + "  AS ref_cols "
          + "FROM pg_catalog.pg_constraint k "
          + "LEFT JOIN pg_catalog.pg_class r ON r.oid = k.confrelid "
          + "LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace "
          + "WHERE k.conrelid = ANY (CAST(? AS int8[])::oid[]) AND k.contype IN ('p', 'u', 'f', 'c') "
          + "AND k.conparentid = 0";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, tableOids);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            TableRow t = tables.get(rs.getLong("conrelid"));
            String name = rs.getString("conname");
            List<String> columns = strings(rs.getArray("cols"));
            switch (rs.getString("contype")) {
              case "p" -> t.primaryKey = new PgPrimaryKey(name, columns);
              case "u" -> t.uniques.add(new PgUniqueConstraint(name, columns, rs.getBoolean("nulls_not_distinct")));
              case "f" -> t.foreignKeys.add(new PgForeignKey(name, columns, rs.getString("ref_schema"),
                  rs.getString("ref_table"), strings(rs.getArray("ref_cols")), action(rs.getString("confdeltype")),
                  action(rs.getString("confupdtype")), rs.getBoolean("condeferrable"), rs.getBoolean("convalidated"),
                  "f".equals(rs.getString("confmatchtype"))));
              case "c" -> t.checks.add(new PgCheck(name, CatalogText.checkExpression(rs.getString("def")),
                  rs.getBoolean("convalidated")));
              default -> throw new IllegalStateException("unexpected constraint type for " + name);
            }
          }
        }
      }
    }

    // ---------------------------------------------------------------------------------------------- indexes

    private void readIndexes(Map<Long, TableRow> tables, Array tableOids) throws SQLException {
      String nullsNotDistinct = versionNum >= 150000 ? "i.indnullsnotdistinct" : "false";
      String sql = "SELECT i.indrelid, i.indexrelid, ic.relname, ic.relkind, am.amname, i.indisunique, i.indisvalid, "
          + "i.indnkeyatts, " + nullsNotDistinct + " AS nulls_not_distinct, "
          + "pg_catalog.pg_get_indexdef(i.indexrelid) AS definition, "
          + "pg_catalog.pg_get_expr(i.indpred, i.indrelid, true) AS predicate, "
          + "(SELECT k.conname FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid "
          + "  AND k.conrelid = i.indrelid AND k.contype IN ('u', 'x') LIMIT 1) AS constraint_name, "
          + "ARRAY(SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY x(attnum, ord) "
          + "  LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = x.attnum "
          + "  ORDER BY x.ord) AS attnames, "
          + "ARRAY(SELECT CASE WHEN x.attnum = 0 THEN pg_catalog.pg_get_indexdef(i.indexrelid, x.ord::int, true) END "
          + "  FROM unnest(i.indkey::int2[]) WITH ORDINALITY x(attnum, ord) ORDER BY x.ord) AS exprs, "
          + "i.indoption::int2[] AS options, "
          + "s.idx_scan, pg_catalog.pg_relation_size(i.indexrelid) AS bytes "
          + "FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "
          + "JOIN pg_catalog.pg_am am ON am.oid = ic.relam "
          + "LEFT JOIN pg_catalog.pg_stat_user_indexes s ON s.indexrelid = i.indexrelid "
          + "WHERE i.indrelid = ANY (CAST(? AS int8[])::oid[]) AND NOT i.indisprimary";
      Map<Long, IndexRow> partitionedIndexes = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, tableOids);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            IndexRow ix = new IndexRow();
            ix.name = rs.getString("relname");
            ix.method = rs.getString("amname");
            ix.unique = rs.getBoolean("indisunique");
            ix.constraint = rs.getString("constraint_name");
            ix.predicate = rs.getString("predicate");
            ix.nullsNotDistinct = rs.getBoolean("nulls_not_distinct");
            ix.valid = rs.getBoolean("indisvalid");
            ix.definition = rs.getString("definition");
            ix.scans = nullableLong(rs, "idx_scan");
            ix.bytes = rs.getLong("bytes");
            int keyCount = rs.getInt("indnkeyatts");
            List<String> attnames = strings(rs.getArray("attnames"));
            List<String> exprs = strings(rs.getArray("exprs"));
            List<Integer> options = shorts(rs.getArray("options"));
            for (int k = 0; k < attnames.size(); k++) {
              if (k >= keyCount) {
                ix.include.add(attnames.get(k));
                continue;
              }
              int option = k < options.size() ? options.get(k) : 0;
              // indoption bits: 1 = DESC, 2 = NULLS FIRST (PostgreSQL's INDOPTION_DESC / INDOPTION_NULLS_FIRST)
              ix.elements.add(new PgIndex.Element(attnames.get(k), attnames.get(k) == null ? exprs.get(k) : null,
                  (option & 1) != 0, (option & 2) != 0));
            }
            tables.get(rs.getLong("indrelid")).indexes.add(ix);
            if ("I".equals(rs.getString("relkind"))) {
              ix.scans = null;
              partitionedIndexes.put(rs.getLong("indexrelid"), ix);
            }
          }
        }
      }
      sumPartitionIndexStats(partitionedIndexes);
    }

    /** A partitioned index has no storage or scans of its own: sum those of its partitions' indexes. */
    private void sumPartitionIndexStats(Map<Long, IndexRow> partitionedIndexes) throws SQLException {
      if (partitionedIndexes.isEmpty()) {
        return;
      }
      String sql = "WITH RECURSIVE tree(root, rel) AS ("
          + "  SELECT r, r FROM unnest(CAST(? AS int8[])::oid[]) r "
          + "  UNION ALL SELECT t.root, i.inhrelid FROM tree t JOIN pg_catalog.pg_inherits i ON i.inhparent = t.rel) "
          + "SELECT t.root, sum(s.idx_scan) AS scans, count(s.idx_scan) AS with_stats, "
          + "sum(pg_catalog.pg_relation_size(t.rel)) AS bytes FROM tree t "
          + "LEFT JOIN pg_catalog.pg_stat_user_indexes s ON s.indexrelid = t.rel WHERE t.rel <> t.root GROUP BY t.root";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, c.createArrayOf("int8", partitionedIndexes.keySet().toArray(new Long[0])));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            IndexRow ix = partitionedIndexes.get(rs.getLong("root"));
            ix.scans = rs.getLong("with_stats") > 0 ? rs.getLong("scans") : null;
            ix.bytes = rs.getLong("bytes");
          }
        }
      }
    }

    // -------------------------------------------------------------------------------------------- sequences

    private List<PgSequence> readSequences(List<PgTable> tables) throws SQLException {
      Map<String, List<String>> usedBy = new HashMap<>();
      for (PgTable t : tables) {
        for (PgColumn col : t.columns()) {
          if (col.sequence() != null) {
            usedBy.computeIfAbsent(col.sequence(), k -> new ArrayList<>()).add(t.qualifiedName() + "." + col.name());
          }
        }
      }
      // last_value needs SELECT or USAGE on the sequence; without it the value is unknown, not an error
      String sql = "SELECT n.nspname, c.relname, pg_catalog.format_type(s.seqtypid, NULL) AS data_type, s.seqstart, "
          + "s.seqincrement, s.seqmin, s.seqmax, s.seqcycle, "
          + "CASE WHEN pg_catalog.has_sequence_privilege(c.oid, 'SELECT,USAGE') "
          + "  THEN pg_catalog.pg_sequence_last_value(c.oid) END AS last_value, "
          + "(SELECT tn.nspname || '.' || t.relname || '.' || a.attname FROM pg_catalog.pg_depend d "
          + "  JOIN pg_catalog.pg_class t ON t.oid = d.refobjid "
          + "  JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace "
          + "  JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid "
          + "  WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid "
          + "  AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjsubid > 0 AND d.deptype IN ('a', 'i') "
          + "  LIMIT 1) AS owned_by "
          + "FROM pg_catalog.pg_sequence s JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ANY (?)";
      List<PgSequence> sequences = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setArray(1, schemaArray);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String schema = rs.getString("nspname");
            String name = rs.getString("relname");
            if (!filter.keeps(schema, name)) {
              continue;
            }
            List<String> users = new ArrayList<>(usedBy.getOrDefault(schema + "." + name, List.of()));
            users.sort(Comparator.naturalOrder());
            sequences.add(new PgSequence(schema, name, rs.getString("data_type"), rs.getLong("seqstart"),
                rs.getLong("seqincrement"), rs.getLong("seqmin"), rs.getLong("seqmax"), rs.getBoolean("seqcycle"),
                nullableLong(rs, "last_value"), rs.getString("owned_by"), users));
          }
        }
      }
      sequences.sort(Comparator.comparing(PgSequence::schema).thenComparing(PgSequence::name));
      return sequences;
    }

    // -------------------------------------------------------------------------------------- other objects

    private List<PgObject> readOtherObjects() throws SQLException {
      List<PgObject> objects = new ArrayList<>();
      relations(objects);
      triggers(objects);
      routines(objects);
      rules(objects);
      policies(objects);
      types(objects);
      statisticsObjects(objects);
      databaseWide(objects);
      List<PgObject> kept = new ArrayList<>();
      for (PgObject o : objects) {
        boolean keep = (o.schema() == null || filter.keeps(o.schema(), o.name()))
            && (o.on() == null || filter.exclude() == null || !filter.exclude().matcher(o.on()).find());
        if (keep) {
          kept.add(o);
        }
      }
      kept.sort(OBJECT_ORDER);
      return kept;
    }

    /** Views, materialized views and foreign tables; a view's detail names the relations it reads. */
    private void relations(List<PgObject> out) throws SQLException {
      String sql = "SELECT c.relkind, n.nspname, c.relname, c.relispopulated, fs.srvname, "
          + "CASE WHEN c.relispartition THEN (SELECT rn.nspname || '.' || r.relname FROM pg_catalog.pg_class r "
          + "  JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace "
          + "  WHERE r.oid = pg_catalog.pg_partition_root(c.oid)) END AS partition_of, "
          + "ARRAY(SELECT DISTINCT dn.nspname || '.' || dc.relname FROM pg_catalog.pg_rewrite rw "
          + "  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = rw.oid "
          + "  AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid <> c.oid "
          + "  JOIN pg_catalog.pg_class dc ON dc.oid = d.refobjid "
          + "  JOIN pg_catalog.pg_namespace dn ON dn.oid = dc.relnamespace "
          + "  WHERE rw.ev_class = c.oid AND rw.rulename = '_RETURN' ORDER BY 1) AS reads "
          + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
          + "LEFT JOIN pg_catalog.pg_foreign_table ft ON ft.ftrelid = c.oid "
          + "LEFT JOIN pg_catalog.pg_foreign_server fs ON fs.oid = ft.ftserver "
          + "WHERE c.relkind IN ('v', 'm', 'f') AND n.nspname = ANY (?)";
      query(sql, true, rs -> {
        List<String> reads = strings(rs.getArray("reads"));
        String readsText = reads.isEmpty() ? null : "reads " + String.join(", ", reads);
        switch (rs.getString("relkind")) {
          case "v" -> out.add(new PgObject(PgObject.Kind.VIEW, rs.getString("nspname"), rs.getString("relname"), null,
              readsText));
          case "m" -> out.add(new PgObject(PgObject.Kind.MATERIALIZED_VIEW, rs.getString("nspname"),
              rs.getString("relname"), null, (rs.getBoolean("relispopulated") ? "populated" : "not populated")
                  + (readsText == null ? "" : "; " + readsText)));
          // A foreign partition of a planned table is read with it (its rows are loaded); only its definition is
          // not migrated, so it hangs off that table.
          default -> out.add(new PgObject(PgObject.Kind.FOREIGN_TABLE, rs.getString("nspname"), rs.getString("relname"),
              rs.getString("partition_of"), "on server " + rs.getString("srvname")));
        }
      });
    }

    private void triggers(List<PgObject> out) throws SQLException {
      // Since PostgreSQL 13 a trigger on a partitioned table is cloned onto each partition (tgparentid set);
      // the clones are not user-declared objects.
      String notClone = versionNum >= 130000 ? " AND g.tgparentid = 0" : "";
      String sql = "SELECT n.nspname, c.relname, g.tgname, g.tgtype, "
          + "pg_catalog.pg_get_triggerdef(g.oid) AS def "
          + "FROM pg_catalog.pg_trigger g JOIN pg_catalog.pg_class c ON c.oid = g.tgrelid "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
          + "WHERE NOT g.tgisinternal" + notClone + " AND n.nspname = ANY (?)";
      query(sql, true, rs -> {
        String on = rs.getString("nspname") + "." + rs.getString("relname");
        out.add(new PgObject(PgObject.Kind.TRIGGER, rs.getString("nspname"), rs.getString("tgname"), on,
            CatalogText.triggerDetail(rs.getInt("tgtype"), on, CatalogText.triggerCall(rs.getString("def")))));
      });
    }

    /**
     * Functions, procedures and aggregates written by the user: not owned by an extension (those come back with
     * the extension) and not created implicitly with another object.
     */
    private void routines(List<PgObject> out) throws SQLException {
      String sql = "SELECT n.nspname, p.proname, p.prokind, "
          + "p.proname || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')' AS signature, "
          + "pg_catalog.pg_get_function_result(p.oid) AS result, l.lanname "
          + "FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
          + "JOIN pg_catalog.pg_language l ON l.oid = p.prolang "
          // deptype 'e': owned by an extension; 'i': created with another object (a range type's constructors)
          + "WHERE n.nspname = ANY (?) AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d "
          + "  WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype IN ('e', 'i'))";
      query(sql, true, rs -> {
        PgObject.Kind kind = switch (rs.getString("prokind")) {
          case "p" -> PgObject.Kind.PROCEDURE;
          case "a" -> PgObject.Kind.AGGREGATE;
          default -> PgObject.Kind.FUNCTION;
        };
        String result = rs.getString("result");
        out.add(new PgObject(kind, rs.getString("nspname"), rs.getString("proname"), null,
            rs.getString("signature") + (result == null ? "" : " RETURNS " + result) + " LANGUAGE "
                + rs.getString("lanname")));
      });
    }

    private void rules(List<PgObject> out) throws SQLException {
      String sql = "SELECT n.nspname, c.relname, r.rulename, r.ev_type, r.is_instead "
          + "FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class c ON c.oid = r.ev_class "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
          + "WHERE r.rulename <> '_RETURN' AND n.nspname = ANY (?)";
      query(sql, true, rs -> {
        String event = switch (rs.getString("ev_type")) {
          case "1" -> "SELECT";
          case "2" -> "UPDATE";
          case "3" -> "INSERT";
          case "4" -> "DELETE";
          default -> "?";
        };
        String on = rs.getString("nspname") + "." + rs.getString("relname");
        out.add(new PgObject(PgObject.Kind.RULE, rs.getString("nspname"), rs.getString("rulename"), on,
            "ON " + event + " TO " + on + " DO " + (rs.getBoolean("is_instead") ? "INSTEAD" : "ALSO")));
      });
    }

    private void policies(List<PgObject> out) throws SQLException {
      String sql = "SELECT n.nspname, c.relname, p.polname, p.polcmd, p.polpermissive, "
          + "pg_catalog.pg_get_expr(p.polqual, p.polrelid) AS qual "
          + "FROM pg_catalog.pg_policy p JOIN pg_catalog.pg_class c ON c.oid = p.polrelid "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ANY (?)";
      query(sql, true, rs -> {
        String command = switch (rs.getString("polcmd")) {
          case "r" -> "SELECT";
          case "a" -> "INSERT";
          case "w" -> "UPDATE";
          case "d" -> "DELETE";
          default -> "ALL";
        };
        String qual = rs.getString("qual");
        String on = rs.getString("nspname") + "." + rs.getString("relname");
        out.add(new PgObject(PgObject.Kind.POLICY, rs.getString("nspname"), rs.getString("polname"), on,
            (rs.getBoolean("polpermissive") ? "PERMISSIVE" : "RESTRICTIVE") + " FOR " + command
                + (qual == null ? "" : " USING (" + qual + ")")));
      });
    }

    /** Standalone composite types (CREATE TYPE ... AS (...)) and range types. */
    private void types(List<PgObject> out) throws SQLException {
      String sql = "SELECT n.nspname, t.typname, t.typtype, "
          + "CASE WHEN t.typtype = 'r' THEN pg_catalog.format_type(r.rngsubtype, NULL) END AS subtype, "
          + "(SELECT string_agg(pg_catalog.quote_ident(a.attname) || ' ' "
          + "    || pg_catalog.format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum) "
          + "  FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped) "
          + "  AS attributes "
          + "FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace "
          + "LEFT JOIN pg_catalog.pg_class tc ON tc.oid = t.typrelid "
          + "LEFT JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid "
          + "WHERE n.nspname = ANY (?) AND ((t.typtype = 'c' AND tc.relkind = 'c') OR t.typtype = 'r') "
          + "AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d "
          + "  WHERE d.classid = 'pg_catalog.pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')";
      query(sql, true, rs -> {
        if ("r".equals(rs.getString("typtype"))) {
          out.add(new PgObject(PgObject.Kind.RANGE_TYPE, rs.getString("nspname"), rs.getString("typname"), null,
              "range of " + rs.getString("subtype")));
        } else {
          String attributes = rs.getString("attributes");
          out.add(new PgObject(PgObject.Kind.COMPOSITE_TYPE, rs.getString("nspname"), rs.getString("typname"), null,
              "(" + (attributes == null ? "" : attributes) + ")"));
        }
      });
    }

    private void statisticsObjects(List<PgObject> out) throws SQLException {
      String sql = "SELECT n.nspname, s.stxname, tn.nspname AS table_schema, t.relname AS table_name, "
          + "pg_catalog.pg_get_statisticsobjdef(s.oid) AS def "
          + "FROM pg_catalog.pg_statistic_ext s JOIN pg_catalog.pg_namespace n ON n.oid = s.stxnamespace "
          + "JOIN pg_catalog.pg_class t ON t.oid = s.stxrelid "
          + "JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace "
          + "WHERE n.nspname = ANY (?)";
      query(sql, true, rs -> out.add(new PgObject(PgObject.Kind.STATISTICS_OBJECT, rs.getString("nspname"),
          rs.getString("stxname"), rs.getString("table_schema") + "." + rs.getString("table_name"),
          rs.getString("def"))));
    }

    /** Extensions, event triggers, publications and subscriptions belong to the database, not to a schema. */
    private void databaseWide(List<PgObject> out) throws SQLException {
      // plpgsql is installed in every database by initdb: listing it would tell the user nothing
      query("SELECT e.extname, e.extversion, n.nspname FROM pg_catalog.pg_extension e "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname <> 'plpgsql'", false,
          rs -> out.add(new PgObject(PgObject.Kind.EXTENSION, null, rs.getString("extname"), null,
              "version " + rs.getString("extversion") + " in schema " + rs.getString("nspname"))));
      query("SELECT e.evtname, e.evtevent, p.proname FROM pg_catalog.pg_event_trigger e "
          + "JOIN pg_catalog.pg_proc p ON p.oid = e.evtfoid", false,
          rs -> out.add(new PgObject(PgObject.Kind.EVENT_TRIGGER, null, rs.getString("evtname"), null,
              "ON " + rs.getString("evtevent") + " EXECUTE FUNCTION " + rs.getString("proname") + "()")));
      query("SELECT p.pubname, p.puballtables FROM pg_catalog.pg_publication p", false,
          rs -> out.add(new PgObject(PgObject.Kind.PUBLICATION, null, rs.getString("pubname"), null,
              rs.getBoolean("puballtables") ? "FOR ALL TABLES" : "for selected tables")));
      // pg_subscription is readable column by column only; a role that cannot read it just sees none
      Savepoint savepoint = c.setSavepoint();
      try {
        query("SELECT s.subname, s.subenabled FROM pg_catalog.pg_subscription s "
            + "WHERE s.subdbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())", false,
            rs -> out.add(new PgObject(PgObject.Kind.SUBSCRIPTION, null, rs.getString("subname"), null,
                rs.getBoolean("subenabled") ? "enabled" : "disabled")));
        c.releaseSavepoint(savepoint);
      } catch (SQLException e) {
        c.rollback(savepoint);
        LOG.debug("subscriptions not listed: {}", e.getMessage());
      }
    }

    private void query(String sql, boolean bindSchemas, RowConsumer consumer) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        if (bindSchemas) {
          ps.setArray(1, schemaArray);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            consumer.accept(rs);
          }
        }
      }
    }
  }

  @FunctionalInterface
  private interface RowConsumer {
    void accept(ResultSet rs) throws SQLException;
  }

  // ------------------------------------------------------------------------------------------------- helpers

  private static PgForeignKey.Action action(String code) {
    return switch (code) {
      case "a" -> PgForeignKey.Action.NO_ACTION;
      case "r" -> PgForeignKey.Action.RESTRICT;
      case "c" -> PgForeignKey.Action.CASCADE;
      case "n" -> PgForeignKey.Action.SET_NULL;
      case "d" -> PgForeignKey.Action.SET_DEFAULT;
      default -> throw new IllegalStateException("unknown foreign key action code " + code);
    };
  }

  private static String strategy(String partstrat) {
    if (partstrat == null) {
      return null;
    }
    return switch (partstrat) {
      case "r" -> "RANGE";
      case "l" -> "LIST";
      case "h" -> "HASH";
      default -> partstrat;
    };
  }

  private static List<String> strings(Array array) throws SQLException {
    if (array == null) {
      return List.of();
    }
    Object[] values = (Object[]) array.getArray();
    List<String> list = new ArrayList<>(values.length);
    for (Object v : values) {
      list.add(v == null ? null : v.toString());
    }
    return list;
  }

  private static List<Integer> shorts(Array array) throws SQLException {
    if (array == null) {
      return List.of();
    }
    Object[] values = (Object[]) array.getArray();
    List<Integer> list = new ArrayList<>(values.length);
    for (Object v : values) {
      list.add(v == null ? 0 : ((Number) v).intValue());
    }
    return list;
  }

  private static Long nullableLong(ResultSet rs, String column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? null : value;
  }

  private static Long sum(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : a + b;
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }

  // ------------------------------------------------------------------------------- rows being assembled

  private record ColumnStatsKey(String schema, String table, String column, boolean inherited) {}

  private record TypeRow(long oid, String schema, String name, String typtype, boolean isArray, long elem,
      long baseType, int baseTypmod, int ndims, boolean notNull, String display, String baseDisplay,
      String defaultExpression, List<String> checks, List<String> labels) {}

  private static final class StatsRow {
    Double rows;
    long pages;
    long totalBytes;
    long tableBytes;
    Long inserts;
    Long updates;
    Long deletes;
    Instant lastAnalyzed;
  }

  private static final class ColumnRow {
    String name;
    int position;
    PgType type;
    boolean notNull;
    String defaultExpression;
    PgColumn.Identity identity;
    String generatedExpression;
    String sequence;
    String nextvalArgument;
    String collation;
    String comment;
    PgColumnStats stats;

    PgColumn toColumn() {
      return new PgColumn(name, position, type, notNull, defaultExpression, identity, generatedExpression, sequence,
          collation, comment, stats);
    }
  }

  private static final class IndexRow {
    String name;
    String method;
    boolean unique;
    String constraint;
    final List<PgIndex.Element> elements = new ArrayList<>();
    final List<String> include = new ArrayList<>();
    String predicate;
    boolean nullsNotDistinct;
    boolean valid;
    String definition;
    Long scans;
    long bytes;

    PgIndex toIndex() {
      return new PgIndex(name, method, unique, constraint, elements, include, predicate, nullsNotDistinct, valid,
          definition, new PgIndexStats(scans, bytes));
    }
  }

  private static final class TableRow {
    final long oid;
    final String schema;
    final String name;
    final boolean partitioned;
    String comment;
    String partitionKey;
    String partitionStrategy;
    final List<String> partitions = new ArrayList<>();
    int leaves;
    List<String> parents = List.of();
    boolean hasChildren;
    Instant statsSince;
    final StatsRow stats = new StatsRow();
    final List<ColumnRow> columns = new ArrayList<>();
    PgPrimaryKey primaryKey;
    final List<PgUniqueConstraint> uniques = new ArrayList<>();
    final List<PgForeignKey> foreignKeys = new ArrayList<>();
    final List<PgCheck> checks = new ArrayList<>();
    final List<IndexRow> indexes = new ArrayList<>();

    TableRow(long oid, String schema, String name, boolean partitioned) {
      this.oid = oid;
      this.schema = schema;
      this.name = name;
      this.partitioned = partitioned;
    }

    PgTable toTable() {
      columns.sort(Comparator.comparingInt(col -> col.position));
      uniques.sort(Comparator.comparing(PgUniqueConstraint::name));
      foreignKeys.sort(Comparator.comparing(PgForeignKey::name));
      checks.sort(Comparator.comparing(PgCheck::name));
      indexes.sort(Comparator.comparing(ix -> ix.name));
      partitions.sort(Comparator.naturalOrder());
      PgTable.Partitioning partitioning = partitioned
          ? new PgTable.Partitioning(partitionStrategy, partitionKey, partitions) : null;
      PgTableStats tableStats = new PgTableStats(stats.rows, stats.pages, stats.totalBytes, stats.tableBytes,
          stats.inserts, stats.updates, stats.deletes, statsSince, stats.lastAnalyzed);
      return new PgTable(schema, name, partitioned ? PgTable.Kind.PARTITIONED : PgTable.Kind.TABLE,
          columns.stream().map(ColumnRow::toColumn).toList(), primaryKey, uniques, foreignKeys, checks,
          indexes.stream().map(IndexRow::toIndex).toList(), partitioning, parents, hasChildren, comment, tableStats);
    }
  }
}
