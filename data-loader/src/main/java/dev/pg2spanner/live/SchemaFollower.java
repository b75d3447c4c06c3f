package dev.pg2spanner.live;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.PgOutput;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.RowHash;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.planner.TableReplan;
import dev.pg2spanner.spanner.SpannerType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Follows a planned table whose columns changed on the source while its changes stream. pgoutput announces a
 * relation's new shape (a Relation message) before its first change in that shape; DDL itself is not streamed. The
 * difference between the shape the stream had and the new one is read as column changes — added, dropped, renamed
 * (the same {@code attnum} under another name), retyped — and each is translated through the planner's own rules
 * ({@link TableReplan}: the table planned again from the catalog as it is now) into the Spanner DDL that keeps the
 * target in step, and into a revision of the table's plan that the stream then converts with:
 *
 * <ul>
 *   <li>an added column gets the type, name, NOT NULL and default {@code plan} gives it; the rows the table already
 *       had hold the value PostgreSQL stored once for them (a constant default), given to them in Spanner by the
 *       {@code ADD COLUMN}'s DEFAULT, after which the planned default is set;
 *   <li>a dropped column is dropped, after the indexes and constraints PostgreSQL dropped with it;
 *   <li>a renamed column keeps its Spanner name (Spanner renames no column): only the plan's source name changes;
 *   <li>a retyped column whose Spanner type and conversion stay the same (e.g. {@code int} to {@code bigint}) changes
 *       nothing on the target; a {@code STRING(n)} or {@code BYTES(n)} that changes length is altered in place.
 * </ul>
 *
 * What cannot be translated — a key column, a column a shard is computed from, a type Spanner cannot change in place, a
 * new column whose existing values PostgreSQL set by rewriting the table (a volatile default) — stops the stream
 * before the change is applied, naming the table and the change. The result is computed relative to the table's
 * current plan, so the partitions of one table (each announced by its own Relation message) produce the DDL once.
 */
