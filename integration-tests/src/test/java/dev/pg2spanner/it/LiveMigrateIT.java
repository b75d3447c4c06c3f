package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 end to end: {@code migrate --live} loads from a replication slot's snapshot while the source takes
 * writes, streams every change after it, and {@code cutover} (from another "terminal") catches up, verifies the
 * final state exactly, moves the sequences and removes the slot and publication.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveMigrateIT {

  @Test
  void aSourceTakingWritesIsMigratedAndCutOverExactly(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    LiveWorkload.createSchema(pg);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");

    CompletableFuture<CliRunner.Result> migrate;
    try (LiveWorkload workload = new LiveWorkload(pg).start()) {
      migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(),
          spanner.emulatorHost(), run, "--live", "--workers", "2", "--progress-interval", "1")));
      awaitStreaming(run, migrate);
      // Writes during streaming, then a truncate, then more writes.
      long before = workload.transactions();
      while (workload.transactions() < before + 150) {
        assertThat(migrate).isNotDone();
        Thread.sleep(50);
      }
    }
    pg.execute("TRUNCATE scratch", "INSERT INTO scratch VALUES (1, 'after truncate')");
    new LiveWorkload(pg).run(40);

    // The application's writes are stopped: cut over from "another terminal".
    CliRunner.Result status = MigrateSupport.cli(List.of("status", "--run-dir", run.toString()));
    assertThat(status.exitCode()).as(status.out() + status.err()).isZero();
    assertThat(status.out()).contains("phase        stream (a migrate --live process is running)")
        .contains("live: ").contains("changes applied");
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
    assertThat(cutover.out()).contains("Cutover done in");
    assertThat(migrated.out())
        .contains("replication slot pg2spanner_")
        .contains("== cutover: verify")
        .contains("5 table(s) verified: all match.")
        .contains("dropped");

    // Every table equal, counted both ways (cutover's verify compared checksums too).
    for (String table : List.of("accounts", "entries", "tags", "audit", "scratch")) {
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
    }
    // Unchanged TOASTed values survived non-key updates and key moves.
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM accounts WHERE LENGTH(big) = 12800 OR LENGTH(big) = 9600"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM accounts WHERE big IS NOT NULL"));
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM tags WHERE code LIKE 'moved-%' AND LENGTH(doc) = 9600"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM tags WHERE code LIKE 'moved-%'")).isPositive();
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM scratch")).isEqualTo(1);

    // The source is clean: no slot, no publication; the run is done.
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()")).isZero();
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_publication")).isZero();
    assertThat(LiveState.read(run).orElseThrow().phase()).isEqualTo(LiveState.Phase.DONE);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = "
        + "'pg2spanner_live_position'")).isZero();

    // New ids from each Spanner sequence cannot collide with any id the source handed out.
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT NAME, OPTION_VALUE "
        + "FROM INFORMATION_SCHEMA.SEQUENCE_OPTIONS WHERE OPTION_NAME = 'skip_range_max'"))) {
      int sequences = 0;
      while (rs.next()) {
        sequences++;
        assertThat(Long.parseLong(rs.getString("OPTION_VALUE"))).as(rs.getString("NAME"))
            .isGreaterThanOrEqualTo(pgLong(pg, "SELECT last_value FROM accounts_id_seq"));
      }
      assertThat(sequences).as("the plan gives accounts a bit-reversed sequence").isPositive();
    }
  }

  /** Waits until migrate --live streams (its run directory says so), failing if it ended first. */
  static void awaitStreaming(Path run, CompletableFuture<CliRunner.Result> migrate) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (true) {
      if (migrate.isDone()) {
        CliRunner.Result r = migrate.get();
        fail("migrate --live ended before streaming (exit " + r.exitCode() + "):\n" + r.out() + r.err());
      }
      if (Files.exists(run.resolve(LiveState.FILE))
          && LiveState.read(run).orElseThrow().phase() == LiveState.Phase.STREAM
          && dev.pg2spanner.load.JsonLinesFile.read(run.resolve("progress.jsonl")).stream()
              .anyMatch(l -> l.path("type").asText().equals("live"))) {
        return;
      }
      if (System.nanoTime() > deadline) {
        fail("migrate --live did not start streaming within 3 minutes");
      }
      Thread.sleep(100);
    }
  }

  static JsonNode lastLive(Path run) throws Exception {
    List<JsonNode> lines = dev.pg2spanner.load.JsonLinesFile.read(run.resolve("progress.jsonl"));
    JsonNode last = null;
    for (JsonNode line : lines) {
      if (line.path("type").asText().equals("live")) {
        last = line;
      }
    }
    return last;
  }
}
