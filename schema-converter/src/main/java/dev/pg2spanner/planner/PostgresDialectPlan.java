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
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the planner's design into a plan for a PostgreSQL-dialect database. Keys, interleaving, names, indexes and
 * evidence are decided once, dialect-free, by the planner; this step writes them the way that dialect spells them
 * and drops, with a finding each, what it cannot hold:
 *
 * <ul>
 *   <li>types in the dialect's spelling ({@code bigint}, {@code varchar(n)}, {@code timestamptz}, {@code jsonb},
 *       {@code T[]}); every PostgreSQL {@code numeric} becomes {@code numeric} unchanged, since this dialect's
 *       numeric holds what PostgreSQL's does (147,455 digits, 16,383 after the point, and NaN);</li>
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
      ValueConversion conversion = c.conversion();
      if (isNumericSource(c) && (conversion == ValueConversion.NUMERIC || conversion == ValueConversion.NUMERIC_TEXT)
          && !hasInfinity(findings, c)) {
        type = type.isArray() ? SpannerType.arrayOf(SpannerType.NUMERIC) : SpannerType.NUMERIC;
        conversion = ValueConversion.NUMERIC;
        // What the GoogleSQL mapping said about 38/9 digits does not hold here.
        findings.removeIf(f -> f.code() == FindingCode.LOSSY_TYPE && c.source().equals(f.column()));
      }
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
      columns.add(new ColumnPlan(c.source(), c.sourceType(), c.target(), type.ddl(PG), c.notNull(), conversion,
          defaultExpression, generated, c.uuidNamespace()));
    }
    for (int i = 0; i < columns.size(); i++) {
      ColumnPlan c = columns.get(i);
      if (keyExpressions.get(c.target()) instanceof HashShard shard) {
        // The hashed columns as this dialect types them (a numeric the GoogleSQL design kept as STRING is numeric).
        String expression = shard.retyped(types::get).expression(PG);
        columns.set(i, new ColumnPlan(c.source(), c.sourceType(), c.target(), c.targetType(), c.notNull(),
            c.conversion(), c.defaultExpression(), expression, c.uuidNamespace()));
        // Advice that quotes the shard column's expression quotes the one the DDL now holds.
        String before = t.column(c.target()).map(ColumnPlan::generatedExpression).orElse(null);
        if (before != null) {
          String now = expression;
          findings.replaceAll(f -> f.message().contains(before) ? new Finding(f.code(), f.severity(), f.table(),
              f.column(), f.index(), f.message().replace(before, now), f.evidence()) : f);
        }
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
        t.primaryKey(), strategy.withReason(respellProse(strategy.reason())), t.interleave(), indexes, foreignKeys,
        checks, respellFindings(findings), t.splitPoints(), t.rowHash());
  }

  private static final Pattern GOOGLE_TYPE = Pattern.compile(
      "ARRAY<([^<>]+)>|\\b(?:STRING|BYTES)\\((?:MAX|\\d+)\\)"
          // A conversion is named by its constant in both dialects ("with conversion TIMESTAMP"): not a type.
          + "|(?<!conversion )\\b(?:INT64|FLOAT64|FLOAT32|BOOL|TIMESTAMP|JSON|NUMERIC|DATE)\\b");

  /** Findings whose prose names GoogleSQL types, respelled with this dialect's names ({@link #respellProse}). */
  static List<Finding> respellFindings(List<Finding> findings) {
    // A name kept because it is a GoogleSQL reserved word is quoted here exactly as PostgreSQL quotes it: the
    // application's queries already do, so there is nothing to tell.
    return findings.stream().filter(f -> !(f.code() == FindingCode.NAME_CHANGED
        && Boolean.TRUE.equals(f.evidence().get("reserved")))).map(f -> new Finding(f.code(), f.severity(), f.table(), f.column(), f.index(),
        respellProse(f.message()), f.evidence())).toList();
  }

  /**
   * The planner writes its explanations once, naming Spanner types as GoogleSQL spells them ("keeps id as INT64",
   * "→ STRING(MAX)"); a PostgreSQL-dialect plan's reader sees them as that dialect spells them ("bigint",
   * "varchar"). Only the type names are changed, and "GoogleSQL syntax" advice points at the PostgreSQL dialect.
   */
  static String respellProse(String text) {
    if (text == null) {
      return null;
    }
    Matcher m = GOOGLE_TYPE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      try {
        replacement = SpannerType.parse(m.group()).ddl(PG);
      } catch (IllegalArgumentException e) {
        replacement = m.group();
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString().replace("(GoogleSQL syntax)", "(in the PostgreSQL dialect)");
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

  /** A LOSSY_TYPE finding on this column counted ±Infinity values: the dialect's numeric cannot hold them. */
  private static boolean hasInfinity(List<Finding> findings, ColumnPlan c) {
    return findings.stream().anyMatch(f -> f.code() == FindingCode.LOSSY_TYPE && c.source() != null
        && c.source().equals(f.column()) && f.evidence().get("numeric_infinity") instanceof Number n
        && n.longValue() > 0);
  }

  private static boolean isNumericSource(ColumnPlan c) {
    return c.sourceType() != null && c.sourceType().toLowerCase(Locale.ROOT).startsWith("numeric");
  }

  private static Optional<PgColumn> column(PgTable t, String name) {
    return name == null ? Optional.empty() : t.columns().stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
