package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hash-sharded keys while streaming, GoogleSQL dialect (LivePostgresDialectIT covers the other): Spanner computes the
 * shard column itself, but a delete — and the old key of a row that moves — must name it, so the applier computes
 * the same hash in Java for every kind of key input (integers, text, timestamps, dates, UUIDs, bytes). A shard
 * computed wrong makes the delete a no-op: the row would stay in Spanner, which the cuts and cutover here would see.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveHashShardIT {

  /** Each table: its key columns' types and how a row's key is written from a number n. */
  private record Shape(String table, String keyDdl, String keyColumns, String keyOf) { }

  private static final List<Shape> SHAPES = List.of(
      new Shape("h_int", "id bigint", "id", "%d"),
      new Shape("h_text", "code text", "code", "'code-' || %d"),
      new Shape("h_ts", "at timestamptz, seq int", "at, seq",
          "timestamptz '2025-03-01 00:00:00.123456+00' + %d * interval '1 second 7 microseconds', 1"),
      new Shape("h_date", "d date, seq int", "d, seq", "date '2020-01-01' + %d, 2"),
      new Shape("h_uuid", "id uuid", "id", "md5('u' || %d)::uuid"),
      new Shape("h_bytes", "k bytea", "k", "decode(md5('b' || %d), 'hex')"));

  @Test
  void deletesAndKeyMovesNameTheShardSpannerComputedForEveryKindOfKey(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    List<String> schema = new ArrayList<>();
    List<String> strategies = new ArrayList<>();
    for (Shape s : SHAPES) {
      schema.add("CREATE TABLE " + s.table() + " (" + s.keyDdl() + ", v text NOT NULL, n int NOT NULL, "
          + "PRIMARY KEY (" + s.keyColumns() + "))");
      schema.add("INSERT INTO " + s.table() + " SELECT " + s.keyOf().replace("%d", "g") + ", 'v' || g, g "
          + "FROM generate_series(1, 300) g");
      strategies.add("--key-strategy");
      strategies.add(s.table() + "=hash-shard");
    }
    schema.add("ANALYZE");
    pg.execute(schema.toArray(String[]::new));
    CliRunner.Result planned = PlanCommandIT.plan(pg, dir.resolve("plan"), strategies.toArray(String[]::new));
    assertThat(planned.exitCode()).as(planned.out() + planned.err()).isZero();
    Path planFile = dir.resolve("plan").resolve("plan.yaml");
    Plan plan = PlanFiles.read(planFile);
    for (Shape s : SHAPES) {
      assertThat(plan.tableBySource("public." + s.table()).orElseThrow().keyStrategy().kind()).as(s.table())
          .isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    }

    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1",
            "--verify-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    for (Shape s : SHAPES) {
      String t = s.table();
      pg.execute(
          "INSERT INTO " + t + " SELECT " + s.keyOf().replace("%d", "g") + ", 'new', g FROM generate_series(1001, "
              + "1020) g",
          "UPDATE " + t + " SET v = 'updated', n = -n WHERE n BETWEEN 1 AND 20",
          "DELETE FROM " + t + " WHERE n BETWEEN 21 AND 40",
          // A key move: the old key (its shard computed here) deleted, the row written at the new one.
          "UPDATE " + t + " SET (" + s.keyColumns() + ") = (SELECT " + s.keyOf().replace("%d", "(n + 5000)") + "), "
              + "v = 'moved' WHERE n BETWEEN 41 AND 50",
          "DELETE FROM " + t + " WHERE n = 1005");
    }
    // A cut after every change above finds the changed rows equal (a delete that missed its row would not be).
    long lastChange = pgLong(pg, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn");
    JsonNode cut = null;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (cut == null) {
      for (JsonNode line : JsonLinesFile.read(run.resolve("progress.jsonl"))) {
        if ("verify".equals(line.path("type").asText()) && org.postgresql.replication.LogSequenceNumber.valueOf(
            line.path("cut").asText()).asLong() >= lastChange) {
          cut = line;
        }
      }
      if (migrate.isDone() || System.nanoTime() > deadline) {
        fail("no cut past the changes: " + (migrate.isDone() ? migrate.get().out() + migrate.get().err()
            : JsonLinesFile.read(run.resolve("progress.jsonl"))));
      }
      Thread.sleep(200);
    }
    for (JsonNode line : JsonLinesFile.read(run.resolve("progress.jsonl"))) {
      if ("verify".equals(line.path("type").asText())) {
        assertThat(line.path("summary").path("differing").asInt()).as("a cut found a difference: " + line).isZero();
      }
    }

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.out()).contains(SHAPES.size() + " table(s) verified: all match.");
    for (Shape s : SHAPES) {
      String t = s.table();
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + t)).as(t)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + t)).isEqualTo(300 + 20 - 20 - 1);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + t + " WHERE n BETWEEN 21 AND 40")).as(t).isZero();
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + t + " WHERE v = 'moved'")).as(t).isEqualTo(10);
    }
  }
}
