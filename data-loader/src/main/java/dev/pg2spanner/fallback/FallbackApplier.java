package dev.pg2spanner.fallback;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.fallback.ChangeStreamReader.Change;
import dev.pg2spanner.fallback.ChangeStreamReader.ModType;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.KeyUuid;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Applies Spanner change records to the source PostgreSQL, reversing the plan's mapping: each Spanner table to its
 * source table, each column to its source column (renamed columns named back; shard and synthetic columns, which the
 * source does not have, dropped), values converted back to the source column's type ({@link ReverseValue}), a
 * remapped UUID key replaced by the original id its kept column holds (and a column referencing it by the referenced
 * row's kept id).
 *
 * <p>Idempotent: an insert or update is an upsert of the whole row by the source's primary key, a delete deletes by
 * it, and an update that changed the source key (a kept id changed on Spanner) deletes the old key first. A batch of
 * changes and the position after them commit in one PostgreSQL transaction. A change the source cannot hold (a value
 * its column cannot keep exactly, a constraint it refuses) is dead-lettered with the reason and not written: the
 * batch is then applied again with a savepoint around each change, so the others still apply.
 *
 * <p>Many rows go to PostgreSQL in one statement: consecutive upserts (or deletes) of the same form on one table are
 * sent as one multi-row {@code INSERT ... VALUES (...), (...) ON CONFLICT ...} (or {@code DELETE ... WHERE (key) IN
 * (...)}), each key at most once in a statement. A table's statements keep their order (a change of another form, or
 * a key already in the pending statement, sends the pending one first), so each key's changes apply in commit order
 * and a row's unique checks see the rows before it as they would one statement at a time; statements on different
 * tables may be sent in another order than they committed, which changes nothing here: the source's foreign-key
 * triggers do not fire for this session (below), and every other constraint is about one table.
 *
 * <p>The applying session runs with {@code session_replication_role = replica}: the source's triggers (including the
 * ones that enforce foreign keys) do not fire for these changes, as for any logical replica. Spanner already enforced
 * its foreign keys when the application wrote, and a trigger that writes elsewhere (audit, counters) would double
 * what the application did on Spanner. Not thread-safe.
 */
final class FallbackApplier implements AutoCloseable {

  private final Connection source;
  private final DatabaseClient spanner;
  private final SpannerDialect dialect;
  private final Map<String, TableMap> byTarget = new LinkedHashMap<>();
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  /** Per source table: the rows of the multi-row statement waiting to be sent. */
  private final Map<String, Pending> pending = new LinkedHashMap<>();

  /** One table's rows waiting to be sent as one statement, all of one form, each key once. */
  private static final class Pending {
    final List<Op> ops = new ArrayList<>();
    final java.util.Set<List<Object>> keys = new java.util.HashSet<>();
  }
  /**
   * Per UUID namespace: a remapped key's UUID → its original id (the kept column), learned or looked up; the caller's
   * map, so what was learned outlives this applier's connection.
   */
  private final Map<String, Map<String, String>> originalIds;

  /** One source column and the Spanner column it is brought back from. */
  private record ColumnMap(String source, ColumnPlan column, ReverseValue.Target target) {}

  /** One table's mapping. */
  private record TableMap(TablePlan plan, String sourceTable, List<ColumnMap> columns, List<String> sourceKey,
      String uuidNamespace, String uuidKeyColumn, String keptColumn) {
    ColumnMap column(String source) {
      return columns.stream().filter(c -> c.source().equals(source)).findFirst().orElse(null);
    }
  }

  /** What applying one window did. */
  record Outcome(long applied, List<RejectedRow> rejected) {}

  /**
   * @param source a connection to the source this applier owns from now on (autocommit off, replica role)
   * @param spanner the target, to look up the original id of a remapped key a change refers to
   * @param originalIds what earlier appliers learned of remapped keys' original ids (filled in as this one learns)
   */
  FallbackApplier(Plan plan, Connection source, DatabaseClient spanner, Map<String, Map<String, String>> originalIds)
      throws SQLException {
    this.source = source;
    this.spanner = spanner;
    this.originalIds = originalIds;
    this.dialect = plan.target().spannerDialect();
    for (TablePlan t : plan.tables()) {
      byTarget.put(t.target(), map(t));
    }
  }

