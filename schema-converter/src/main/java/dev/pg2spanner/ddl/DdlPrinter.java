package dev.pg2spanner.ddl;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.InterleaveTree;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Prints a {@link Plan} as Spanner DDL in the plan's dialect (GoogleSQL or PostgreSQL, {@code target.dialect}), in the phases the load needs: tables (no secondary indexes, no
 * foreign keys, no CHECK constraints) → bulk load → indexes → foreign keys → CHECK constraints.
 *
 * <p>CHECK constraints wait until after the load like indexes and foreign keys: evaluating them per inserted row made
 * the emulator's load about nine times slower (1,367 against 12,170 rows/s, measured here), and validating each one
 * once over the loaded table is the same guarantee.
 *
 * <p>The only text that reaches the DDL is identifiers, quoted through {@link SpannerNames}, the plan's Spanner
 * types (spelled as the dialect writes them), and the planner's expressions (defaults, generated columns, CHECKs),
 * printed as they are.
 *
 * <p>PostgreSQL dialect, as its DDL reference and the emulator (1.5.28) accept it: {@code PRIMARY KEY (...)} inside
 * the column list, {@code INTERLEAVE IN PARENT} after it, {@code GENERATED ALWAYS AS (...) STORED}, sequences as
 * {@code BIT_REVERSED_POSITIVE SKIP RANGE min max}, indexes with {@code INCLUDE (...)} and a NULL filter written as
 * {@code WHERE c IS NOT NULL AND ...}; it has no descending primary key parts and no NOT ENFORCED foreign keys (the
 * plan validator refuses both for that dialect).
 *
 * <p>Names in a named schema: a table, sequence or index lives in its schema and is written {@code schema.name};
 * an index is always created in its table's schema (Spanner rejects an index whose schema differs from its
 * table's), while constraint names (CHECK, FOREIGN KEY) are never qualified (Spanner's grammar does not allow it).
 */
public final class DdlPrinter {

  private static final String INDENT = "  ";

  private final SpannerDialect dialect;

  private DdlPrinter(Plan plan) {
    this.dialect = plan.target().spannerDialect();
  }

  /**
   * {@code CREATE SCHEMA} for each named schema, {@code CREATE SEQUENCE} for each planned sequence, then
   * {@code CREATE TABLE} for each table, parents before interleaved children (plan order otherwise).
   *
   * @throws Pg2SpannerException PLAN_INVALID when a table interleaves in a table the plan does not hold, the
   *     interleaving has a cycle, or a column has both a DEFAULT and a generated expression
   */
  public static List<String> tables(Plan plan) {
    return new DdlPrinter(plan).printTables(plan);
  }

  private List<String> printTables(Plan plan) {
    List<String> out = new ArrayList<>();
    Set<String> schemas = new LinkedHashSet<>();
    for (TablePlan t : plan.tables()) {
      if (t.targetSchema() != null) {
        schemas.add(t.targetSchema());
      }
    }
    for (SequencePlan s : plan.sequences()) {
      String schema = schemaOf(s.target());
      if (schema != null) {
        schemas.add(schema);
      }
    }
    for (String schema : schemas) {
      out.add("CREATE SCHEMA " + quote(schema));
    }
    for (SequencePlan s : plan.sequences()) {
      out.add(createSequence(s));
    }
    for (TablePlan t : parentsFirst(plan.tables())) {
      out.add(createTable(t));
    }
    return List.copyOf(out);
  }

