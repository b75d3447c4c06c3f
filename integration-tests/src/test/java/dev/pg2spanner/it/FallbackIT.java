package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.ByteArray;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.fallback.FallbackState;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.KeyUuid;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 32 end to end: {@code migrate --live}, {@code cutover} (which creates the change stream), the application
 * writing to Spanner (inserts, updates, deletes, key moves, large values, on a UUID-remapped table with an interleaved
 * child, a hash-sharded table and a bit-reversed one), {@code fallback} in a child JVM killed with SIGKILL and resumed,
 * changes the source cannot hold dead-lettered, then {@code cutover --back}; both sides then read back independently.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class FallbackIT {

  private static final byte[] PHOTO = new byte[300_000];

  static {
    for (int i = 0; i < PHOTO.length; i++) {
      PHOTO[i] = (byte) (i * 31 + 7);
    }
  }

  @Test
  void spannersWritesComeBackToTheSourceThroughAKillAndTheSwitchBackIsVerified(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute(
        "CREATE TABLE customers (id bigserial PRIMARY KEY, name text NOT NULL, score integer, balance numeric(12,2), "
            + "doc jsonb, tags text[], photo bytea, seen timestamptz, born date)",
        "CREATE TABLE orders (customer_id bigint REFERENCES customers (id) ON DELETE CASCADE, order_no int, "
            + "note varchar(40), PRIMARY KEY (customer_id, order_no))",
        "CREATE TABLE events (id bigint PRIMARY KEY, kind text NOT NULL, at timestamp, weight double precision)",
        "CREATE TABLE items (id bigserial PRIMARY KEY, label varchar(20), qty integer, price numeric(10,2))",
        "CREATE FUNCTION no_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'a trigger fired'; "
            + "END $$",
        "INSERT INTO customers (name, score, balance, doc, tags, seen, born) SELECT 'customer ' || g, g, g * 1.5, "
            + "jsonb_build_object('n', g), ARRAY['t' || g, 'x'], timestamptz '2026-01-01 00:00:00+00' "
            + "+ g * interval '1 minute', date '1990-01-01' + g FROM generate_series(1, 40) g",
        "INSERT INTO orders SELECT id, o, 'order ' || o FROM customers, generate_series(1, 2) o",
        "INSERT INTO events SELECT g, 'kind ' || (g % 3), timestamp '2026-02-01 10:00:00' + g * interval '1 s', "
            + "g / 4.0 FROM generate_series(1, 60) g",
        "INSERT INTO items (label, qty, price) SELECT 'item ' || g, g, g * 0.25 FROM generate_series(1, 50) g");
    CliRunner.Result planned = PlanCommandIT.plan(pg, dir.resolve("plan"), "--key-strategy",
        "public.customers=uuid", "--key-strategy", "public.events=hash-shard");
    assertThat(planned.exitCode()).as(planned.out() + planned.err()).isIn(0, ExitCode.PLAN_HAS_ERRORS.exitCode());
    Path planFile = dir.resolve("plan").resolve("plan.yaml");
    Plan plan = PlanFiles.read(planFile);
    TablePlan customers = plan.tableBySource("public.customers").orElseThrow();
    assertThat(customers.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.UUID);
    String kept = customers.keyStrategy().keptKeyColumn();
    assertThat(kept).isNotNull();
    TablePlan events = plan.tableBySource("public.events").orElseThrow();
    assertThat(events.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    TablePlan orders = plan.tableBySource("public.orders").orElseThrow();
    assertThat(orders.interleave()).as("orders interleaves in customers").isNotNull();
    String orderCustomer = orders.columns().stream().filter(c -> "customer_id".equals(c.source())).findFirst()
        .orElseThrow().target();

    // Forward: migrate --live, then cutover, which creates the change stream before it says "point the application".
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();
    assertThat(cutover.out()).contains("recorded for fallback");
    assertThat(migrated.out()).contains("change stream pg2spanner_fallback records every write to the 4 migrated");
    assertThat(FallbackState.read(run).orElseThrow().phase()).isEqualTo(FallbackState.Phase.RECORDING);
    // The source's triggers do not fire for fallback's writes (session_replication_role = replica).
    for (String t : List.of("customers", "orders", "events", "items")) {
      pg.execute("CREATE TRIGGER no_writes BEFORE INSERT OR UPDATE OR DELETE ON " + t
          + " FOR EACH ROW EXECUTE FUNCTION no_writes()");
    }

    // The application on Spanner. Timestamps in whole seconds: the emulator (1.5.28) drops a timestamp's fraction in
    // change records (README), so a fraction would come back as zero here; real Spanner sends it.
    DatabaseClient db = spanner.client();
    String c1 = uuidOf(db, kept, 1);
    String c2 = uuidOf(db, kept, 2);
    String c3 = uuidOf(db, kept, 3);
    // A new customer, keyed the way the plan maps an original id (the source keeps only the integer).
    String fresh = KeyUuid.of(UUID.fromString(customers.column("id").orElseThrow().uuidNamespace()), 1_000_001L)
        .toString();
    db.writeAtLeastOnce(List.of(
        Mutation.newInsertBuilder("customers").set("id").to(fresh).set(kept).to(1_000_001L).set("name").to("new one")
            .set("score").to(7L).set("balance").to(new BigDecimal("10.50")).set("tags").toStringArray(
                // No NULL element: the emulator (1.5.28) hangs committing one into a table a change stream watches.
                Arrays.asList("a", "q\"uote", "back\\slash")).set("photo").to(ByteArray.copyFrom(PHOTO))
            .set("doc").to(com.google.cloud.spanner.Value.json("{\"deep\":{\"k\":[1,2,3]}}")).build(),
        Mutation.newInsertBuilder("orders").set(orderCustomer).to(fresh).set("order_no").to(1L).set("note")
            .to("first order").build()));
    db.writeAtLeastOnce(List.of(Mutation.newUpdateBuilder("customers").set("id").to(c1).set("name")
        .to("renamed " + "x".repeat(20_000)).set("photo").to(ByteArray.copyFrom(PHOTO)).build()));
    // A delete of a customer and its orders (Spanner deletes interleaved children too; the application says so).
    db.writeAtLeastOnce(List.of(Mutation.delete("orders", Key.of(c3, 1L)), Mutation.delete("orders", Key.of(c3, 2L)),
        Mutation.delete("customers", Key.of(c3))));
    for (int i = 0; i < 60; i++) {
      final int n = i;
      db.readWriteTransaction().run(tx -> {
        tx.executeUpdate(Statement.of("INSERT INTO items (label, qty, price) VALUES ('spanner " + n + "', " + n
            + ", " + n + ".75)"));
        tx.executeUpdate(Statement.of("UPDATE items SET qty = qty + 1000 WHERE id = " + (n % 50 + 1)));
        tx.executeUpdate(Statement.of("INSERT INTO events (id, kind, `at`, weight) VALUES (" + (1000 + n)
            + ", 'spanner', TIMESTAMP '2026-03-01T00:00:00Z', " + n + ".125)"));
        return null;
      });
    }
    // Key moves: an event and an item each move to a new key in one transaction.
    db.readWriteTransaction().run(tx -> {
      tx.executeUpdate(Statement.of("INSERT INTO events (id, kind, `at`, weight) SELECT 5000, kind, `at`, weight "
          + "FROM events WHERE id = 5"));
      tx.executeUpdate(Statement.of("DELETE FROM events WHERE id = 5"));
      tx.executeUpdate(Statement.of("INSERT INTO items (id, label, qty, price) SELECT 7000, label, qty, price "
          + "FROM items WHERE id = 7"));
      tx.executeUpdate(Statement.of("DELETE FROM items WHERE id = 7"));
      return null;
    });

    // fallback in its own JVM, killed with SIGKILL once it applied something.
    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner", "fallback", "--run-dir", run.toString(),
        "--progress-interval", "1"));
    Path log = dir.resolve("fallback-killed.log");
    Process killed = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (fallbackChanges(run) == 0) {
        if (!killed.isAlive()) {
          fail("fallback ended (exit " + killed.exitValue() + "):\n" + Files.readString(log));
        }
        if (System.nanoTime() > deadline) {
          fail("fallback applied nothing within 3 minutes:\n" + Files.readString(log));
        }
        // More writes while it runs, so that it is killed with work in flight.
        final long n = System.nanoTime() % 1_000_000;
        db.writeAtLeastOnce(List.of(Mutation.newUpdateBuilder("customers").set("id").to(c2).set("name")
            .to("busy " + n).build()));
        Thread.sleep(100);
      }
    } finally {
      killed.destroyForcibly();
      assertThat(killed.waitFor(1, TimeUnit.MINUTES)).isTrue();
    }
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg2spanner_fallback_position")).isEqualTo(1);

    // Changes the source cannot hold: an integer beyond `integer`, a third decimal on numeric(12,2), a new row
    // without the original id the source's key needs.
    db.writeAtLeastOnce(List.of(Mutation.newUpdateBuilder("customers").set("id").to(c2).set("score")
        .to(3_000_000_000L).build()));
    db.writeAtLeastOnce(List.of(Mutation.newUpdateBuilder("customers").set("id").to(uuidOf(db, kept, 4))
        .set("balance").to(new BigDecimal("1.005")).build()));
    String orphan = UUID.randomUUID().toString();
    db.writeAtLeastOnce(List.of(Mutation.newInsertBuilder("customers").set("id").to(orphan).set("name")
        .to("no original id").build()));

    // Resumed in this JVM: it continues from the position the source holds.
    CompletableFuture<CliRunner.Result> resumed = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(List.of(
        "fallback", "--run-dir", run.toString(), "--progress-interval", "1")));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (deadLettered(run) < 3) {
      if (resumed.isDone()) {
        CliRunner.Result r = resumed.get();
        fail("fallback ended (exit " + r.exitCode() + "):\n" + r.out() + r.err());
      }
      if (System.nanoTime() > deadline) {
        fail("fallback did not dead-letter the three changes within 3 minutes");
      }
      Thread.sleep(100);
    }
    // Nothing was written changed: the source still holds the values from before.
    assertThat(pgLong(pg, "SELECT score FROM customers WHERE id = 2")).isEqualTo(2);
    assertThat(pg.queryValue("SELECT balance::text FROM customers WHERE id = 4")).isEqualTo("6.00");
    List<JsonNode> letters = MigrateSupport.jsonLines(run.resolve("dead-letter.jsonl"));
    assertThat(letters).extracting(l -> l.path("reason").asText()).anySatisfy(r -> assertThat(r)
        .contains("integer")).anySatisfy(r -> assertThat(r).contains("decimal")).anySatisfy(r -> assertThat(r)
        .contains(kept));

    // The application fixes the rows on Spanner (each change brings the whole row back), then stops writing.
    db.writeAtLeastOnce(List.of(
        Mutation.newUpdateBuilder("customers").set("id").to(c2).set("score").to(22L).build(),
        Mutation.newUpdateBuilder("customers").set("id").to(uuidOf(db, kept, 4)).set("balance")
            .to(new BigDecimal("1.01")).build()));
    db.writeAtLeastOnce(List.of(Mutation.delete("customers", Key.of(orphan))));

    CliRunner.Result back = MigrateSupport.cli(List.of("cutover", "--back", "--run-dir", run.toString()));
    CliRunner.Result follower = resumed.get(3, TimeUnit.MINUTES);
    // Both sides read back independently (first: they say which row differs, if one does).
    Map<String, List<String>> items = rows(pg, "SELECT id::text, label, qty::text, trim_scale(price)::text FROM "
        + "items");
    assertThat(items).hasSize(110).isEqualTo(rows(db, "SELECT CAST(id AS STRING), label, CAST(qty AS STRING), "
        + "CAST(price AS STRING) FROM items"));
    Map<String, List<String>> eventRows = rows(pg, "SELECT id::text, kind, to_char(at, 'YYYY-MM-DD HH24:MI:SS.US'), "
        + "(weight * 1000)::bigint::text FROM events");
    assertThat(eventRows).hasSize(120).isEqualTo(rows(db, "SELECT CAST(id AS STRING), kind, "
        + "FORMAT_TIMESTAMP('%F %H:%M:%E6S', `at`, 'UTC'), CAST(CAST(weight * 1000 AS INT64) AS STRING) FROM events"));
    Map<String, List<String>> customerRows = rows(pg, "SELECT id::text, name, score::text, "
        + "trim_scale(balance)::text, md5(photo), array_to_string(tags, '|', '~'), "
        + "to_char(seen AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), born::text FROM customers");
    assertThat(customerRows).hasSize(40).isEqualTo(rows(db, "SELECT CAST(" + kept + " AS STRING), name, "
        + "CAST(score AS STRING), CAST(balance AS STRING), TO_HEX(MD5(photo)), ARRAY_TO_STRING(ARRAY(SELECT "
        + "IFNULL(t, '~') FROM UNNEST(tags) t WITH OFFSET o ORDER BY o), '|'), "
        + "FORMAT_TIMESTAMP('%F %H:%M:%E6S', seen, 'UTC'), CAST(born AS STRING) FROM customers"));
    assertThat(rows(pg, "SELECT customer_id || '/' || order_no, note FROM orders")).hasSize(79)
        .isEqualTo(rows(db, "SELECT CAST(c." + kept + " AS STRING) || '/' || CAST(o.order_no AS STRING), o.note "
            + "FROM orders o JOIN customers c ON c.id = o." + orderCustomer));
    assertThat(back.exitCode()).as(back.out() + back.err() + "\n--- fallback:\n" + follower.out() + follower.err())
        .isZero();
    assertThat(follower.exitCode()).as(follower.out() + follower.err()).isZero();
    assertThat(follower.out()).contains("fallback stopped at").contains("(cutover --back asked)");
    assertThat(back.out()).contains("4 table(s) verified: all match.").contains("cutover --back done in")
        .contains("change stream pg2spanner_fallback dropped").contains("sequence public.items_id_seq moved");
    assertThat(FallbackState.read(run).orElseThrow().phase()).isEqualTo(FallbackState.Phase.DONE);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.CHANGE_STREAMS")).isZero();
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'pg2spanner_fallback_position'"))
        .isZero();

    assertThat(pg.queryValue("SELECT doc::text FROM customers WHERE id = 1000001"))
        .isEqualTo("{\"deep\": {\"k\": [1, 2, 3]}}");
    assertThat(pg.queryValue("SELECT tags::text FROM customers WHERE id = 1000001"))
        .isEqualTo("{a,\"q\\\"uote\",\"back\\\\slash\"}");
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM events WHERE id = 5000")).isEqualTo(1);
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM events WHERE id = 5")).isZero();
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM customers WHERE id = 3")).isZero();
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM items WHERE label LIKE 'spanner %'")).isEqualTo(60);
    // The source's sequence is past every id Spanner handed out (bit-reversed, so large).
    assertThat(pgLong(pg, "SELECT last_value FROM items_id_seq")).isEqualTo(pgLong(pg, "SELECT max(id) FROM items"))
        .isGreaterThan(1_000_000L);
  }

  /** The Spanner key of the customer whose original id is {@code id}. */
  private static String uuidOf(DatabaseClient db, String kept, long id) {
    try (ResultSet rs = db.singleUse().executeQuery(Statement.newBuilder("SELECT id FROM customers WHERE " + kept
        + " = @id").bind("id").to(id).build())) {
      assertThat(rs.next()).as("customer " + id).isTrue();
      return rs.getString(0);
    }
  }

  private static long fallbackChanges(Path run) throws Exception {
    long changes = 0;
    for (JsonNode line : MigrateSupport.jsonLines(run.resolve("progress.jsonl"))) {
      if ("fallback".equals(line.path("type").asText())) {
        changes = Math.max(changes, line.path("changes").asLong());
      }
    }
    return changes;
  }

  private static long deadLettered(Path run) throws Exception {
    return MigrateSupport.jsonLines(run.resolve("dead-letter.jsonl")).stream()
        .filter(l -> l.path("reason").asText().startsWith("fallback:")).count();
  }

  /** Every row as text, keyed by its first column (the queries cast every column to text). */
  private static Map<String, List<String>> rows(PgTestDatabase pg, String sql) throws Exception {
    Map<String, List<String>> rows = new TreeMap<>();
    try (Connection c = pg.connect(); var s = c.createStatement(); var rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 2; i <= n; i++) {
          row.add(rs.getString(i));
        }
        rows.put(rs.getString(1), row);
      }
    }
    return rows;
  }

  private static Map<String, List<String>> rows(DatabaseClient db, String sql) {
    Map<String, List<String>> rows = new TreeMap<>();
    try (ResultSet rs = db.singleUse().executeQuery(Statement.of(sql))) {
      while (rs.next()) {
        int n = rs.getColumnCount();
        List<String> row = new ArrayList<>();
        for (int i = 1; i < n; i++) {
          row.add(rs.isNull(i) ? null : rs.getString(i));
        }
        rows.put(rs.getString(0), row);
      }
    }
    return rows;
  }
}
