package dev.pg2spanner.load;

import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Small plans, pieces and rows for the load tests. */
public final class BatchFixtures {

  private BatchFixtures() {}

  /** A table with columns id and payload and {@code indexes} secondary indexes. */
  public static TablePlan table(String name, int indexes, String parent) {
    List<IndexPlan> idx = new ArrayList<>();
    for (int i = 0; i < indexes; i++) {
      idx.add(new IndexPlan(null, name + "_idx" + i, List.of(KeyPart.asc("payload")), false, false, null, null));
    }
    return new TablePlan("public." + name, false, name, 100.0, 1000L,
        List.of(new ColumnPlan("id", "bigint", "id", "INT64", true, ValueConversion.INT64, null, null),
            new ColumnPlan("payload", "text", "payload", "STRING(MAX)", false, ValueConversion.STRING, null, null)),
        List.of(KeyPart.asc("id")), KeyStrategy.keep("test"),
        parent == null ? null : new Interleave(parent, Interleave.OnDelete.CASCADE, null), idx, null, null, null);
  }

  public static Plan plan(TablePlan... tables) {
    return new Plan(Plan.FORMAT_VERSION, "pg2spanner test", Instant.parse("2026-01-01T00:00:00Z"),
        new Plan.Source("localhost:5432/test", "15", List.of("public"), "f"),
        new Plan.Target("GOOGLE_STANDARD_SQL", false, 1), List.of(tables), null, null);
  }

  public static Piece piece(String table, int n, int level) {
    return new Piece(table + "#" + n, table, "public." + table, "public", table, false, n * 10L, n * 10L + 10, level,
        100);
  }

  /** A row of {@code table} with the given key, claimed size and cell count. */
  public static ConvertedRow row(String table, long id, long bytes, int cells) {
    return new ConvertedRow(Mutation.newInsertOrUpdateBuilder(table).set("id").to(id).set("payload").to("p" + id)
        .build(), Long.toString(id), bytes, cells);
  }
}
