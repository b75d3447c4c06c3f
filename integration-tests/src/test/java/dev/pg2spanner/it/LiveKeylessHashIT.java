package dev.pg2spanner.it;

import static dev.pg2spanner.it.LiveKeylessIT.lastLive;
import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: the loaded rows of a table without a key (REPLICA IDENTITY FULL) that live changes update or delete are
 * found through the row hash the plan adds and its index, not by a scan of the table per change: duplicates, NULL
 * beside '', and a row whose hash is missing (found by the scan it falls back to) all end exact at cutover.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveKeylessHashIT {

  @Test
  void changesToLoadedRowsOfAKeylessTableAreFoundByTheirRowHashNotByAScan(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    // 5,000 loaded rows, each of 1,000 distinct rows five times; a tenth with a NULL note; and three rows whose note
    // is NULL beside three whose note is '' (a hash that confused the two would delete the wrong ones).
    pg.execute("CREATE TABLE readings (sensor text NOT NULL, n int NOT NULL, note text)",
        "ALTER TABLE readings REPLICA IDENTITY FULL",
        "INSERT INTO readings SELECT 's' || (g % 50), g % 1000, CASE WHEN g % 1000 < 100 THEN NULL ELSE 'x' END "
            + "FROM generate_series(1, 5000) g",
        "INSERT INTO readings VALUES ('z', -1, NULL), ('z', -1, NULL), ('z', -1, NULL), ('z', -1, ''), "
            + "('z', -1, ''), ('z', -1, '')",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    dev.pg2spanner.plan.RowHash hash = dev.pg2spanner.plan.PlanFiles.read(plan).tableBySource("public.readings")
        .orElseThrow().rowHash();
    assertThat(hash).as("the plan's row hash of a table without a primary key").isNotNull();
    assertThat(hash.columns()).containsExactly("sensor", "n", "note");
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM readings WHERE " + hash.column() + " IS NULL"))
        .as("loaded rows without a hash").isZero();
    // Loaded rows whose hash Spanner lost (as if written in part; the five copies of n = 700): the one changed below
    // is found by the scan the lookup falls back to.
    spanner.client().readWriteTransaction().run(tx -> tx.executeUpdate(com.google.cloud.spanner.Statement.of(
        "UPDATE readings SET " + hash.column() + " = NULL WHERE n = 700")));

    // 300 updates and 200 deletes of one copy each of loaded rows, in transactions of 50; all five copies of n = 600
    // updated by one statement; the three '' rows deleted; the row without a hash updated.
    pg.execute("DO $$ BEGIN "
        + "FOR i IN 1..300 LOOP UPDATE readings SET note = 'u' || i "
        + "  WHERE ctid = (SELECT ctid FROM readings WHERE n = i LIMIT 1); "
        + "  IF i % 50 = 0 THEN COMMIT; END IF; END LOOP; "
        + "FOR i IN 301..500 LOOP DELETE FROM readings WHERE ctid = (SELECT ctid FROM readings WHERE n = i LIMIT 1); "
        + "  IF i % 50 = 0 THEN COMMIT; END IF; END LOOP; END $$");
    pg.execute("UPDATE readings SET note = 'all' WHERE n = 600",
        "DELETE FROM readings WHERE sensor = 'z' AND note = ''",
        "UPDATE readings SET note = 'lost hash' WHERE ctid = (SELECT ctid FROM readings WHERE n = 700 LIMIT 1)");
    long expected = 300 + 200 + 5 + 3 + 1;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    JsonNode last;
    while ((last = lastLive(run)).path("changes").asLong() < expected || last.path("lagBytes").asLong() > 0) {
      if (migrate.isDone() || System.nanoTime() > deadline) {
        fail("the changes were not applied: " + (migrate.isDone() ? migrate.get().out() : last));
      }
      Thread.sleep(200);
    }
    // Every change but the one to the row whose hash was lost found its row through the hash's index.
    assertThat(last.path("foundByHash").asLong()).as(last.toString()).isEqualTo(expected - 1);
    assertThat(last.path("lookupScans").asLong()).as(last.toString()).isEqualTo(1);
    // The lookups were made together (changes held back and their rows read at once), not one read per change.
    assertThat(last.path("hashReads").asLong()).as(last.toString()).isPositive().isLessThanOrEqualTo(expected / 10);
    assertThat(last.path("rejected").asLong()).isZero();
    // The applier writes the hash of every row it writes whole: only the four unchanged copies still lack one.
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM readings WHERE " + hash.column() + " IS NULL")).isEqualTo(4);

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.out()).contains("1 table(s) verified: all match.").doesNotContain("rejected");
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM readings"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM readings")).isEqualTo(5_006 - 200 - 3);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM readings WHERE sensor = 'z' AND note IS NULL"))
        .isEqualTo(3);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM readings WHERE note = 'all'")).isEqualTo(5);
  }
}
