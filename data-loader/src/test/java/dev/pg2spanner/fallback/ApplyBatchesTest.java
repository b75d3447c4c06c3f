package dev.pg2spanner.fallback;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.cloud.Timestamp;
import dev.pg2spanner.fallback.ChangeStreamReader.Change;
import dev.pg2spanner.fallback.ChangeStreamReader.ModType;
import dev.pg2spanner.spanner.SpannerDialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 32: a window's changes cut into source transactions only between commits, within the bounds. */
class ApplyBatchesTest {

  private static final Timestamp END = Timestamp.ofTimeSecondsAndNanos(2_000, 0);

  private static Change change(long second, int n, String value) {
    return new Change(Timestamp.ofTimeSecondsAndNanos(second, 0), "tx" + second, "0", n, "items", ModType.INSERT,
        Map.of(), Map.of("id", new TextNode(second + "/" + n)), Map.<String, JsonNode>of("v", new TextNode(value)),
        Map.of());
  }

  @Test
  void cutsOnlyBetweenCommitsAndKeepsOrder() {
    List<Change> window = new ArrayList<>();
    for (long s = 1; s <= 10; s++) {
      for (int n = 0; n < 3; n++) {
        window.add(change(s, n, "x"));
      }
    }
    List<ApplyBatches.Batch> batches = ApplyBatches.cut(window, END, 7, Long.MAX_VALUE);
    // 7 changes at most, whole commits of 3: two commits (6 changes) a batch.
    assertThat(batches).extracting(b -> b.changes().size()).containsExactly(6, 6, 6, 6, 6);
    assertThat(batches).extracting(ApplyBatches.Batch::appliedTo).containsExactly(
        Timestamp.ofTimeSecondsAndNanos(2, 0), Timestamp.ofTimeSecondsAndNanos(4, 0),
        Timestamp.ofTimeSecondsAndNanos(6, 0), Timestamp.ofTimeSecondsAndNanos(8, 0), END);
    assertThat(batches.stream().flatMap(b -> b.changes().stream()).toList()).isEqualTo(window);
    for (ApplyBatches.Batch b : batches) {
      // Every change of a batch committed at or before the position stored with it.
      assertThat(b.changes()).allSatisfy(c -> assertThat(c.commitTimestamp()).isLessThanOrEqualTo(b.appliedTo()));
    }
  }

  @Test
  void aCommitLargerThanTheBoundsStaysWholeAndBytesBoundToo() {
    List<Change> window = new ArrayList<>();
    for (int n = 0; n < 20; n++) {
      window.add(change(1, n, "x"));
    }
    window.add(change(2, 0, "y".repeat(1_000)));
    window.add(change(3, 0, "z".repeat(1_000)));
    List<ApplyBatches.Batch> batches = ApplyBatches.cut(window, END, 5, 1_500);
    assertThat(batches).extracting(b -> b.changes().size()).containsExactly(20, 1, 1);
    assertThat(batches.get(0).appliedTo()).isEqualTo(Timestamp.ofTimeSecondsAndNanos(1, 0));
    assertThat(batches.get(1).appliedTo()).isEqualTo(Timestamp.ofTimeSecondsAndNanos(2, 0));
  }

  @Test
  void anEmptyWindowStillMovesThePosition() {
    assertThat(ApplyBatches.cut(List.of(), END, 10, 10)).singleElement().satisfies(b -> {
      assertThat(b.changes()).isEmpty();
      assertThat(b.appliedTo()).isEqualTo(END);
    });
  }

  @Test
  void postgresDialectRecordTimestampsAndStreamDdl() {
    assertThat(ChangeStreamReader.timestamp("2026-11-28T00:32:55.17706571+00:00"))
        .isEqualTo(Timestamp.parseTimestamp("2026-11-28T00:32:55.17706571Z"));
    assertThat(ChangeStreamReader.timestamp("2026-11-28T00:32:56Z"))
        .isEqualTo(Timestamp.ofTimeSecondsAndNanos(Timestamp.parseTimestamp("2026-11-28T00:32:56Z").getSeconds(), 0));
    assertThat(FallbackStream.createStatement(SpannerDialect.POSTGRESQL, List.of("items", "Orders", "billing.user")))
        .isEqualTo("CREATE CHANGE STREAM pg2spanner_fallback FOR items, \"Orders\", billing.\"user\" WITH "
            + "(value_capture_type = 'NEW_ROW_AND_OLD_VALUES', retention_period = '7d')");
    assertThat(FallbackStream.createStatement(SpannerDialect.GOOGLE_STANDARD_SQL, List.of("items", "Order")))
        .isEqualTo("CREATE CHANGE STREAM pg2spanner_fallback FOR items, `Order` OPTIONS "
            + "(value_capture_type = 'NEW_ROW_AND_OLD_VALUES', retention_period = '7d')");
  }
}
