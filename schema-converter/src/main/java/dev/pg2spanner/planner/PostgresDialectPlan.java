package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgCheck;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.expression.SpannerExpression;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.HashShard;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyDefault;
import dev.pg2spanner.plan.KeyExpression;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the planner's design into a plan for a PostgreSQL-dialect database. Keys, interleaving, names, indexes and
 * evidence are decided once, dialect-free, by the planner; this step writes them the way that dialect spells them
 * and drops, with a finding each, what it cannot hold:
 *
 * <ul>
 *   <li>types in the dialect's spelling ({@code bigint}, {@code varchar(n)}, {@code timestamptz}, {@code jsonb},
 *       {@code T[]}); which type a column takes was decided in this dialect by the type mapping (a numeric stays
 *       {@code numeric}), and the findings were written in it, so nothing here rewrites either;</li>
 *   <li>the key strategies' expressions: {@code nextval('sequence')}, {@code spanner.generate_uuid()}, and every
 *       shard column the key design added, printed from its {@link HashShard};</li>
 *   <li>translated defaults, generated columns and CHECKs are printed in this dialect from the typed expressions the
 *       planner wrote ({@link TableExpressions}); one this dialect cannot hold as pg2spanner writes it is left out
 *       and reported with its PostgreSQL source (values are still copied, new rows must supply them);</li>
 *   <li>indexes and foreign keys over a {@code numeric}, {@code real} or {@code jsonb} column, and informational
 *       (NOT ENFORCED) foreign keys, which this dialect does not have, are left out with a finding; a primary key
 *       over such a column is an error finding, and the plan validator then stops {@code plan} naming the table.</li>
 * </ul>
 */
final class PostgresDialectPlan {

  private static final SpannerDialect PG = SpannerDialect.POSTGRESQL;
  private PostgresDialectPlan() {}

  /**
   * @param keyExpressions the shard columns and key defaults the key design wrote, by table target then column
   *     target ({@link KeyDesigner.Result#keyExpressions()})
   * @param expressions the defaults, generated columns and CHECKs the planner wrote, by source table
   */
  static List<TablePlan> adapt(List<TablePlan> tables, Map<String, Map<String, KeyExpression>> keyExpressions,
      Map<String, TableExpressions> expressions, PgCatalog catalog) {
    return tables.stream().map(t -> adapt(t, keyExpressions.getOrDefault(t.target(), Map.of()),
        expressions.get(t.source()), catalog)).toList();
  }

