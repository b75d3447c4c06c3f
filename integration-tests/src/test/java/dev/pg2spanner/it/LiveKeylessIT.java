package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.load.JsonLinesFile;
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
 * Issue 30: a table without a key (REPLICA IDENTITY FULL) whose rows are found by content. Changes to rows the applier
 * wrote moments before (still waiting, or being committed) are found among those writes, so a transaction of many
 * changes to such a table is not applied one commit per change; duplicate rows, rows changed twice and rows deleted
 * after an update all end exact.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveKeylessIT {

  @Test
  void manyChangesToAKeylessTableInOneTransactionAreExactWithoutACommitEach(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE events (kind text NOT NULL, n int NOT NULL, note text)",
        "ALTER TABLE events REPLICA IDENTITY FULL",
        // Duplicates: 300 rows, only 60 distinct.
        "INSERT INTO events SELECT 'k' || (g % 3), g % 20, 'x' FROM generate_series(1, 300) g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    long commitsBefore = lastLive(run).path("commits").asLong();

    // One transaction: 400 inserts, then 400 updates and 200 deletes of rows, many of them just inserted or updated.
    pg.execute("DO $$ BEGIN "
        + "FOR i IN 1..400 LOOP INSERT INTO events VALUES ('new', i % 7, 'y'); END LOOP; "
        + "FOR i IN 1..400 LOOP UPDATE events SET note = note || i::text "
        + "  WHERE ctid = (SELECT ctid FROM events WHERE kind IN ('new', 'k1') ORDER BY ctid LIMIT 1 OFFSET (i % 50)); "
        + "END LOOP; "
        + "FOR i IN 1..200 LOOP DELETE FROM events "
        + "  WHERE ctid = (SELECT ctid FROM events WHERE kind = 'new' ORDER BY ctid LIMIT 1 OFFSET (i % 30)); "
        + "END LOOP; END $$");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    JsonNode last;
    while ((last = lastLive(run)).path("changes").asLong() < 1_000 || last.path("lagBytes").asLong() > 0) {
      if (migrate.isDone() || System.nanoTime() > deadline) {
        fail("the changes were not applied: " + (migrate.isDone() ? migrate.get().out() : last));
      }
      Thread.sleep(200);
    }
    long commits = last.path("commits").asLong() - commitsBefore;
    assertThat(commits).as("commits for 1,000 changes to a keyless table in one transaction").isLessThan(50);

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.out()).contains("1 table(s) verified: all match.").doesNotContain("rejected");
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM events"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM events")).isEqualTo(500);
  }

  static JsonNode lastLive(Path run) {
    JsonNode last = null;
    for (JsonNode line : JsonLinesFile.read(run.resolve("progress.jsonl"))) {
      if ("live".equals(line.path("type").asText())) {
        last = line;
      }
    }
    return last == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : last;
  }
}
