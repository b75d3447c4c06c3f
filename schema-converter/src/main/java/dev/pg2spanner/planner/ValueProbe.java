package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.mapping.ProbedValues;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs the load's own value converter over a table's values as a draft of the plan would load them, so that
 * {@code plan} predicts every value {@code migrate} would refuse and chooses a type that keeps it instead. The
 * converter lives in data-loader, which depends on this module, so data-loader implements this interface and the
 * {@code plan} command passes it in ({@link PlanRun#execute}); {@link #NONE} examines nothing.
 *
 * <p>Which columns are probed ({@link #mayRefuse}): every array, and every scalar whose conversion parses values and can
 * refuse one for its content (numeric, money, dates, timestamps, JSON). Text, bytes and other text-output
 * conversions refuse only values over Spanner's size limits, which the one aggregate query per table counts over
 * every row ({@code EvidenceCollector}, TEXT_SIZE); a column the planner moved to a fallback after a probe is probed
 * again in its new type. Integers, booleans, floats and UUIDs never refuse a value.
 */
public interface ValueProbe {

  /**
   * At most this many rows of a table are read; a table whose estimated row count is larger is read as a
   * {@code TABLESAMPLE SYSTEM} sample of about this many rows.
   */
  long MAX_ROWS = 100_000;

  /** Examines nothing: the plan is made from the catalog and the aggregate evidence alone. */
  ValueProbe NONE = (c, table, draft, dialect, columns, maxRows) -> Map.of();

  /**
   * Converts the values of {@code columns} of {@code table} as {@code draft} plans them, counting what the loader
   * would refuse.
   *
   * @param c an open connection to the source (not closed here; its transaction state is restored)
   * @param table the table as the catalog describes it
   * @param draft the table's draft plan
   * @param dialect the draft plan's dialect (its column types are written in it)
   * @param columns the source names of the loaded columns to probe (each in {@code draft})
   * @param maxRows read at most this many rows ({@link #MAX_ROWS})
   * @return per probed source column, what the converter did
   */
  Map<String, ProbedValues> probe(Connection c, PgTable table, TablePlan draft, SpannerDialect dialect,
      List<String> columns, long maxRows) throws SQLException;

  /** Conversions that accept every value PostgreSQL can hold for the types the planner gives them. */
  Set<ValueConversion> NEVER_REFUSE = EnumSet.of(ValueConversion.BOOL, ValueConversion.INT64, ValueConversion.FLOAT32,
      ValueConversion.FLOAT64, ValueConversion.UUID_TEXT, ValueConversion.KEY_UUID, ValueConversion.SYNTHETIC);

  /** Scalar conversions that parse a value and can refuse it for its content, not only its size. */
  Set<ValueConversion> PARSING = EnumSet.of(ValueConversion.NUMERIC, ValueConversion.MONEY_NUMERIC,
      ValueConversion.DATE, ValueConversion.TIMESTAMP, ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC,
      ValueConversion.JSON);

  /**
   * Whether plan runs the converter over this column's values: a loaded array (its text is parsed element by element)
   * or a loaded scalar of a {@link #PARSING} conversion.
   */
  static boolean mayRefuse(ColumnPlan column, SpannerDialect dialect) {
    if (!column.isLoaded() || column.conversion() == ValueConversion.KEY_UUID) {
      return false;
    }
    return SpannerType.parse(dialect, column.targetType()).isArray() || PARSING.contains(column.conversion());
  }
}
