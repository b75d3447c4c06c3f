package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.CatalogFilter;
import dev.pg2spanner.catalog.CatalogReader;
import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.expression.ExpressionTranslator;
import dev.pg2spanner.expression.Translation;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.mapping.ColumnEvidence;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One planned table planned again from the source's catalog as it is now, by the planner's own rules and with the plan's
 * target settings: what a live run needs when the source's columns change while it streams (a column added, retyped,
 * renamed), so that a new column gets the type, name, NOT NULL and default {@code plan} would have given it. Only
 * column decisions are taken from it for a planned table (its key and interleaving stay the plan's); a table created
 * on the source while streaming takes all of it (key advice included, never interleaved: the catalog it is planned
 * from holds only that table), and an index created on the source takes the index's.
 */
public final class TableReplan {

  /**
   * The table as the catalog holds it now.
   *
   * @param table the table planned again
   * @param source the catalog's view of it (column positions are PostgreSQL's attnums)
   * @param sequences the Spanner sequences the table's columns use (a new table's ids), as planned with it
   */
  public record Result(TablePlan table, PgTable source, List<SequencePlan> sequences) {

    public Result {
      sequences = List.copyOf(sequences);
    }

    public Result(TablePlan table, PgTable source) {
      this(table, source, List.of());
    }

    /** The catalog's column of that name now, if any. */
    public Optional<PgColumn> column(String name) {
      return source.columns().stream().filter(c -> c.name().equals(name)).findFirst();
    }
  }

  private TableReplan() {}

  /**
   * Plans {@code sourceTable} ("schema.name") again.
   *
   * @param plan the run's plan (dialect, nodes, named schemas, source endpoint)
   * @return empty when the table no longer exists
   */
  public static Optional<Result> of(Connection c, Plan plan, String sourceTable, String toolVersion)
      throws SQLException {
    int dot = sourceTable.indexOf('.');
    String schema = sourceTable.substring(0, dot);
    CatalogFilter filter = new CatalogFilter(List.of(schema), Pattern.compile("^(?!" + Pattern.quote(sourceTable)
        + "$)"));
    PgCatalog catalog = new CatalogReader(filter).read(c);
    Optional<PgTable> table = catalog.tables().stream().filter(t -> t.qualifiedName().equals(sourceTable))
        .findFirst();
    if (table.isEmpty()) {
      return Optional.empty();
    }
    PlannerOptions options = new PlannerOptions(plan.target().nodes(), plan.target().namedSchemas(), toolVersion,
        plan.source().endpoint(), List.of(schema), Instant.now().truncatedTo(ChronoUnit.SECONDS),
        PlannerOptions.DEFAULT_LOW_WRITE_INSERTS_PER_SECOND, Map.of(), false,
        plan.target().spannerDialect());
    Map<String, ColumnEvidence> evidence = PlanRun.evidence(c, table.get(), options.dialect());
    Plan replanned = new Planner(options).plan(new PlanInputs(catalog, Map.of(sourceTable, evidence),
        Map.<String, KeySample>of(), Map.of()));
    return replanned.tableBySource(sourceTable).map(t -> new Result(t, table.get(), replanned.sequences().stream()
        .filter(s -> s.usedBy().stream().anyMatch(u -> u.startsWith(t.target() + "."))).toList()));
  }

  /**
   * The value the table's existing rows hold in a column added with a default, spelled as a GoogleSQL expression of
   * the column's planned type: the value PostgreSQL stored once for all of them (a "missing value":
   * {@code atthasmissing}), or, once a later rewrite of the table has written it into the rows, the default itself when
   * it is a constant (it gave every row the same value). Empty when the column was added without a default, or with one
   * PostgreSQL computed row by row (a volatile default rewrites the table, which is not streamed), or the value cannot
   * be spelled.
   */
  public static Optional<String> existingRowsValue(Connection c, PgTable table, PgColumn column, ColumnPlan planned)
      throws SQLException {
    return existingRowsValue(c, table, column, planned, SpannerDialect.GOOGLE_STANDARD_SQL);
  }

  /**
   * {@link #existingRowsValue(Connection, PgTable, PgColumn, ColumnPlan)} spelled in {@code dialect} (the planned
   * column's type and default are in that dialect).
   */
  public static Optional<String> existingRowsValue(Connection c, PgTable table, PgColumn column, ColumnPlan planned,
      SpannerDialect dialect) throws SQLException {
    Optional<String> missing = missingValue(c, table, column, planned, dialect);
    if (missing.isPresent()) {
      return missing;
    }
    if (ExpressionTranslator.isConstant(column.defaultExpression()) && planned.defaultExpression() != null) {
      return Optional.of(planned.defaultExpression());
    }
    return Optional.empty();
  }

  private static Optional<String> missingValue(Connection c, PgTable table, PgColumn column, ColumnPlan planned,
      SpannerDialect dialect) throws SQLException {
    String sql = "SELECT a.atthasmissing AS has, a.attmissingval::text AS missing FROM pg_catalog.pg_attribute a "
        + "WHERE a.attrelid = ?::regclass AND a.attname = ? AND NOT a.attisdropped";
    String missing;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, PgNames.qualified(table.schema(), table.name()));
      ps.setString(2, column.name());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean("has")) {
          return Optional.empty();
        }
        missing = rs.getString("missing");
      }
    }
    // attmissingval is a one-element array of the column's type: its element's text is the value.
    String element;
    try (PreparedStatement ps = c.prepareStatement("SELECT ((?::text)::" + column.type().display() + "[])[1]::text")) {
      ps.setString(1, missing);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        element = rs.getString(1);
      }
    }
    if (element == null) {
      return Optional.of("NULL");
    }
    Translation t = ExpressionTranslator.defaultValue(dialect,
        PgNames.literal(element) + "::" + column.type().display(), column.type(),
        SpannerType.parse(dialect, planned.targetType()));
    return t.in(dialect);
  }
}