  private static TablePlan adapt(TablePlan t, Map<String, KeyExpression> keyExpressions, TableExpressions typed,
      PgCatalog catalog) {
    Optional<PgTable> source = catalog.tables().stream().filter(p -> p.qualifiedName().equals(t.source()))
        .findFirst();
    List<Finding> findings = new ArrayList<>(t.findings());
    Map<String, SpannerType> types = new HashMap<>();
    List<ColumnPlan> columns = new ArrayList<>();
    KeyStrategy strategy = t.keyStrategy();
    for (ColumnPlan c : t.columns()) {
      SpannerType type = SpannerType.parse(c.targetType());
      types.put(c.target(), type);
      Optional<PgColumn> sourceColumn = source.flatMap(p -> column(p, c.source()));
      String defaultExpression = c.defaultExpression();
      KeyExpression keyExpression = keyExpressions.get(c.target());
      if (keyExpression instanceof KeyDefault keyDefault) {
        defaultExpression = keyDefault.expression(PG);
      } else if (defaultExpression != null) {
        defaultExpression = printedOrReported(typed.defaultOf(t.source(), c.target()), t, c,
            sourceColumn.map(PgColumn::defaultExpression), "The default of " + c.source(), "is not created "
                + "in the PostgreSQL-dialect database: pg2spanner does not write it in that dialect. New rows "
                + "must supply the value, or add the default by hand after migrate.", findings);
      }
      String generated = c.generatedExpression();
      // A shard column is written below, once every column's type in this dialect is known.
      if (generated != null && !(keyExpression instanceof HashShard)) {
        generated = printedOrReported(typed.generatedOf(t.source(), c.target()), t, c,
            sourceColumn.map(PgColumn::generatedExpression),
            "Generated column " + c.source(), "is created as a plain column in the PostgreSQL-dialect database, "
                + "whose expression language pg2spanner does not write this expression in: its current values are "
                + "copied, new rows must supply them.", findings);
      }
      columns.add(new ColumnPlan(c.source(), c.sourceType(), c.target(), type.ddl(PG), c.notNull(), c.conversion(),
          defaultExpression, generated, c.uuidNamespace()));
    }
    for (int i = 0; i < columns.size(); i++) {
      ColumnPlan c = columns.get(i);
      if (keyExpressions.get(c.target()) instanceof HashShard shard) {
        // The advice that quotes it was written in this dialect by the key design.
        columns.set(i, new ColumnPlan(c.source(), c.sourceType(), c.target(), c.targetType(), c.notNull(),
            c.conversion(), c.defaultExpression(), shard.expression(PG), c.uuidNamespace()));
      }
    }

    for (KeyPart part : t.primaryKey()) {
      SpannerType type = types.get(part.column());
      if (type != null && !PG.canBeKey(type)) {
        findings.add(Finding.of(FindingCode.KEY_LIMIT, t.source(), part.column(), null,
            "The primary key of " + t.source() + " includes " + part.column() + ", a " + type.ddl(PG) + " column; "
                + "a PostgreSQL-dialect database cannot key on numeric, real or jsonb columns. Plan this table with "
                + "--dialect googlesql, leave it out with --exclude-tables, or change its key in PostgreSQL.",
            Map.of("type", type.ddl(PG))).withSeverity(Severity.ERROR));
      }
    }

    List<IndexPlan> indexes = new ArrayList<>();
    for (IndexPlan index : t.indexes()) {
      Optional<String> bad = index.columns().stream().map(KeyPart::column)
          .filter(c -> types.containsKey(c) && !PG.canBeKey(types.get(c))).findFirst();
      if (bad.isPresent()) {
        // What the planner said about the index (kept, changed, NULL_FILTERED) no longer holds: it is not created.
        findings.removeIf(f -> index.source() != null && index.source().equals(f.index()));
        findings.add(Finding.of(FindingCode.INDEX_CHANGED, t.source(), null, index.source(),
            "Index " + index.source() + " is not created: it indexes " + bad.get() + ", a "
                + types.get(bad.get()).ddl(PG) + " column, and a PostgreSQL-dialect database cannot index numeric, "
                + "real or jsonb columns. Queries that used it scan instead.",
            Map.of("column", bad.get())));
      } else {
        indexes.add(index);
      }
    }

    List<ForeignKeyPlan> foreignKeys = new ArrayList<>();
    for (ForeignKeyPlan fk : t.foreignKeys()) {
      Optional<String> bad = fk.columns().stream()
          .filter(c -> types.containsKey(c) && !PG.canBeKey(types.get(c))).findFirst();
      if (!fk.isEnforced()) {
        findings.add(Finding.of(FindingCode.FOREIGN_KEY_CHANGED, t.source(), null, fk.source(),
            "Foreign key " + fk.source() + " would be informational (NOT ENFORCED), which a PostgreSQL-dialect "
                + "database does not have, so it is not created; the application keeps the relationship.",
            Map.of()));
      } else if (bad.isPresent()) {
        findings.add(Finding.of(FindingCode.FOREIGN_KEY_CHANGED, t.source(), null, fk.source(),
            "Foreign key " + fk.source() + " is not created: its column " + bad.get() + " is "
                + types.get(bad.get()).ddl(PG) + ", which a PostgreSQL-dialect database cannot use in a foreign "
                + "key; the application keeps the relationship.", Map.of("column", bad.get())));
      } else {
        foreignKeys.add(fk);
      }
    }

    List<CheckPlan> checks = new ArrayList<>();
    for (CheckPlan check : t.checks()) {
      Optional<String> printed = typed.checkOf(t.source(), check.target()).in(PG);
      if (printed.isPresent()) {
        checks.add(new CheckPlan(check.source(), check.target(), printed.get()));
        continue;
      }
      String pgText = source.flatMap(p -> p.checks().stream().filter(k -> k.name().equals(check.source()))
          .findFirst()).map(PgCheck::expression).orElse(null);
      findings.add(Finding.of(FindingCode.CHECK_NOT_TRANSLATED, t.source(), null, check.source(),
          "CHECK " + check.source() + (pgText == null ? "" : " (" + pgText + ")") + " is not created in the "
              + "PostgreSQL-dialect database: pg2spanner does not write it in that dialect. Enforce it in the "
              + "application, or add it by hand after migrate (existing rows satisfied it in PostgreSQL).",
          pgText == null ? Map.of() : Map.of("expression", pgText)));
    }

    return new TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(), t.bytesEstimate(), columns,
        t.primaryKey(), strategy, t.interleave(), indexes, foreignKeys, checks, findings, t.splitPoints(),
        t.rowHash());
  }

  /**
   * The planner's {@code expression} in this dialect, or null with a DEFAULT_NOT_TRANSLATED finding that quotes
   * PostgreSQL's own text ({@code subject} (text) {@code consequence}).
   */
  private static String printedOrReported(SpannerExpression expression, TablePlan t, ColumnPlan c,
      Optional<String> pgText, String subject, String consequence, List<Finding> findings) {
    Optional<String> printed = expression.in(PG);
    if (printed.isEmpty()) {
      findings.add(Finding.of(FindingCode.DEFAULT_NOT_TRANSLATED, t.source(), c.source(), null,
          subject + pgText.map(x -> " (" + x + ")").orElse("") + " " + consequence,
          pgText.<Map<String, Object>>map(x -> Map.of("expression", x)).orElse(Map.of())));
    }
    return printed.orElse(null);
  }

  private static Optional<PgColumn> column(PgTable t, String name) {
    return name == null ? Optional.empty() : t.columns().stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
