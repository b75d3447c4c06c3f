package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.ByteArray;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.fallback.ChangeStreamReader;
import dev.pg2spanner.fallback.ChangeStreamReader.Change;
import dev.pg2spanner.fallback.ChangeStreamReader.ModType;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 32: the change-stream reader on its own against the emulator: every insert, update and delete committed in a
 * window, in commit order, with the whole new row on inserts and updates and the old values on deletes and updates,
 * and nothing outside the window.
 */
@WithSpannerEmulator
class ChangeStreamReaderIT {

  @Test
  void everyChangeOfAWindowInCommitOrderWithNewRowsAndOldValues(SpannerTestDatabase spanner) throws Exception {
    spanner.updateDdl(List.of(
        "CREATE TABLE items (id INT64 NOT NULL, name STRING(MAX), price NUMERIC, data BYTES(MAX), "
            + "tags ARRAY<STRING(MAX)>, seen TIMESTAMP) PRIMARY KEY (id)",
        "CREATE CHANGE STREAM cs FOR items OPTIONS (value_capture_type = 'NEW_ROW_AND_OLD_VALUES')"));
    // The window starts after this write: it is not read.
    Timestamp start = spanner.client().writeAtLeastOnce(List.of(Mutation.newInsertOrUpdateBuilder("items").set("id").to(0)
        .set("name").to("before").build()));
    Timestamp t1 = spanner.client().writeAtLeastOnce(List.of(
        Mutation.newInsertBuilder("items").set("id").to(1).set("name").to("one")
            .set("price").to(new java.math.BigDecimal("12.345")).set("data").to(ByteArray.copyFrom(new byte[] {1, 2}))
            .set("tags").toStringArray(List.of("a", "b"))
            // Whole seconds: the emulator (1.5.28) drops a timestamp's fraction in change records (README).
            .set("seen").to(Timestamp.parseTimestamp("2026-03-01T00:00:00Z")).build(),
        Mutation.newInsertBuilder("items").set("id").to(2).set("name").to("two").build()));
    Timestamp t2 = spanner.client().writeAtLeastOnce(List.of(
        Mutation.newUpdateBuilder("items").set("id").to(1).set("name").to("uno").build()));
    Timestamp t3 = spanner.client().writeAtLeastOnce(List.of(Mutation.delete("items", Key.of(2))));
    Timestamp end = spanner.client().writeAtLeastOnce(List.of(Mutation.newInsertOrUpdateBuilder("items")
        .set("id").to(9).set("name").to("after").build()));

    ChangeStreamReader reader = new ChangeStreamReader(spanner.client(), "cs");
    List<Change> changes = reader.read(start, Timestamp.ofTimeSecondsAndNanos(end.getSeconds(), end.getNanos() - 1000));
    assertThat(changes).extracting(c -> c.modType() + " " + c.keys().get("id").asText()).containsExactly(
        "INSERT 1", "INSERT 2", "UPDATE 1", "DELETE 2");
    Change insert = changes.get(0);
    assertThat(insert.commitTimestamp()).isEqualTo(t1);
    assertThat(insert.newValues().get("name").asText()).isEqualTo("one");
    assertThat(insert.newValues().get("price").asText()).isEqualTo("12.345");
    assertThat(insert.newValues().get("data").asText()).isEqualTo("AQI=");
    assertThat(insert.newValues().get("tags").toString()).isEqualTo("[\"a\",\"b\"]");
    assertThat(Timestamp.parseTimestamp(insert.newValues().get("seen").asText()))
        .isEqualTo(Timestamp.parseTimestamp("2026-03-01T00:00:00Z"));
    assertThat(insert.columns().get("price").code()).isEqualTo("NUMERIC");
    assertThat(insert.columns().get("tags").elementCode()).isEqualTo("STRING");
    assertThat(insert.columns().get("id").primaryKey()).isTrue();
    Change update = changes.get(2);
    assertThat(update.commitTimestamp()).isEqualTo(t2);
    assertThat(update.newValues().get("name").asText()).isEqualTo("uno");
    assertThat(update.newValues().get("price").asText()).as("the whole new row").isEqualTo("12.345");
    assertThat(update.oldValues().get("name").asText()).isEqualTo("one");
    Change delete = changes.get(3);
    assertThat(delete.commitTimestamp()).isEqualTo(t3);
    assertThat(delete.oldValues().get("name").asText()).isEqualTo("two");
    assertThat(delete.newValues()).isEmpty();

    // The window is (after, end]: from t2 on, only the delete and the last write.
    assertThat(reader.read(t2, end)).extracting(c -> c.modType() + " " + c.keys().get("id").asText())
        .containsExactly("DELETE 2", "INSERT 9");
  }
}
