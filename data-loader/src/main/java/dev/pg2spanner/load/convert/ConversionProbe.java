package dev.pg2spanner.load.convert;

import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.mapping.ProbedValues;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.planner.ValueProbe;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * The load's own converter run over a table's values at plan time ({@link ValueProbe}): the columns are read the way
 * {@code migrate} reads them — one {@code COPY (SELECT ...) TO STDOUT (FORMAT binary)}, each column in binary where
 * the loader decodes its binary form and as its output text otherwise, in the loader's session settings — and each
 * value goes through the {@link ColumnReader} the loader compiles from the same column plan, so a value is refused
 * here exactly when {@code migrate} would refuse it. At most {@code maxRows} rows are read: a table estimated larger
 * is read as a {@code TABLESAMPLE SYSTEM ... REPEATABLE (0)} sample of about that many rows; an inheritance parent
 * with {@code ONLY}, as the loader reads it. Stateless; the connection's settings and transaction state are restored.
 */
public final class ConversionProbe implements ValueProbe {

  @Override
  public Map<String, ProbedValues> probe(Connection c, PgTable table, TablePlan draft, SpannerDialect dialect,
      List<String> columns, long maxRows) throws SQLException {
    if (columns.isEmpty()) {
      return Map.of();
    }
    ColumnPlan[] plans = new ColumnPlan[columns.size()];
    ColumnReader[] readers = new ColumnReader[columns.size()];
    StringBuilder select = new StringBuilder();
    for (int i = 0; i < plans.length; i++) {
      String name = columns.get(i);
      plans[i] = draft.columns().stream().filter(p -> name.equals(p.source())).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("column " + name + " is not in the plan of " + draft.source()));
      readers[i] = ColumnReader.compile(plans[i], i + 1, dialect);
      String q = PgNames.quote(name);
      select.append(i == 0 ? "" : ", ").append(readers[i].readsBinary() ? q : BinaryValues.outputText(q));
    }
    Double estimate = table.stats().rowEstimate();
    boolean sampled = estimate != null && estimate > maxRows;
    boolean only = table.kind() == PgTable.Kind.TABLE && table.hasInheritanceChildren();
    String from = (only ? "ONLY " : "") + PgNames.qualified(table.schema(), table.name())
        + (sampled ? String.format(Locale.ROOT, " TABLESAMPLE SYSTEM (%.6f) REPEATABLE (0)",
            Math.max(0.000001, Math.min(100.0, maxRows * 100.0 / estimate))) : "");
    String sql = "COPY (SELECT " + select + " FROM " + from + " LIMIT " + maxRows + ") TO STDOUT (FORMAT binary)";
    Piece whole = new Piece(table.qualifiedName() + "#probe", draft.target(), table.qualifiedName(), table.schema(),
        table.name(), only, 0, null, 0, 0);

    long rows = 0;
    long[] refused = new long[readers.length];
    String[] firstValue = new String[readers.length];
    String[] firstReason = new String[readers.length];
    boolean autoCommit = c.getAutoCommit();
    Savepoint savepoint = null;
    if (autoCommit) {
      c.setAutoCommit(false);
    } else {
      savepoint = c.setSavepoint();
    }
    try {
      try (Statement s = c.createStatement()) {
        // The text forms the converters parse; row security as plan's other reads have it (the plan's finding says so).
        s.execute(SnapshotSession.TRANSACTION_SETTINGS + "; SET LOCAL row_security = on"
            + "; SET LOCAL application_name = 'pg2spanner plan'");
      }
      CopyOut copy = c.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
      try {
        CopyTuple cells = new CopyTuple(readers.length);
        byte[] message;
        while ((message = copy.readFromCopy()) != null) {
          if (!cells.take(message, whole)) {
            continue;
          }
          rows++;
          for (int i = 0; i < readers.length; i++) {
            if (cells.isNull(i)) {
              continue;
            }
            try {
              readers[i].parseCopied(cells.bytes(), cells.from(i), cells.length(i));
            } catch (ValueRejection e) {
              if (refused[i]++ == 0) {
                firstValue[i] = ValueParsers.excerpt(e.value());
                firstReason[i] = e.getMessage();
              }
            }
          }
        }
      } finally {
        if (copy.isActive()) {
          copy.cancelCopy();
        }
      }
    } finally {
      if (savepoint == null) {
        c.rollback();
        c.setAutoCommit(true);
      } else {
        c.rollback(savepoint);
      }
    }
    Map<String, ProbedValues> out = new LinkedHashMap<>();
    for (int i = 0; i < readers.length; i++) {
      boolean array = SpannerType.parse(dialect, plans[i].targetType()).isArray();
      out.put(columns.get(i), new ProbedValues(columns.get(i), plans[i].conversion(), plans[i].targetType(), array,
          rows, sampled || rows >= maxRows, refused[i], firstValue[i], firstReason[i]));
    }
    return out;
  }
}
