package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.replication.LogSequenceNumber;

/**
 * Issue 30: verification while streaming. The rows the stream changes are compared at consistent cuts (a temporary
 * slot's snapshot against Spanner at the moment the applier had applied exactly what that snapshot holds), so cutover
 * compares only what changed after the last cut; a difference in a changed row is found, one that persists is
 * reported while streaming, and {@code cutover --full} still compares every row.
 */
class LiveVerificationIT {

  private static final String[] SCHEMA = {
      "CREATE TABLE items (id bigint PRIMARY KEY, v text NOT NULL, n int NOT NULL)",
      "INSERT INTO items SELECT g, 'v' || g, g FROM generate_series(1, 2000) g",
      "CREATE TABLE untouched (id int PRIMARY KEY, v text)",
      "INSERT INTO untouched SELECT g, 'u' || g FROM generate_series(1, 100) g",
      "CREATE TABLE docs (id int PRIMARY KEY, small int NOT NULL, big text)",
      "ALTER TABLE docs ALTER COLUMN big SET STORAGE EXTERNAL",
      "INSERT INTO docs SELECT g, g, repeat(md5(g::text), 300) FROM generate_series(1, 20) g",
      "CREATE TABLE keyless (v text NOT NULL, n int)",
      "ALTER TABLE keyless REPLICA IDENTITY FULL",
      "INSERT INTO keyless SELECT 'k' || g, g FROM generate_series(1, 30) g",
      "ANALYZE"};

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class WhileStreaming {

    @Test
    void changedRowsAreVerifiedWhileStreamingAndCutoverComparesOnlyWhatChangedSince(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1",
              "--verify-interval", "1")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      pg.execute("UPDATE items SET v = 'changed', n = -n WHERE id <= 100",
          "DELETE FROM items WHERE id BETWEEN 101 AND 110",
          "INSERT INTO items SELECT g, 'new', 0 FROM generate_series(3001, 3050) g",
          "UPDATE items SET id = id + 10000 WHERE id BETWEEN 200 AND 204",
          "UPDATE keyless SET n = -n WHERE n <= 5");

      // Every change applied (100 + 10 + 50 + 5 updates that move a key + 5), then a cut compares the changed rows
      // (and the keyless table whole) and finds everything equal.
      JsonNode applied = awaitLine(run, migrate, 0, l -> "live".equals(l.path("type").asText())
          && l.path("changes").asLong() >= 170 && l.path("lagBytes").asLong() == 0);
      long appliedLsn = LogSequenceNumber.valueOf(applied.path("appliedLsn").asText()).asLong();
      awaitLine(run, migrate, 0, l -> isVerifyLine(l)
          && LogSequenceNumber.valueOf(l.path("cut").asText()).asLong() >= appliedLsn
          && l.path("summary").path("upToDate").asInt() == 4 && l.path("summary").path("changedRows").asLong() == 0);
      String compared = JsonLinesFile.read(run.resolve("progress.jsonl")).stream().filter(LiveVerificationIT::isVerifyLine)
          .map(l -> l.path("compared").toString()).reduce("", String::concat);
      assertThat(compared).contains("\"table\":\"items\",\"compared\":\"changed rows\"")
          .contains("\"table\":\"keyless\",\"compared\":\"all rows\"").doesNotContain("\"table\":\"untouched\"");
      CliRunner.Result status = MigrateSupport.cli(List.of("status", "--run-dir", run.toString()));
      assertThat(status.out()).as(status.out() + status.err()).contains("verified     4 of 4 tables")
          .contains("4 up to date");

      // A few more changes, then cutover right away: it compares those rows, and nothing of the untouched table.
      pg.execute("UPDATE items SET v = 'late' WHERE id BETWEEN 1001 AND 1003");
      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
          + migrated.err()).isZero();
      assertThat(migrated.out())
          .containsPattern("(?m)^untouched +\\| nothing changed since verified at [0-9A-F]+/[0-9A-F]+ +\\| equal")
          .containsPattern("(?m)^items +\\| [0-9]+ changed rows \\(verified at [0-9A-F/]+ before\\) +\\| equal")
          .contains("4 table(s) verified: all match.");
      assertThat(cutover.out()).containsPattern("Cutover done in [0-9.]+ s \\(caught up after [0-9.]+ s, compared "
          + "after [0-9.]+ s: [0-9,]+ changed row\\(s\\) compared");
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items")).isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM items"));
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE v = 'late'")).isEqualTo(3);
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class ChangedRowDiffers {

    @Test
    void aDifferenceInAChangedRowFailsCutoverAndFullFindsOneInAnUnchangedRow(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      // No cut while streaming: cutover compares every row changed since the load.
      CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1",
              "--verify-interval", "0")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      pg.execute("UPDATE items SET v = 'changed' WHERE id <= 10");
      awaitLine(run, migrate, 0, l -> "live".equals(l.path("type").asText()) && l.path("changes").asLong() >= 10
          && l.path("lagBytes").asLong() == 0);
      // Something other than the stream writes to the target: a changed row and an unchanged one.
      spanner.client().writeAtLeastOnce(List.of(
          Mutation.newUpdateBuilder("items").set("id").to(5).set("v").to("tampered").build(),
          Mutation.newUpdateBuilder("items").set("id").to(500).set("v").to("tampered").build()));

      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out())
          .isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
      assertThat(migrated.out()).containsPattern("(?m)^items +\\| 10 changed rows .*\\| DIFFERENT \\| different: 5$")
          .doesNotContain("different: 500");
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()")).as("nothing removed").isEqualTo(1);

      // --full compares every row, so it finds the unchanged row too (no migrate runs: cutover streams itself).
      CliRunner.Result full = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString(), "--full"));
      assertThat(full.exitCode()).as(full.out() + full.err()).isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
      assertThat(full.out()).contains("--full: every row").contains("different: 5").contains("different: 500");

      // Mended in the target, cutover passes; the ledger the stopped run saved still knew which rows had changed.
      spanner.client().writeAtLeastOnce(List.of(
          Mutation.newUpdateBuilder("items").set("id").to(5).set("v").to("changed").build(),
          Mutation.newUpdateBuilder("items").set("id").to(500).set("v").to("v500").build()));
      CliRunner.Result mended = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      assertThat(mended.exitCode()).as(mended.out() + mended.err()).isZero();
      // Rows 1-4 and 6-10 were found equal at the first cutover's cut; only row 5 is left to compare.
      assertThat(mended.out()).containsPattern("(?m)^items +\\| 1 changed rows").contains("all match");
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class PersistentDifference {

    @Test
    void aDifferenceThatPersistsAcrossCutsIsReportedWhileStreaming(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1",
              "--verify-interval", "1")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      // A stray write to a large value, then a source update that leaves that value alone (it is not streamed, so
      // the applier updates only the small column): the row differs at every cut from now on.
      spanner.client().writeAtLeastOnce(List.of(
          Mutation.newUpdateBuilder("docs").set("id").to(3).set("big").to("tampered").build()));
      pg.execute("UPDATE docs SET small = small + 1 WHERE id = 3");

      JsonNode persistent = awaitLine(run, migrate, 0, l -> isVerifyLine(l)
          && l.path("summary").path("persistent").asInt() == 1);
      assertThat(persistent.path("tables").toString()).contains("\"table\":\"docs\"").contains("different: 3");
      JsonNode progress = awaitLine(run, migrate, 0, l -> "live".equals(l.path("type").asText())
          && l.path("verification").path("persistent").asInt() == 1);
      assertThat(progress).isNotNull();
      CliRunner.Result status = MigrateSupport.cli(List.of("status", "--run-dir", run.toString()));
      assertThat(status.out()).as(status.out()).contains("DIFFERS (persisted across two cuts): different: 3");

      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + migrated.out()).isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
      assertThat(migrated.out()).containsPattern("(?m)^docs +\\|.*\\| DIFFERENT \\| different: 3$");
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class UnderAWorkload {

    /**
     * The cuts are exact: under a workload that never stops (inserts, TOASTed updates, key moves, cascading deletes,
     * a keyless table), every comparison at a cut finds the tables equal — a cut that were off by one transaction
     * would show the rows that transaction changed as different.
     */
    @Test
    void everyCutFindsTheTablesEqualWhileTheSourceKeepsWriting(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      LiveWorkload.createSchema(pg);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      CompletableFuture<CliRunner.Result> migrate;
      try (LiveWorkload workload = new LiveWorkload(pg).start()) {
        migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(),
            spanner.emulatorHost(), run, "--live", "--progress-interval", "1", "--verify-interval", "1")));
        LiveMigrateIT.awaitStreaming(run, migrate);
        // At least five cuts that compared changed rows while the workload ran.
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (JsonLinesFile.read(run.resolve("progress.jsonl")).stream().filter(l -> isVerifyLine(l)
            && l.path("compared").toString().contains("changed rows")).count() < 5) {
          if (migrate.isDone() || System.nanoTime() > deadline) {
            fail("fewer than 5 verification cuts: " + (migrate.isDone() ? migrate.get().out() : "timeout"));
          }
          Thread.sleep(200);
        }
      }
      List<JsonNode> cuts = JsonLinesFile.read(run.resolve("progress.jsonl")).stream()
          .filter(LiveVerificationIT::isVerifyLine).toList();
      for (JsonNode cut : cuts) {
        assertThat(cut.path("summary").path("differing").asInt()).as("a cut found a difference: " + cut).isZero();
      }
      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out())
          .isZero();
      assertThat(migrated.out()).contains("5 table(s) verified: all match.");
    }
  }

  private static boolean isVerifyLine(JsonNode line) {
    return "verify".equals(line.path("type").asText());
  }

  /** The first progress line that {@code wanted} accepts, waiting up to 2 minutes; fails if migrate ended first. */
  private static JsonNode awaitLine(Path run, CompletableFuture<CliRunner.Result> migrate, int from,
      Predicate<JsonNode> wanted) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      List<JsonNode> lines = JsonLinesFile.read(run.resolve("progress.jsonl"));
      for (JsonNode line : lines.subList(Math.min(from, lines.size()), lines.size())) {
        if (wanted.test(line)) {
          return line;
        }
      }
      if (migrate.isDone()) {
        CliRunner.Result r = migrate.get();
        fail("migrate --live ended (exit " + r.exitCode() + "):\n" + r.out() + r.err());
      }
      Thread.sleep(200);
    }
    fail("no such progress line within 2 minutes in " + JsonLinesFile.read(run.resolve("progress.jsonl")));
    return null;
  }
}