  private TableMap map(TablePlan t) throws SQLException {
    String regclass = regclass(t.source());
    Map<String, ReverseValue.Target> catalog = new LinkedHashMap<>();
    Map<String, Boolean> generated = new HashMap<>();
    try (PreparedStatement ps = source.prepareStatement("SELECT a.attname, format_type(a.atttypid, NULL) AS base, "
        + "a.atttypmod, a.attgenerated <> '' AS generated, t.typcategory, "
        + "coalesce(e.typname, t.typname) AS element FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
        + "LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A' "
        + "WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped")) {
      ps.setString(1, regclass);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String element = rs.getString("element");
          int typmod = rs.getInt("atttypmod");
          int scale = element.equals("numeric") && typmod >= 4 ? (typmod - 4) & 0xffff : -1;
          int fraction = element.matches("timestamp|timestamptz|time|timetz") && typmod >= 0 ? typmod : 6;
          catalog.put(rs.getString("attname"), new ReverseValue.Target(null, castable(rs.getString("base")), scale,
              fraction,
              "A".equals(rs.getString("typcategory"))));
          generated.put(rs.getString("attname"), rs.getBoolean("generated"));
        }
      }
    }
    if (catalog.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "the source table " + t.source() + " is gone or "
          + "has no columns; fallback brings Spanner's changes back into the tables the plan migrated. Restore it, "
          + "then run fallback again");
    }
    List<String> key = new ArrayList<>();
    try (PreparedStatement ps = source.prepareStatement("SELECT a.attname FROM pg_index i "
        + "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) "
        + "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
        + "WHERE i.indrelid = ?::regclass AND i.indisprimary ORDER BY k.n")) {
      ps.setString(1, regclass);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          key.add(rs.getString("attname"));
        }
      }
    }
    // Each source column from one Spanner column; a remapped key's UUID column yields to the kept original id.
    Map<String, ColumnPlan> chosen = new LinkedHashMap<>();
    for (ColumnPlan c : t.columns()) {
      if (c.source() == null || c.conversion() == ValueConversion.SYNTHETIC || !catalog.containsKey(c.source())
          || generated.getOrDefault(c.source(), false)) {
        continue;
      }
      ColumnPlan was = chosen.get(c.source());
      if (was == null || was.conversion() == ValueConversion.KEY_UUID) {
        chosen.put(c.source(), c);
      }
    }
    List<ColumnMap> columns = new ArrayList<>();
    chosen.forEach((name, c) -> {
      ReverseValue.Target base = catalog.get(name);
      columns.add(new ColumnMap(name, c, new ReverseValue.Target(c.conversion(), base.baseType(), base.numericScale(),
          base.fractionDigits(), base.array())));
    });
    String namespace = null;
    String uuidKey = null;
    String kept = null;
    KeyStrategy k = t.keyStrategy();
    if (k.kind() == KeyStrategy.Kind.UUID && k.keptKeyColumn() != null) {
      for (KeyPart p : t.primaryKey()) {
        ColumnPlan c = t.column(p.column()).orElse(null);
        if (c != null && c.conversion() == ValueConversion.KEY_UUID) {
          namespace = c.uuidNamespace();
          uuidKey = c.target();
        }
      }
      kept = k.keptKeyColumn();
    }
    return new TableMap(t, t.source(), columns, key, namespace, uuidKey, kept);
  }

  /**
   * The most rows one multi-row statement holds (as the source's insert ceiling in the bench: 500-row INSERTs): one
   * round trip and one statement for many rows, its parameters well under PostgreSQL's 65,535.
   */
  static final int ROWS_PER_STATEMENT = 500;
  private static final int PARAMETERS_PER_STATEMENT = 30_000;

  /** Where the changes the source cannot hold go: written before the transaction that moves the position past them. */
  interface Rejections {
    void write(List<RejectedRow> rejected);
  }

  /**
   * Applies a batch of changes and the position after them in one transaction. The changes the source refused are
   * handed to {@code rejections} just before that transaction commits, so none is lost when the commit's reply is
   * (a connection cut, {@code kill -9}); the dead-letter file lists a row once, however often its batch is applied.
   */
  Outcome apply(List<Change> changes, String stream, Timestamp appliedTo, Rejections rejections)
      throws SQLException {
    try {
      return attempt(changes, stream, appliedTo, false, rejections);
    } catch (SQLException e) {
      discardPending();
      try {
        source.rollback();
      } catch (SQLException gone) {
        e.addSuppressed(gone);
        throw e; // the connection is gone: the first failure says why
      }
      if (!rowLevel(e)) {
        throw e;
      }
      // A change the source refused: apply the window again, each change under a savepoint.
      return attempt(changes, stream, appliedTo, true, rejections);
    }
  }

  private Outcome attempt(List<Change> changes, String stream, Timestamp appliedTo, boolean careful,
      Rejections rejections) throws SQLException {
    List<RejectedRow> rejected = new ArrayList<>();
    long applied = 0;
    // Original ids first, from every row of the window: a child's change may come before its parent's in one
    // transaction (a parent deleted with its children cannot be looked up afterwards).
    for (Change c : changes) {
      TableMap m = byTarget.get(c.table());
      if (m != null && m.uuidNamespace() != null) {
        Map<String, JsonNode> row = new LinkedHashMap<>(c.keys());
        row.putAll(c.oldValues());
        learn(m, row);
        row.putAll(c.newValues());
        learn(m, row);
      }
    }
    for (Change c : changes) {
      TableMap m = byTarget.get(c.table());
      if (m == null) {
        continue; // not a migrated table (the stream watches only those)
      }
      List<Op> ops;
      try {
        ops = operations(m, c);
      } catch (ReverseValue.Unfit e) {
        rejected.add(reject(m, c, e.getMessage()));
        continue;
      }
      if (!careful) {
        for (Op op : ops) {
          add(op);
        }
        applied++;
        continue;
      }
      Savepoint savepoint = source.setSavepoint();
      try {
        for (Op op : ops) {
          run(op);
        }
        source.releaseSavepoint(savepoint);
        applied++;
      } catch (SQLException e) {
        if (!rowLevel(e)) {
          throw e;
        }
        source.rollback(savepoint);
        rejected.add(reject(m, c, "the source refused it: " + e.getMessage()));
      }
    }
    flushAll();
    FallbackPosition.save(source, stream, appliedTo, applied);
    if (!rejected.isEmpty()) {
      rejections.write(rejected);
    }
    source.commit();
    return new Outcome(applied, rejected);
  }

  /** Adds {@code op} to its table's pending statement, sending that first when {@code op} cannot join it. */
  private void add(Op op) throws SQLException {
    Pending p = pending.get(op.table());
    int most = Math.max(1, Math.min(ROWS_PER_STATEMENT, PARAMETERS_PER_STATEMENT / Math.max(1, op.values().size())));
    if (p != null && (!p.ops.get(0).form().equals(op.form()) || p.keys.contains(op.key()) || p.ops.size() >= most)) {
      flush(op.table());
      p = null;
    }
    if (p == null) {
      p = new Pending();
      pending.put(op.table(), p);
    }
    p.ops.add(op);
    p.keys.add(op.key());
  }

  private void flush(String table) throws SQLException {
    Pending p = pending.remove(table);
    if (p == null) {
      return;
    }
    Op first = p.ops.get(0);
    StringBuilder sql = new StringBuilder(first.head());
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < p.ops.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(first.row());
      values.addAll(p.ops.get(i).values());
    }
    sql.append(first.tail());
    PreparedStatement ps = prepare(sql.toString());
    bind(ps, values);
    ps.executeUpdate();
  }

  private void flushAll() throws SQLException {
    for (String table : new ArrayList<>(pending.keySet())) {
      flush(table);
    }
  }

  /** Runs {@code op} at once, alone (a change under its own savepoint). */
  private void run(Op op) throws SQLException {
    PreparedStatement ps = prepare(op.form());
    bind(ps, op.values());
    ps.executeUpdate();
  }

  /** Forgets rows a rolled-back attempt left unsent. */
  private void discardPending() {
    pending.clear();
  }

  /** Data and constraint errors belong to one change; anything else (a lost connection, a lock timeout) does not. */
  private static boolean rowLevel(SQLException e) {
    String state = e.getSQLState();
    if (state == null && e.getNextException() != null) {
      state = e.getNextException().getSQLState(); // a batch's error is chained to it
    }
    return state != null && (state.startsWith("22") || state.startsWith("23"));
  }

  private RejectedRow reject(TableMap m, Change c, String reason) {
    return new RejectedRow(m.sourceTable(), "spanner " + c.table() + " " + c.keys() + " " + c.modType()
        .name().toLowerCase(java.util.Locale.ROOT) + " committed at " + c.commitTimestamp(), null,
        excerpt(c), "fallback: " + reason);
  }

  private static String excerpt(Change c) {
    String values = (c.modType() == ModType.DELETE ? c.oldValues() : c.newValues()).toString();
    return values.length() > 200 ? values.substring(0, 200) + "..." : values;
  }

  /**
   * One row's statement on a source table: {@code head + row + tail} alone, or {@code head + row, row, ... + tail} for
   * many rows of the same form.
   *
   * @param key the row's source key (bytes compared by content), so that a statement names each key once
   */
  private record Op(String table, String head, String row, String tail, List<Object> key, List<Object> values) {
    String form() {
      return head + row + tail;
    }
  }

  private static List<Object> keyOf(Map<String, Object> key) {
    List<Object> k = new ArrayList<>();
    for (Object v : key.values()) {
      k.add(v instanceof byte[] bytes ? java.nio.ByteBuffer.wrap(bytes) : v);
    }
    return k;
  }

  private List<Op> operations(TableMap m, Change c) throws ReverseValue.Unfit {
    if (m.sourceKey().isEmpty()) {
      throw new ReverseValue.Unfit("the source table has no primary key, so the row cannot be found by key");
    }
    Map<String, JsonNode> oldRow = new LinkedHashMap<>(c.keys());
    Map<String, JsonNode> newRow = new LinkedHashMap<>(c.keys());
    if (c.modType() == ModType.DELETE) {
      oldRow.putAll(c.oldValues());
    } else {
      newRow.putAll(c.newValues());
      oldRow.putAll(c.newValues());
      oldRow.putAll(c.oldValues());
    }
    Map<String, JsonNode> row = c.modType() == ModType.DELETE ? oldRow : newRow;
    requireDerivedUuid(m, row);
    learn(m, row);
    List<Op> ops = new ArrayList<>();
    Map<String, Object> oldKey = key(m, oldRow, c.commitTimestamp());
    if (c.modType() == ModType.DELETE) {
      ops.add(delete(m, oldKey));
      return ops;
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (ColumnMap col : m.columns()) {
      if (newRow.containsKey(col.column().target())) {
        values.put(col.source(), value(col, newRow.get(col.column().target()), c.commitTimestamp()));
      }
    }
    Map<String, Object> newKey = key(m, newRow, c.commitTimestamp());
    if (c.modType() == ModType.UPDATE && !sameKey(oldKey, newKey)) {
      ops.add(delete(m, oldKey)); // the source key moved (a kept id changed): the old row goes
    }
    ops.add(upsert(m, values, newKey));
    return ops;
  }

  private static boolean sameKey(Map<String, Object> a, Map<String, Object> b) {
    for (Map.Entry<String, Object> e : a.entrySet()) {
      Object other = b.get(e.getKey());
      boolean equal = e.getValue() instanceof byte[] x && other instanceof byte[] y ? java.util.Arrays.equals(x, y)
          : Objects.equals(e.getValue(), other);
      if (!equal) {
        return false;
      }
    }
    return true;
  }

  private Map<String, Object> key(TableMap m, Map<String, JsonNode> row, Timestamp at) throws ReverseValue.Unfit {
    Map<String, Object> key = new LinkedHashMap<>();
    for (String k : m.sourceKey()) {
      ColumnMap col = m.column(k);
      if (col == null) {
        throw new ReverseValue.Unfit("the source key column " + k + " is not migrated, so the row cannot be found");
      }
      Object v = value(col, row.get(col.column().target()), at);
      if (v == null) {
        throw new ReverseValue.Unfit("the row has no value for " + col.column().target() + ", which holds the "
            + "source's key column " + k + (m.keptColumn() != null && col.column().target().equals(m.keptColumn())
            ? " (a row inserted on Spanner needs its original id kept there to exist on the source)" : ""));
      }
      key.put(k, v);
    }
    return key;
  }

  private Object value(ColumnMap col, JsonNode v, Timestamp at) throws ReverseValue.Unfit {
    if (col.column().conversion() != ValueConversion.KEY_UUID) {
      return ReverseValue.of(col.target(), v);
    }
    if (v == null || v.isNull()) {
      return null;
    }
    return originalId(col.column().uuidNamespace(), v.asText(), at);
  }

  /**
   * A row of a table whose integer key was remapped to UUIDs goes back only when its UUID is the one its original id
   * maps to ({@link KeyUuid#of}): the source keeps the integer alone, and verify (and the next migration) derive the
   * UUID from it. A row the application created with a random UUID cannot go back exactly.
   */
  private static void requireDerivedUuid(TableMap m, Map<String, JsonNode> row) throws ReverseValue.Unfit {
    if (m.uuidNamespace() == null) {
      return;
    }
    JsonNode uuid = row.get(m.uuidKeyColumn());
    JsonNode kept = row.get(m.keptColumn());
    if (uuid == null || kept == null || kept.isNull()) {
      return; // the source key's own check names the missing original id
    }
    String derived;
    try {
      derived = KeyUuid.of(java.util.UUID.fromString(m.uuidNamespace()), Long.parseLong(kept.asText())).toString();
    } catch (IllegalArgumentException e) {
      throw new ReverseValue.Unfit("the original id " + kept.asText() + " in " + m.keptColumn() + " is not an "
          + "integer");
    }
    if (!derived.equalsIgnoreCase(uuid.asText())) {
      throw new ReverseValue.Unfit("its key " + m.uuidKeyColumn() + " = " + uuid.asText() + " is not the UUID its "
          + "original id " + m.keptColumn() + " = " + kept.asText() + " maps to (" + derived + "), and the source "
          + "keeps only the integer: write new rows with the derived UUID to bring them back");
    }
  }

  /** Remembers the original id of a remapped key's UUID from a row of its own table. */
  private void learn(TableMap m, Map<String, JsonNode> row) {
    if (m.uuidNamespace() == null) {
      return;
    }
    JsonNode uuid = row.get(m.uuidKeyColumn());
    JsonNode kept = row.get(m.keptColumn());
    if (uuid != null && kept != null && !kept.isNull()) {
      originalIds.computeIfAbsent(m.uuidNamespace(), n -> new HashMap<>()).put(uuid.asText(), kept.asText());
    }
  }

  /** The original id a remapped key's UUID stands for: learned from the stream, else read from its Spanner row. */
  private String originalId(String namespace, String uuid, Timestamp at) throws ReverseValue.Unfit {
    Map<String, String> ids = originalIds.computeIfAbsent(namespace, n -> new HashMap<>());
    String id = ids.get(uuid);
    if (id != null) {
      return id;
    }
    TableMap owner = byTarget.values().stream().filter(t -> namespace.equals(t.uuidNamespace())).findFirst()
        .orElseThrow(() -> new ReverseValue.Unfit("the UUID " + uuid + " is a remapped key whose table keeps no "
            + "original id, so the source's integer id cannot be known"));
    String table = owner.plan().target();
    String name = SpannerNames.dotted(dialect, table);
    Statement lookup = dialect.isPostgres()
        ? Statement.newBuilder("SELECT CAST(" + SpannerNames.quote(dialect, owner.keptColumn()) + " AS varchar) FROM "
            + name + " WHERE " + SpannerNames.quote(dialect, owner.uuidKeyColumn()) + " = $1").bind("p1").to(uuid)
            .build()
        : Statement.newBuilder("SELECT CAST(" + SpannerNames.quote(owner.keptColumn()) + " AS STRING) FROM " + name
            + " WHERE " + SpannerNames.quote(owner.uuidKeyColumn()) + " = @u").bind("u").to(uuid).build();
    // Now, else as Spanner held it just before the change (within its version retention, an hour by default).
    long before = at.getSeconds() * 1_000_000_000L + at.getNanos() - 1_000;
    for (TimestampBound bound : List.of(TimestampBound.strong(), TimestampBound.ofReadTimestamp(
        Timestamp.ofTimeSecondsAndNanos(Math.floorDiv(before, 1_000_000_000L),
            (int) Math.floorMod(before, 1_000_000_000L))))) {
      try (ResultSet rs = spanner.singleUse(bound).executeQuery(lookup)) {
        if (rs.next() && !rs.isNull(0)) {
          ids.put(uuid, rs.getString(0));
          return rs.getString(0);
        }
      } catch (com.google.cloud.spanner.SpannerException tooOld) {
        // older than the version retention: not known
      }
    }
    throw new ReverseValue.Unfit("it refers to " + table + " row " + uuid + ", which Spanner no longer holds and "
        + "the stream did not show, so its original id is unknown");
  }

  private Op delete(TableMap m, Map<String, Object> key) {
    List<String> names = new ArrayList<>();
    List<String> placeholders = new ArrayList<>();
    for (String k : key.keySet()) {
      names.add(PgNames.quote(k));
      placeholders.add(placeholder(m.column(k).target()));
    }
    return new Op(m.sourceTable(), "DELETE FROM " + qualified(m.sourceTable()) + " WHERE (" + String.join(", ", names)
        + ") IN (", "(" + String.join(", ", placeholders) + ")", ")", keyOf(key), new ArrayList<>(key.values()));
  }

  private Op upsert(TableMap m, Map<String, Object> values, Map<String, Object> key) {
    List<String> names = new ArrayList<>();
    List<String> placeholders = new ArrayList<>();
    List<String> updates = new ArrayList<>();
    for (String column : values.keySet()) {
      names.add(PgNames.quote(column));
      placeholders.add(placeholder(m.column(column).target()));
      if (!m.sourceKey().contains(column)) {
        updates.add(PgNames.quote(column) + " = EXCLUDED." + PgNames.quote(column));
      }
    }
    return new Op(m.sourceTable(), "INSERT INTO " + qualified(m.sourceTable()) + " (" + String.join(", ", names)
        + ") OVERRIDING SYSTEM VALUE VALUES ", "(" + String.join(", ", placeholders) + ")", " ON CONFLICT ("
        + String.join(", ", m.sourceKey().stream().map(PgNames::quote).toList()) + ") DO "
        + (updates.isEmpty() ? "NOTHING" : "UPDATE SET " + String.join(", ", updates)), keyOf(key),
        new ArrayList<>(values.values()));
  }

  /**
   * The type a value is cast to before it is assigned: the column's type without modifier, except where that means a
   * length of one ({@code character}, {@code bit}): there the unbounded type, so the assignment checks the length.
   */
  private static String castable(String base) {
    return base.replaceFirst("^character(?=$|\\[)", "text").replaceFirst("^bit(?=$|\\[)", "bit varying");
  }

  /** Text through the column type's input function (its modifier applied on assignment); money via numeric. */
  private static String placeholder(ReverseValue.Target t) {
    if (t.isBytes()) {
      return "CAST(? AS bytea)";
    }
    if (t.isMoney()) {
      return "CAST(CAST(? AS numeric) AS money)";
    }
    return "CAST(? AS " + t.baseType() + ")";
  }

  private static void bind(PreparedStatement ps, List<Object> values) throws SQLException {
    for (int i = 0; i < values.size(); i++) {
      Object v = values.get(i);
      if (v instanceof byte[] bytes) {
        ps.setBytes(i + 1, bytes);
      } else {
        ps.setString(i + 1, (String) v);
      }
    }
  }

  private PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = source.prepareStatement(sql);
      statements.put(sql, ps);
    }
    return ps;
  }

  private static String qualified(String dotted) {
    int dot = dotted.indexOf('.');
    return PgNames.qualified(dotted.substring(0, dot), dotted.substring(dot + 1));
  }

  private static String regclass(String dotted) {
    return qualified(dotted);
  }

  @Override
  public void close() {
    for (PreparedStatement ps : statements.values()) {
      try {
        ps.close();
      } catch (SQLException ignored) {
        // the connection closes next
      }
    }
  }
}