  /** {@code CREATE [UNIQUE] [NULL_FILTERED] INDEX ...} for every table's indexes, in plan order. */
  public static List<String> indexes(Plan plan) {
    DdlPrinter printer = new DdlPrinter(plan);
    List<String> out = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      for (IndexPlan i : t.indexes()) {
        out.add(printer.createIndex(t, i));
      }
    }
    return List.copyOf(out);
  }

  /** {@code ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY ...} for every table's foreign keys, in plan order. */
  public static List<String> foreignKeys(Plan plan) {
    DdlPrinter printer = new DdlPrinter(plan);
    List<String> out = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      for (ForeignKeyPlan fk : t.foreignKeys()) {
        out.add(printer.addForeignKey(t, fk));
      }
    }
    return List.copyOf(out);
  }

  /** {@code ALTER TABLE ... ADD CONSTRAINT ... CHECK (...)} for every table's CHECK constraints, in plan order. */
  public static List<String> checks(Plan plan) {
    DdlPrinter printer = new DdlPrinter(plan);
    List<String> out = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      for (CheckPlan check : t.checks()) {
        out.add("ALTER TABLE " + printer.name(t.target()) + " ADD CONSTRAINT " + printer.quote(check.target())
            + " CHECK (" + check.expression() + ")");
      }
    }
    return List.copyOf(out);
  }

  /**
   * Always four migrations, V1 tables, V2 indexes, V3 foreign keys, V4 checks, even when a phase is empty: Flyway
   * then records every version, and {@code migrate} can apply V2 to V4 after the load without asking what exists.
   */
  public static List<Migration> migrations(Plan plan) {
    return List.of(
        new Migration(1, "tables", tables(plan)),
        new Migration(2, "indexes", indexes(plan)),
        new Migration(3, "foreign keys", foreignKeys(plan)),
        new Migration(4, "checks", checks(plan)));
  }

  // ---- one table's column changes, for a schema change followed while streaming ------------------------------------

  /**
   * {@code ALTER TABLE t ADD COLUMN ...} with the column's definition; with {@code existingRows} (an expression) the
   * DEFAULT is that, so Spanner gives the table's existing rows the value PostgreSQL gave them, and
   * {@link #setDefault} puts the planned default back afterwards.
   */
  public static String addColumn(Plan plan, TablePlan table, ColumnPlan column, String existingRows) {
    DdlPrinter p = new DdlPrinter(plan);
    ColumnPlan printed = existingRows == null ? column : new ColumnPlan(column.source(), column.sourceType(),
        column.target(), column.targetType(), column.notNull(), column.conversion(), existingRows,
        column.generatedExpression(), column.uuidNamespace());
    return "ALTER TABLE " + p.name(table.target()) + " ADD COLUMN " + p.column(table, printed);
  }

  /** The column's planned DEFAULT set again (or dropped when it has none). */
  public static String setDefault(Plan plan, TablePlan table, ColumnPlan column) {
    DdlPrinter p = new DdlPrinter(plan);
    String alter = "ALTER TABLE " + p.name(table.target()) + " ALTER COLUMN " + p.quote(column.target());
    return column.defaultExpression() == null ? alter + " DROP DEFAULT"
        : alter + " SET DEFAULT (" + column.defaultExpression() + ")";
  }

  /** {@code ALTER TABLE t ALTER COLUMN c TYPE [NOT NULL]}: a column's type changed in a way Spanner does in place. */
  public static String alterColumnType(Plan plan, TablePlan table, ColumnPlan column) {
    DdlPrinter p = new DdlPrinter(plan);
    if (p.dialect.isPostgres()) {
      // The PostgreSQL dialect changes the type alone; NOT NULL stays as it was.
      return "ALTER TABLE " + p.name(table.target()) + " ALTER COLUMN " + p.quote(column.target()) + " TYPE "
          + column.targetType();
    }
    return "ALTER TABLE " + p.name(table.target()) + " ALTER COLUMN " + p.quote(column.target()) + " "
        + column.targetType() + (column.notNull() ? " NOT NULL" : "");
  }

  public static String dropColumn(Plan plan, TablePlan table, ColumnPlan column) {
    DdlPrinter p = new DdlPrinter(plan);
    return "ALTER TABLE " + p.name(table.target()) + " DROP COLUMN " + p.quote(column.target());
  }

  public static String dropIndex(Plan plan, TablePlan table, IndexPlan index) {
    DdlPrinter p = new DdlPrinter(plan);
    String bare = index.target().substring(index.target().indexOf('.') + 1);
    return "DROP INDEX " + (p.dialect.isPostgres() ? p.quote(bare) : index.target().indexOf('.') >= 0
        ? p.name(index.target()) : SpannerNames.qualified(p.dialect, table.targetSchema(), index.target()));
  }

  /** {@code ALTER TABLE t DROP CONSTRAINT c}: a foreign key or CHECK. */
  public static String dropConstraint(Plan plan, TablePlan table, String constraint) {
    DdlPrinter p = new DdlPrinter(plan);
    return "ALTER TABLE " + p.name(table.target()) + " DROP CONSTRAINT " + p.quote(constraint);
  }

  /**
   * The statement that makes a planned bit-reversed sequence skip {@code min..max}: the PostgreSQL dialect's
   * {@code ALTER SEQUENCE s SKIP RANGE min max}, GoogleSQL's {@code ALTER SEQUENCE s SET OPTIONS (skip_range_min,
   * skip_range_max)}.
   */
  public static String alterSkipRange(Plan plan, SequencePlan s, long min, long max) {
    DdlPrinter p = new DdlPrinter(plan);
    if (p.dialect.isPostgres()) {
      return "ALTER SEQUENCE " + p.name(s.target()) + " SKIP RANGE " + min + " " + max;
    }
    return "ALTER SEQUENCE " + p.name(s.target()) + " SET OPTIONS (skip_range_min = " + min + ", skip_range_max = "
        + max + ")";
  }

  // ---- one table or index added or dropped while streaming -------------------------------------------------------

  /** {@code CREATE TABLE} for one table (a table created on the source while streaming). */
  public static String createTable(Plan plan, TablePlan table) {
    return new DdlPrinter(plan).createTable(table);
  }

  /** {@code CREATE SEQUENCE} for one sequence (a new table's). */
  public static String createSequence(Plan plan, SequencePlan sequence) {
    return new DdlPrinter(plan).createSequence(sequence);
  }

  /** {@code CREATE [UNIQUE] [NULL_FILTERED] INDEX} for one index of {@code table}. */
  public static String createIndex(Plan plan, TablePlan table, IndexPlan index) {
    return new DdlPrinter(plan).createIndex(table, index);
  }

  /** {@code DROP TABLE t}: its indexes and the foreign keys on it must be dropped first. */
  public static String dropTable(Plan plan, TablePlan table) {
    return "DROP TABLE " + new DdlPrinter(plan).name(table.target());
  }

  private String createSequence(SequencePlan s) {
    if (dialect.isPostgres()) {
      return "CREATE SEQUENCE " + name(s.target()) + " BIT_REVERSED_POSITIVE SKIP RANGE " + s.skipRangeMin() + " "
          + s.skipRangeMax();
    }
    return "CREATE SEQUENCE " + name(s.target()) + " OPTIONS (sequence_kind = 'bit_reversed_positive', "
        + "skip_range_min = " + s.skipRangeMin() + ", skip_range_max = " + s.skipRangeMax() + ")";
  }

  private String createTable(TablePlan t) {
    List<String> elements = new ArrayList<>();
    for (ColumnPlan c : t.columns()) {
      elements.add(column(t, c));
    }
    if (dialect.isPostgres()) {
      elements.add("PRIMARY KEY (" + keyParts(t.primaryKey()) + ")");
    }
    StringBuilder sb = new StringBuilder("CREATE TABLE ").append(name(t.target())).append(" (\n");
    for (int i = 0; i < elements.size(); i++) {
      sb.append(INDENT).append(elements.get(i)).append(i + 1 < elements.size() ? ",\n" : "\n");
    }
    sb.append(')');
    if (!dialect.isPostgres()) {
      sb.append(" PRIMARY KEY (").append(keyParts(t.primaryKey())).append(')');
    }
    Interleave in = t.interleave();
    if (in != null) {
      sb.append(dialect.isPostgres() ? "\n" : ",\n").append(INDENT).append("INTERLEAVE IN PARENT ").append(name(in.parent()))
          .append(" ON DELETE ").append(onDelete(in.onDelete()));
    }
    return sb.toString();
  }

  private String column(TablePlan t, ColumnPlan c) {
    if (c.defaultExpression() != null && c.generatedExpression() != null) {
      throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "column " + t.target() + "." + c.target()
          + " has both a defaultExpression and a generatedExpression; Spanner allows one of them, so edit the plan "
          + "to keep one.");
    }
    StringBuilder sb = new StringBuilder(quote(c.target())).append(' ').append(c.targetType());
    if (c.notNull()) {
      sb.append(" NOT NULL");
    }
    if (c.defaultExpression() != null) {
      sb.append(" DEFAULT (").append(c.defaultExpression()).append(')');
    }
    if (c.generatedExpression() != null) {
      sb.append(dialect.isPostgres() ? " GENERATED ALWAYS AS (" : " AS (").append(c.generatedExpression())
          .append(") STORED");
    }
    return sb.toString();
  }

  private String createIndex(TablePlan t, IndexPlan i) {
    StringBuilder sb = new StringBuilder("CREATE ");
    if (i.unique()) {
      sb.append("UNIQUE ");
    }
    boolean pg = dialect.isPostgres();
    if (i.nullFiltered() && !pg) {
      sb.append("NULL_FILTERED ");
    }
    // An index lives in its table's schema; a plan may name it bare. GoogleSQL writes the schema, the PostgreSQL
    // dialect refuses a qualified index name (the index takes its table's schema).
    String bare = i.target().substring(i.target().indexOf('.') + 1);
    String indexName = pg ? quote(bare) : i.target().indexOf('.') >= 0 ? name(i.target())
        : SpannerNames.qualified(dialect, t.targetSchema(), i.target());
    sb.append("INDEX ").append(indexName).append(" ON ").append(name(t.target()))
        .append(" (").append(keyParts(i.columns())).append(')');
    if (!i.storing().isEmpty()) {
      sb.append(pg ? " INCLUDE (" : " STORING (").append(columns(i.storing())).append(')');
    }
    if (i.interleaveIn() != null) {
      sb.append(pg ? " INTERLEAVE IN " : ", INTERLEAVE IN ").append(name(i.interleaveIn()));
    }
    if (i.nullFiltered() && pg) {
      // NULL_FILTERED leaves out a row when any indexed column is NULL: the same rows this predicate keeps out.
      sb.append(" WHERE ").append(i.columns().stream().map(p -> quote(p.column()) + " IS NOT NULL")
          .collect(Collectors.joining(" AND ")));
    }
    return sb.toString();
  }

  private String addForeignKey(TablePlan t, ForeignKeyPlan fk) {
    return "ALTER TABLE " + name(t.target()) + " ADD CONSTRAINT " + quote(fk.target())
        + " FOREIGN KEY (" + columns(fk.columns()) + ") REFERENCES " + name(fk.referencedTable())
        + " (" + columns(fk.referencedColumns()) + ")"
        // An informational key takes no referential action: Spanner never acts on it.
        + (fk.isEnforced() ? " ON DELETE " + onDelete(fk.onDelete()) : " NOT ENFORCED");
  }

  /** Every table after its interleave parent, otherwise in plan order (a table listed twice stays twice). */
  private static List<TablePlan> parentsFirst(List<TablePlan> tables) {
    List<String> order = InterleaveTree.of(tables).parentsFirst();
    Map<String, Integer> rank = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      rank.put(order.get(i), i);
    }
    return tables.stream().sorted(Comparator.comparingInt(t -> rank.get(t.target()))).toList();
  }

  private String keyParts(List<KeyPart> parts) {
    return parts.stream().map(p -> quote(p.column()) + (p.descending() ? " DESC" : ""))
        .collect(Collectors.joining(", "));
  }

  private String columns(List<String> names) {
    return names.stream().map(this::quote).collect(Collectors.joining(", "));
  }

  private String quote(String name) {
    return SpannerNames.quote(dialect, name);
  }

  private static String onDelete(Interleave.OnDelete action) {
    return switch (action) {
      case CASCADE -> "CASCADE";
      case NO_ACTION -> "NO ACTION";
    };
  }

  /** A plan name "schema.name" or "name", quoted part by part. */
  private String name(String dotted) {
    return SpannerNames.dotted(dialect, dotted);
  }

  private static String schemaOf(String dotted) {
    int dot = dotted.indexOf('.');
    return dot < 0 ? null : dotted.substring(0, dot);
  }
}
