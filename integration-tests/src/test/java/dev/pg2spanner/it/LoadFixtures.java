package dev.pg2spanner.it;

import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.ArrayList;
import java.util.Collections;

/** Hand-built plans for load tests, so they do not depend on the planner. */
final class LoadFixtures {

  private LoadFixtures() {}

  /** A loaded, nullable column. */
  static ColumnPlan column(String source, String sourceType, String target, String targetType,
      ValueConversion conversion) {
    return new ColumnPlan(source, sourceType, target, targetType, false, conversion, null, null);
  }

  /** A loaded NOT NULL column. */
  static ColumnPlan notNull(String source, String sourceType, String target, String targetType,
      ValueConversion conversion) {
    return new ColumnPlan(source, sourceType, target, targetType, true, conversion, null, null);
  }

  /** A BIGINT key column "id" → INT64 "id". */
  static ColumnPlan id() {
    return notNull("id", "bigint", "id", "INT64", ValueConversion.INT64);
  }

  /** A table keyed (keep strategy) by its first column. */
  static TablePlan table(String source, String target, boolean readOnly, ColumnPlan... columns) {
    return new TablePlan(source, readOnly, target, null, 0, Arrays.asList(columns),
        List.of(KeyPart.asc(columns[0].target())), KeyStrategy.keep("test"), null, null, null, null, null);
  }

  /** The same table, interleaved in {@code parent}. */
  static TablePlan interleaved(TablePlan table, String parent) {
    return new TablePlan(table.source(), table.readOnly(), table.target(), null, 0, table.columns(),
        table.primaryKey(), table.keyStrategy(), new Interleave(parent, Interleave.OnDelete.CASCADE, null), null,
        null, null, null);
  }

  static Plan plan(TablePlan... tables) {
    return new Plan(Plan.FORMAT_VERSION, "pg2spanner test", Instant.EPOCH,
        new Plan.Source("localhost:5432/test", "15", List.of("public"), "test"),
        new Plan.Target("GOOGLE_STANDARD_SQL", false, 1), List.of(tables), null, null);
  }

  /** One open-ended piece over a whole relation. */
  static Piece whole(TablePlan table, String schema, String relation) {
    return new Piece(table.target() + "#all", table.target(), table.source(), schema, relation, true, 0, null, 0, 0);
  }

  /** A sink that keeps everything (thread-safe). */
  static final class CollectingSink implements RowSink {
    final List<ConvertedRow> rows = Collections.synchronizedList(new ArrayList<>());
    final List<RejectedRow> rejected = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void accept(ConvertedRow row) {
      rows.add(row);
    }

    @Override
    public void reject(RejectedRow row) {
      rejected.add(row);
    }
  }
}
