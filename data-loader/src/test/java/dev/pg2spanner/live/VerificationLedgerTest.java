package dev.pg2spanner.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.live.VerificationLedger.Need;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger's rules: what a table needs at the next cut, and what a comparison at a cut settles. */
class VerificationLedgerTest {

  @TempDir
  Path dir;

  private static String[] key(String... texts) {
    return texts;
  }

  @Test
  void aTableNeverVerifiedIsComparedWholeAndAVerifiedOneOnlyForItsChangedRows() {
    VerificationLedger ledger = new VerificationLedger(List.of("a", "b"));
    assertThat(ledger.need("a")).isEqualTo(Need.ALL_ROWS);
    ledger.allVerified(100);
    assertThat(ledger.need("a")).isEqualTo(Need.NOTHING);
    ledger.rowChanged("a", key("1"), 150);
    ledger.rowChanged("a", key("2"), 160);
    ledger.rowChanged("a", key("1"), 170); // the same row again: tracked once, at its last change
    assertThat(ledger.need("a")).isEqualTo(Need.CHANGED_ROWS);
    assertThat(ledger.changedRows("a")).containsExactlyInAnyOrder(List.of("1"), List.of("2"));
    assertThat(ledger.need("b")).isEqualTo(Need.NOTHING);
  }

  @Test
  void aTableCreatedWhileStreamingIsComparedWholeOnceAddedAndADroppedOneIsForgotten() {
    VerificationLedger ledger = new VerificationLedger(List.of("a", "gone"));
    ledger.allVerified(100);
    // Not followed yet (its copy is ahead of the stream): nothing to compare, its changes not tracked.
    ledger.rowChanged("new", key("1"), 150);
    assertThat(ledger.need("new")).isEqualTo(Need.NOTHING);
    ledger.addTable("new");
    assertThat(ledger.need("new")).isEqualTo(Need.ALL_ROWS);
    ledger.verifiedWhole("new", 200, List.of());
    assertThat(ledger.need("new")).isEqualTo(Need.NOTHING);
    ledger.rowChanged("gone", key("1"), 150);
    ledger.removeTable("gone");
    assertThat(ledger.status()).extracting(VerificationLedger.TableStatus::table).containsExactly("a", "new");
    ledger.verifiedWhole("gone", 200, List.of()); // a comparison that was under way when it went: no effect
    assertThat(ledger.summary()).containsEntry("tables", 2);
  }

  @Test
  void aCutSettlesTheRowsChangedBeforeItAndKeepsThoseChangedAfter() {
    VerificationLedger ledger = new VerificationLedger(List.of("a"));
    ledger.allVerified(100);
    ledger.rowChanged("a", key("1"), 150);
    ledger.rowChanged("a", key("2"), 260); // after the cut at 200: its state at the cut says nothing of now
    List<List<String>> compared = ledger.changedRows("a");
    ledger.verifiedRows("a", 200, Set.of(), List.of());
    assertThat(compared).hasSize(2);
    assertThat(ledger.changedRows("a")).containsExactly(List.of("2"));
    assertThat(ledger.status().get(0).verifiedLsn()).isEqualTo(200);
  }

  @Test
  void aDifferingRowStaysTrackedAndADifferenceSeenAtTwoCutsPersists() {
    VerificationLedger ledger = new VerificationLedger(List.of("a"));
    ledger.allVerified(100);
    ledger.rowChanged("a", key("1"), 150);
    ledger.rowChanged("a", key("3"), 150);
    ledger.verifiedRows("a", 200, Set.of(List.of("3")), List.of("different: 3"));
    assertThat(ledger.changedRows("a")).containsExactly(List.of("3"));
    assertThat(ledger.status().get(0).persistent()).isFalse();
    assertThat(ledger.summary()).containsEntry("differing", 1).containsEntry("persistent", 0);
    ledger.verifiedRows("a", 300, Set.of(List.of("3")), List.of("different: 3"));
    assertThat(ledger.status().get(0).persistent()).isTrue();
    assertThat(ledger.anyPersistentDifference()).isTrue();
    // Mended: the next comparison finds it equal and forgets it.
    ledger.verifiedRows("a", 400, Set.of(), List.of());
    assertThat(ledger.need("a")).isEqualTo(Need.NOTHING);
    assertThat(ledger.anyPersistentDifference()).isFalse();
  }