final class SchemaFollower {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SchemaFollower.class);

  /**
   * What one relation's new shape becomes.
   *
   * @param table the table's revised plan (the same object when nothing in the plan changes)
   * @param shape the relation's new shape
   * @param ddl the Spanner statements, in order (empty when the target needs none)
   * @param changes the changes in words, for the output and the schema history
   */
  record Revision(TablePlan table, SourceShape.Relation shape, List<String> ddl, List<String> changes) {
    Revision {
      ddl = List.copyOf(ddl);
      changes = List.copyOf(changes);
    }
  }

  private SchemaFollower() {}

  /**
   * @param c a connection to the source (the catalog as it is now)
   * @param plan the run's current plan
   * @param current the table's current plan
   * @param old the relation's shape the stream had
   * @param now the Relation message announcing its new shape
   * @throws Pg2SpannerException PLAN_INVALID when a change cannot be followed
   */
  static Revision follow(Connection c, Plan plan, TablePlan current, SourceShape.Relation old, PgOutput.Relation now,
      String toolVersion) throws SQLException {
    String table = current.source();
    TableReplan.Result replan = TableReplan.of(c, plan, table, toolVersion).orElseThrow(() -> cannot(current,
        "the table is gone from the source's catalog"));
    Map<String, Integer> attnums = attnums(c, now.relationId());
    Map<String, SourceShape.Column> before = new LinkedHashMap<>();
    old.columns().forEach(col -> before.put(col.name(), col));
    Map<String, PgOutput.Column> after = new LinkedHashMap<>();
    now.columns().forEach(col -> after.put(col.name(), col));

    // Renames: a column gone under its old name whose attnum now carries another name.
    Map<String, String> renamed = new LinkedHashMap<>(); // old name -> new name
    for (SourceShape.Column col : old.columns()) {
      if (after.containsKey(col.name())) {
        continue;
      }
      if (col.attnum() == 0) {
        throw cannot(current, "column " + col.name() + " is gone, and this run's state does not record column "
            + "numbers (it was started by an earlier pg2spanner), so a rename cannot be told from a drop");
      }
      attnums.forEach((name, attnum) -> {
        if (attnum == col.attnum() && !before.containsKey(name) && after.containsKey(name)) {
          renamed.put(col.name(), name);
        }
      });
    }
    List<String> dropped = old.columns().stream().map(SourceShape.Column::name)
        .filter(n -> !after.containsKey(n) && !renamed.containsKey(n)).toList();
    List<String> added = now.columns().stream().map(PgOutput.Column::name)
        .filter(n -> !before.containsKey(n) && !renamed.containsValue(n)).toList();
    List<String> retyped = now.columns().stream().filter(col -> before.containsKey(col.name()))
        .filter(col -> before.get(col.name()).typeOid() != col.typeOid()
            || before.get(col.name()).typeModifier() != col.typeModifier())
        .map(PgOutput.Column::name).toList();

    Map<String, ColumnPlan> planned = new HashMap<>();
    replan.table().columns().stream().filter(col -> col.source() != null).forEach(col -> planned.put(col.source(),
        col));
    List<ColumnPlan> columns = new ArrayList<>(current.columns());
    List<String> ddl = new ArrayList<>();
    List<String> described = new ArrayList<>();
    List<IndexPlan> indexes = new ArrayList<>(current.indexes());
    List<ForeignKeyPlan> foreignKeys = new ArrayList<>(current.foreignKeys());
    List<CheckPlan> checks = new ArrayList<>(current.checks());
    Set<String> keyColumns = new HashSet<>(current.primaryKey().stream().map(KeyPart::column).toList());

    for (Map.Entry<String, String> r : renamed.entrySet()) {
      int i = indexOfSource(columns, r.getKey());
      if (i < 0) {
        continue; // the plan follows it already (another partition of this table announced it first)
      }
      ColumnPlan col = columns.get(i);
      columns.set(i, new ColumnPlan(r.getValue(), col.sourceType(), col.target(), col.targetType(), col.notNull(),
          col.conversion(), col.defaultExpression(), col.generatedExpression(), col.uuidNamespace()));
      described.add("column " + r.getKey() + " renamed to " + r.getValue() + " (Spanner keeps " + col.target() + ")");
    }

    // What PostgreSQL dropped along with the columns: indexes and constraints no longer in the catalog.
    Set<String> indexesNow = new HashSet<>(replan.table().indexes().stream().map(IndexPlan::source)
        .filter(Objects::nonNull).toList());
    Set<String> keysNow = new HashSet<>(replan.table().foreignKeys().stream().map(ForeignKeyPlan::source)
        .filter(Objects::nonNull).toList());
    Set<String> checksNow = new HashSet<>(replan.table().checks().stream().map(CheckPlan::source)
        .filter(Objects::nonNull).toList());
    for (String name : dropped) {
      int i = indexOfSource(columns, name);
      if (i < 0) {
        continue;
      }
      ColumnPlan col = columns.get(i);
      if (keyColumns.contains(col.target())) {
        throw cannot(current, "key column " + name + " was dropped");
      }
      if (columns.stream().anyMatch(other -> other.generatedExpression() != null
          && other.generatedExpression().contains(col.target()))) {
        throw cannot(current, "column " + name + " was dropped, and a column Spanner computes uses it");
      }
      for (IndexPlan index : List.copyOf(indexes)) {
        boolean uses = index.columns().stream().anyMatch(p -> p.column().equals(col.target()))
            || index.storing().contains(col.target());
        if (uses || (index.source() != null && !indexesNow.contains(index.source()))) {
          ddl.add(DdlPrinter.dropIndex(plan, current, index));
          indexes.remove(index);
          described.add("index " + index.target() + " dropped (PostgreSQL dropped " + (index.source() == null
              ? "it" : index.source()) + ")");
        }
      }
      for (ForeignKeyPlan fk : List.copyOf(foreignKeys)) {
        if (fk.columns().contains(col.target()) || (fk.source() != null && !keysNow.contains(fk.source()))) {
          ddl.add(DdlPrinter.dropConstraint(plan, current, fk.target()));
          foreignKeys.remove(fk);
          described.add("foreign key " + fk.target() + " dropped");
        }
      }
      for (CheckPlan check : List.copyOf(checks)) {
        if (check.source() != null && !checksNow.contains(check.source())) {
          ddl.add(DdlPrinter.dropConstraint(plan, current, check.target()));
          checks.remove(check);
          described.add("check " + check.target() + " dropped");
        }
      }
      if (referencedElsewhere(plan, current, col)) {
        throw cannot(current, "column " + name + " was dropped, and another table's foreign key references it");
      }
      ddl.add(DdlPrinter.dropColumn(plan, current, col));
      columns.remove(i);
      described.add("column " + name + " dropped");
    }

    for (String name : retyped) {
      int i = indexOfSource(columns, name);
      ColumnPlan col = columns.get(i);
      ColumnPlan want = planned.get(name);
      if (want == null) {
        throw cannot(current, "column " + name + " changed type, and planning it again gave no column");
      }
      if (Objects.equals(col.sourceType(), want.sourceType())) {
        continue; // the plan follows it already
      }
      if (col.conversion() == want.conversion() && col.targetType().equals(want.targetType())) {
        described.add("column " + name + " is now " + want.sourceType() + " (was " + col.sourceType() + "; still "
            + col.targetType() + " in Spanner)");
      } else if (col.conversion() == want.conversion() && resizable(plan, col.targetType(), want.targetType())) {
        ColumnPlan resized = withType(col, want);
        ddl.add(DdlPrinter.alterColumnType(plan, current, resized));
        described.add("column " + name + " is now " + want.sourceType() + " (was " + col.sourceType() + "): "
            + col.targetType() + " becomes " + want.targetType());
        columns.set(i, resized);
        continue;
      } else {
        throw cannot(current, "column " + name + " changed type from " + col.sourceType() + " to "
            + want.sourceType() + ", which the plan maps to " + want.targetType() + " (was " + col.targetType()
            + ") and Spanner cannot change in place");
      }
      columns.set(i, withType(col, want));
    }

    Set<String> targets = new HashSet<>();
    columns.forEach(col -> targets.add(col.target().toLowerCase(Locale.ROOT)));
    for (String name : added) {
      if (indexOfSource(columns, name) >= 0) {
        continue; // the plan follows it already
      }
      ColumnPlan want = planned.get(name);
      if (want == null || !want.isLoaded()) {
        throw cannot(current, "column " + name + " was added, and planning it again gave no loaded column");
      }
      String target = want.target();
      for (int n = 2; targets.contains(target.toLowerCase(Locale.ROOT)); n++) {
        target = want.target() + "_" + n;
      }
      targets.add(target.toLowerCase(Locale.ROOT));
      ColumnPlan column = new ColumnPlan(want.source(), want.sourceType(), target, want.targetType(), want.notNull(),
          want.conversion(), want.defaultExpression(), null, want.uuidNamespace());
      PgColumn source = replan.column(name).orElseThrow(() -> cannot(current, "column " + name + " was added but "
          + "is not in the catalog now"));
      String existing = TableReplan.existingRowsValue(c, replan.source(), source, column,
          plan.target().spannerDialect()).orElse(null);
      if (existing == null && source.defaultExpression() != null) {
        throw cannot(current, "column " + name + " was added with the default " + source.defaultExpression()
            + ", which PostgreSQL computed row by row by rewriting the table; the rewrite is not streamed, so the "
            + "existing rows' values cannot reach Spanner");
      }
      String note = "";
      if (existing == null && column.notNull()) {
        // PostgreSQL took NOT NULL without a default only because the table was empty; Spanner's ADD COLUMN needs a
        // DEFAULT for NOT NULL, so the column is added nullable (its values come from the stream all the same).
        column = new ColumnPlan(column.source(), column.sourceType(), column.target(), column.targetType(), false,
            column.conversion(), column.defaultExpression(), null, column.uuidNamespace());
        note = "; NOT NULL left out, as Spanner adds a NOT NULL column only with a default";
      }
      ddl.add(DdlPrinter.addColumn(plan, current, column, existing));
      if (existing != null && !Objects.equals(existing, column.defaultExpression())) {
        ddl.add(DdlPrinter.setDefault(plan, current, column));
      }
      columns.add(column);
      described.add("column " + name + " added as " + target + " " + column.targetType()
          + (existing == null ? "" : " (existing rows: " + existing + ")") + note);
    }

    RowHash rowHash = current.rowHash();
    if (rowHash != null && !rowHash.columns().stream().allMatch(h -> columns.stream()
        .anyMatch(col -> col.target().equals(h)))) {
      // The hash covered a column that is gone: no later row can be hashed as the load hashed it. The column and its
      // index stay (dropping them is a backfill on a loaded table for nothing); the applier scans from now on.
      LOG.warn("{} dropped a column its row hash {} covered: changes to {} are found by scanning the table from now "
          + "on (one Spanner query per change); {} and index {} are no longer written", current.source(),
          rowHash.column(), current.target(), rowHash.column(), rowHash.index());
      described.add("row hash " + rowHash.column() + " no longer maintained (a hashed column was dropped)");
      rowHash = null;
    }
    TablePlan revised = described.isEmpty() ? current : new TablePlan(current.source(), current.readOnly(),
        current.target(), current.rowsEstimate(), current.bytesEstimate(), columns, current.primaryKey(),
        current.keyStrategy(), current.interleave(), indexes, foreignKeys, checks, current.findings(),
        current.splitPoints(), rowHash);
    List<SourceShape.Column> shape = new ArrayList<>();
    for (PgOutput.Column col : now.columns()) {
      String typeName = replan.column(col.name()).map(pc -> pc.type().display())
          .orElse(before.containsKey(col.name()) ? before.get(col.name()).typeName() : "text");
      // A column's number never changes: kept from the shape the stream had (the catalog may have moved on since this
      // change, e.g. dropped a column a later change drops), else the catalog's for a column new to the shape.
      int attnum = before.containsKey(col.name()) && before.get(col.name()).attnum() > 0
          ? before.get(col.name()).attnum() : renamedFrom(renamed, col.name()).map(b -> before.get(b).attnum())
              .orElse(attnums.getOrDefault(col.name(), 0));
      shape.add(new SourceShape.Column(col.name(), col.typeOid(), col.typeModifier(), typeName, attnum));
    }
    return new Revision(revised, new SourceShape.Relation(old.relationId(), now.schema(), now.name(), old.table(),
        old.source(), shape, old.copiedTo()), ddl, described);
  }

  private static java.util.Optional<String> renamedFrom(Map<String, String> renamed, String now) {
    return renamed.entrySet().stream().filter(e -> e.getValue().equals(now)).map(Map.Entry::getKey).findFirst();
  }

  private static ColumnPlan withType(ColumnPlan col, ColumnPlan want) {
    return new ColumnPlan(col.source(), want.sourceType(), col.target(), want.targetType(), col.notNull(),
        col.conversion(), col.defaultExpression(), col.generatedExpression(), col.uuidNamespace());
  }

  /** STRING(n) to STRING(m) or BYTES(n) to BYTES(m) (varchar(n) to varchar(m)): Spanner changes it in place. */
  private static boolean resizable(Plan plan, String from, String to) {
    dev.pg2spanner.spanner.SpannerDialect dialect = plan.target().spannerDialect();
    SpannerType a = SpannerType.parse(dialect, from);
    SpannerType b = SpannerType.parse(dialect, to);
    return !a.isArray() && !b.isArray() && a.base() == b.base()
        && (a.base() == SpannerType.Base.STRING || a.base() == SpannerType.Base.BYTES);
  }

  private static boolean referencedElsewhere(Plan plan, TablePlan table, ColumnPlan column) {
    return plan.tables().stream().flatMap(t -> t.foreignKeys().stream())
        .anyMatch(fk -> fk.referencedTable().equals(table.target()) && fk.referencedColumns().contains(column.target()));
  }

  private static int indexOfSource(List<ColumnPlan> columns, String source) {
    for (int i = 0; i < columns.size(); i++) {
      if (source.equals(columns.get(i).source())) {
        return i;
      }
    }
    return -1;
  }

  /** The relation's columns by name, with their attnums, as the catalog holds them now. */
  private static Map<String, Integer> attnums(Connection c, int relationId) throws SQLException {
    Map<String, Integer> attnums = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT attname, attnum::int AS attnum FROM pg_catalog.pg_attribute "
        + "WHERE attrelid = ?::oid AND attnum > 0 AND NOT attisdropped")) {
      ps.setString(1, Integer.toString(relationId));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          attnums.put(rs.getString("attname"), rs.getInt("attnum"));
        }
      }
    }
    return attnums;
  }

  private static Pg2SpannerException cannot(TablePlan table, String change) {
    return new Pg2SpannerException(ExitCode.PLAN_INVALID, NextStep.STATED,
        "the source table " + table.source() + " changed while "
        + "its changes were streamed: " + change + ". pg2spanner cannot follow that change in Spanner, so streaming "
        + "stopped before applying it (nothing was lost: the slot keeps the changes). Start a new live migration "
        + "from a new plan: pg2spanner plan --replace, then drop the target database and the run directory (and the "
        + "slot and publication this run created: see below) and run migrate --live again");
  }
}
