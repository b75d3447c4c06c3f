package dev.pg2spanner.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ReadOnlyTransaction;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The target's key ranges on the emulator: for keys with NULLs, a descending part and a named schema, the ranges
 * come in key order, are about the asked size, and together return every row exactly once.
 */
@WithSpannerEmulator
class TargetRangesIT {

  private static final TablePlan RANKED = new TablePlan("public.ranked", false, "league.ranked", 3_000.0, 300_000L,
      List.of(col("grp", "STRING(MAX)"), col("n", "INT64"), col("label", "STRING(MAX)")),
      List.of(KeyPart.asc("grp"), new KeyPart("n", true)), KeyStrategy.keep("test"), null, null, null, null, null);

  @Test
  void rangesCoverEveryRowOnceInKeyOrder(SpannerTestDatabase spanner) throws Exception {
    spanner.updateDdl(List.of("CREATE SCHEMA league",
        "CREATE TABLE league.ranked (grp STRING(MAX), n INT64 NOT NULL, label STRING(MAX)) PRIMARY KEY (grp, n DESC)"));
    DatabaseClient client = spanner.client();
    List<Mutation> rows = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      // 300 rows with a NULL first key part (they sort first), the rest in 7 groups; n descending within a group.
      String grp = i < 300 ? null : "g" + (i % 7);
      rows.add(Mutation.newInsertBuilder("league.ranked").set("grp").to(grp).set("n").to(i)
          .set("label").to("row " + i).build());
    }
    client.write(rows);
    Timestamp readAt = readTimestamp(client);

    List<KeySet> ranges = TargetRanges.of(client, RANKED, readAt, 300);
    assertThat(ranges).hasSizeBetween(5, 10);

    List<String> columns = TargetRanges.readColumns(RANKED, List.of("label"));
    assertThat(columns).containsExactly("grp", "n", "label");
    Set<Long> seen = new HashSet<>();
    List<String> order = new ArrayList<>();
    int largest = 0;
    for (KeySet range : ranges) {
      int inRange = 0;
      try (ResultSet rs = client.singleUse(TimestampBound.ofReadTimestamp(readAt)).read("league.ranked", range,
          columns)) {
        while (rs.next()) {
          assertThat(seen.add(rs.getLong("n"))).as("row %d read twice", rs.getLong("n")).isTrue();
          order.add((rs.isNull("grp") ? "" : rs.getString("grp")) + "/" + (100_000 - rs.getLong("n")));
          inRange++;
        }
      }
      largest = Math.max(largest, inRange);
    }
    assertThat(seen).hasSize(3_000);
    // Key order across ranges: NULL group first, then by group, n descending (here: ascending 100,000 - n).
    List<String> sorted = new ArrayList<>(order);
    sorted.sort((a, b) -> {
      String[] x = a.split("/");
      String[] y = b.split("/");
      int byGroup = x[0].compareTo(y[0]);
      return byGroup != 0 ? byGroup : Long.compare(Long.parseLong(x[1]), Long.parseLong(y[1]));
    });
    assertThat(order).isEqualTo(sorted);
    // A reservoir sample cuts unevenly, but four sampled keys per range keep every range far below the table.
    assertThat(largest).isLessThan(1_200);
  }

  @Test
  void aSmallTableIsReadWhole(SpannerTestDatabase spanner) throws Exception {
    // The class shares one database: a table of its own.
    spanner.updateDdl(List.of("CREATE TABLE lone (id INT64 NOT NULL, label STRING(MAX)) PRIMARY KEY (id)"));
    List<Mutation> rows = new ArrayList<>();
    for (long i = 0; i < 450; i++) {
      rows.add(Mutation.newInsertBuilder("lone").set("id").to(i).set("label").to(Value.string("r" + i)).build());
    }
    spanner.client().write(rows);
    TablePlan lone = new TablePlan("public.lone", false, "lone", 450.0, 45_000L,
        List.of(col("id", "INT64"), col("label", "STRING(MAX)")), List.of(KeyPart.asc("id")),
        KeyStrategy.keep("test"), null, null, null, null, null);
    // Up to 1.5 ranges' worth of rows is one read.
    assertThat(TargetRanges.of(spanner.client(), lone, readTimestamp(spanner.client()), 300))
        .containsExactly(KeySet.all());
    assertThat(TargetRanges.of(spanner.client(), lone, readTimestamp(spanner.client()), 200)).hasSizeGreaterThan(1);
  }

  private static Timestamp readTimestamp(DatabaseClient client) {
    try (ReadOnlyTransaction tx = client.readOnlyTransaction(TimestampBound.strong());
        ResultSet rs = tx.executeQuery(Statement.of("SELECT 1"))) {
      rs.next();
      return tx.getReadTimestamp();
    }
  }

  private static ColumnPlan col(String name, String type) {
    return new ColumnPlan(name, "(test)", name, type, false, ValueConversion.STRING, null, null);
  }
}