  @Test
  void aChangeNotTrackedByRowMakesTheTableDueWholeUntilAWholeComparisonAfterIt() {
    VerificationLedger ledger = new VerificationLedger(List.of("a"));
    ledger.allVerified(100);
    ledger.rowChanged("a", key("1"), 120);
    ledger.tableChanged("a", 150); // a TRUNCATE
    assertThat(ledger.need("a")).isEqualTo(Need.ALL_ROWS);
    ledger.rowChanged("a", key("9"), 180); // tracked meanwhile: a whole comparison may run at a cut before it
    ledger.verifiedWhole("a", 170, List.of());
    assertThat(ledger.need("a")).isEqualTo(Need.CHANGED_ROWS);
    assertThat(ledger.changedRows("a")).containsExactly(List.of("9"));
    // A whole comparison that differs leaves the table due whole.
    ledger.tableChanged("a", 190);
    ledger.verifiedWhole("a", 200, List.of("missing in target: 4"));
    assertThat(ledger.need("a")).isEqualTo(Need.ALL_ROWS);
  }

  @Test
  void rowsChangedWhileTheTableIsDueWholeAreKeptForTheCutAfterIt() {
    VerificationLedger ledger = new VerificationLedger(List.of("a"));
    ledger.rowChanged("a", key("1"), 50);
    ledger.rowChanged("a", key("2"), 250);
    ledger.verifiedWhole("a", 200, List.of()); // the first whole comparison, at a cut between the two changes
    assertThat(ledger.changedRows("a")).containsExactly(List.of("2"));
  }

  @Test
  void tooManyChangedRowsMakeTheLargestTableDueWhole() {
    VerificationLedger ledger = new VerificationLedger(List.of("big", "small"));
    ledger.allVerified(1);
    ledger.rowChanged("small", key("s"), 2);
    for (int i = 0; i < VerificationLedger.MAX_TRACKED_ROWS; i++) { // with "small"'s row: one over the bound
      ledger.rowChanged("big", key(Integer.toString(i)), 10 + i);
    }
    assertThat(ledger.need("big")).isEqualTo(Need.ALL_ROWS);
    assertThat(ledger.changedRows("big")).isEmpty();
    assertThat(ledger.status().get(0).note()).contains("compared whole again");
    assertThat(ledger.need("small")).isEqualTo(Need.CHANGED_ROWS);
  }

  @Test
  void aSavedLedgerIsReusedOnlyAtThePositionItWasSavedAt() {
    VerificationLedger ledger = new VerificationLedger(List.of("a", "b"));
    ledger.allVerified(100);
    ledger.rowChanged("a", key("x", "it's, \"quoted\""), 150);
    ledger.tableChanged("b", 160);
    ledger.save(dir, 170);

    VerificationLedger again = VerificationLedger.load(dir, List.of("a", "b"), 170).orElseThrow();
    assertThat(again.changedRows("a")).containsExactly(List.of("x", "it's, \"quoted\""));
    assertThat(again.need("a")).isEqualTo(Need.CHANGED_ROWS);
    assertThat(again.need("b")).isEqualTo(Need.ALL_ROWS);
    assertThat(again.status().get(0).verifiedLsn()).isEqualTo(100);
    // Changes applied after the save (a kill -9 before the next save) were not recorded: not reused.
    assertThat(VerificationLedger.load(dir, List.of("a", "b"), 180)).isEmpty();
    // Nor for another plan's tables.
    assertThat(VerificationLedger.load(dir, List.of("a", "c"), 170)).isEmpty();
  }
}
