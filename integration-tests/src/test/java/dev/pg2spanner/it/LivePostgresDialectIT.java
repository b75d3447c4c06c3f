package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 part 2: the live suite's essentials against a PostgreSQL-dialect database. {@code check --live} accepts
 * the plan; {@code migrate --live} loads and streams the live workload (inserts, TOASTed updates, key moves,
 * cascading deletes, a keyless table) plus a hash-sharded table and a table whose integer key is remapped to UUIDs
 * (with a referencing table), verifies changed rows at consistent cuts while streaming, follows columns added,
 * dropped and widened, and {@code cutover} proves the target exact, moves the bit-reversed sequence past an id the
 * source handed out and removes the slot, the publication and the position table.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LivePostgresDialectIT {

  private static final String DATABASE = "live-pg";

  private static final String[] EXTRA_SCHEMA = {
      "CREATE TABLE events (id bigint PRIMARY KEY, v varchar(10) NOT NULL, n int NOT NULL, obsolete text)",
      "INSERT INTO events SELECT g, 'e' || g, g, 'old' FROM generate_series(1, 500) g",
      "CREATE TABLE customers (id bigint PRIMARY KEY, name text NOT NULL)",
      "INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(1, 100) g",
      "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers (id) "
          + "ON DELETE CASCADE ON UPDATE CASCADE, amount int NOT NULL)",
      "INSERT INTO orders SELECT g, 1 + g % 100, g FROM generate_series(1, 300) g",
      "ANALYZE"};

  @Test
  void aSourceTakingWritesIsMigratedLiveIntoThePostgresDialectAndCutOverExactly(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    LiveWorkload.createSchema(pg);
    pg.execute(EXTRA_SCHEMA);
    Path planFile = PostgresDialectIT.planPostgres(pg, dir.resolve("plan"), "--key-strategy", "events=hash-shard",
        "--key-strategy", "customers=uuid");
    Plan plan = PlanFiles.read(planFile);
    TablePlan events = plan.tableBySource("public.events").orElseThrow();
    assertThat(events.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(events.column(events.keyStrategy().shardColumn()).orElseThrow().generatedExpression())
        .startsWith("mod(abs(spanner.farm_fingerprint(");
    assertThat(plan.tableBySource("public.customers").orElseThrow().keyStrategy().kind())
        .isEqualTo(KeyStrategy.Kind.UUID);
    SequencePlan sequence = plan.sequences().stream().filter(s -> s.usedBy().stream()
        .anyMatch(u -> u.startsWith("accounts."))).findFirst().orElseThrow();

    // check --live accepts the plan (a PostgreSQL-dialect one was refused before).
    CliRunner.Result check = CliRunner.withEnv(Map.of()).run("check", "--source", pg.jdbcUrl(), "--live", "--plan",
        planFile.toString());
    assertThat(check.exitCode()).as(check.out() + check.err()).isZero();
    assertThat(check.out()).doesNotContain("does not support");

    Path run = dir.resolve("run");
    String target = PostgresDialectIT.target(spanner, DATABASE);
    CompletableFuture<CliRunner.Result> migrate;
    try (LiveWorkload workload = new LiveWorkload(pg).start()) {
      migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(migrateArgs(planFile, pg, target,
          spanner.emulatorHost(), run, "--live", "--workers", "2", "--progress-interval", "1",
          "--verify-interval", "1")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      // The hash-sharded and the remapped tables change too: inserts, updates, deletes and key moves (a delete must
      // name the shard Spanner computed, a moved customer takes a new UUID and its orders follow it).
      for (int round = 0; round < 5; round++) {
        int base = 1000 + round * 100;
        pg.execute(
            "INSERT INTO events SELECT g, 'new', g FROM generate_series(" + base + ", " + (base + 19) + ") g",
            "UPDATE events SET v = 'upd' || " + round + ", n = -n WHERE id BETWEEN " + (1 + round * 40) + " AND "
                + (10 + round * 40),
            "DELETE FROM events WHERE id BETWEEN " + (11 + round * 40) + " AND " + (15 + round * 40),
            "UPDATE events SET id = id + 100000 WHERE id BETWEEN " + (16 + round * 40) + " AND "
                + (18 + round * 40),
            "INSERT INTO customers VALUES (" + (500 + round) + ", 'late " + round + "')",
            "INSERT INTO orders VALUES (" + (5000 + round) + ", " + (500 + round) + ", 7)",
            "UPDATE customers SET name = 'renamed' WHERE id = " + (1 + round),
            "UPDATE customers SET id = id + 10000 WHERE id = " + (10 + round),
            "DELETE FROM customers WHERE id = " + (20 + round),
            "UPDATE orders SET amount = amount + 1, customer_id = 30 WHERE id = " + (40 + round),
            "DELETE FROM orders WHERE id = " + (60 + round));
      }
      // An id the source hands out beyond the plan's skip range: cutover must move the Spanner sequence past it.
      pg.execute("INSERT INTO accounts (id, name) VALUES (" + (sequence.skipRangeMax() + 10) + ", 'far')");
      // Every cut while the workload runs finds the changed rows equal.
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (JsonLinesFile.read(run.resolve("progress.jsonl")).stream().filter(l -> isVerifyLine(l)
          && l.path("compared").toString().contains("changed rows")).count() < 3) {
        if (migrate.isDone() || System.nanoTime() > deadline) {
          fail("fewer than 3 verification cuts: " + (migrate.isDone() ? migrate.get().out() + migrate.get().err()
              : "timeout"));
        }
        Thread.sleep(200);
      }
    }
    // Every cut exact: a cut off by one transaction would show the rows it changed as different (key moves with
    // unchanged TOASTed values keep them from Spanner's old row, not from the source as it is later).
    for (JsonNode cut : JsonLinesFile.read(run.resolve("progress.jsonl"))) {
      if (isVerifyLine(cut)) {
        assertThat(cut.path("summary").path("differing").asInt()).as("a cut found a difference: " + cut).isZero();
      }
    }

    // Schema changes followed on the PostgreSQL-dialect target: a column added with a default, one dropped, one
    // widened (varchar(10) to varchar(40)).
    pg.execute("ALTER TABLE events ADD COLUMN status text NOT NULL DEFAULT 'new'",
        "ALTER TABLE events DROP COLUMN obsolete",
        "ALTER TABLE events ALTER COLUMN v TYPE varchar(40)",
        "INSERT INTO events (id, v, n, status) VALUES (900000, '" + "w".repeat(35) + "', 1, 'shipped')",
        "UPDATE events SET status = 'seen' WHERE id BETWEEN 300 AND 309");
    new LiveWorkload(pg).run(30);

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
    assertThat(migrated.out())
        .contains("live: the source table public.events changed: column obsolete dropped")
        .contains("varchar(10) becomes varchar(40)").contains("column status added as status varchar (existing rows: "
            + "'new')")
        .contains("8 table(s) verified: all match.")
        .containsPattern("sequence [^ ]+: new ids now skip [0-9]+\\.\\." + (sequence.skipRangeMax() + 10));

    DatabaseClient client = PostgresDialectIT.client(spanner, DATABASE);
    assertThat(client.getDialect()).isEqualTo(Dialect.POSTGRESQL);
    for (String table : List.of("accounts", "entries", "tags", "audit", "scratch", "events", "customers", "orders")) {
      assertThat(spannerLong(client, "SELECT count(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT count(*) FROM " + table));
    }
    assertThat(spannerLong(client, "SELECT count(*) FROM events WHERE status = 'new'"))
        .isEqualTo(pgLong(pg, "SELECT count(*) FROM events WHERE status = 'new'")).isPositive();
    assertThat(spannerLong(client, "SELECT count(*) FROM events WHERE length(v) = 35")).isEqualTo(1);
    assertThat(spannerLong(client, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'events' "
        + "AND column_name = 'obsolete'")).isZero();
    assertThat(spannerLong(client, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'events' "
        + "AND column_name = 'v' AND character_maximum_length = 40")).isEqualTo(1);
    // Every order references its customer's UUID (moved customers included).
    assertThat(spannerLong(client, "SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id"))
        .isEqualTo(pgLong(pg, "SELECT count(*) FROM orders"));

    // The source is clean, the position table gone, the run done.
    assertThat(pgLong(pg, "SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")).isZero();
    assertThat(pgLong(pg, "SELECT count(*) FROM pg_publication")).isZero();
    assertThat(LiveState.read(run).orElseThrow().phase()).isEqualTo(LiveState.Phase.DONE);
    assertThat(spannerLong(client, "SELECT count(*) FROM information_schema.tables WHERE table_name = "
        + "'pg2spanner_live_position'")).isZero();
    // The schema changes are versions of the target's schema history.
    assertThat(spannerLong(client, "SELECT count(*) FROM flyway_schema_history WHERE version >= '5' AND success"))
        .isPositive();
  }

  private static boolean isVerifyLine(JsonNode line) {
    return "verify".equals(line.path("type").asText());
  }
}
