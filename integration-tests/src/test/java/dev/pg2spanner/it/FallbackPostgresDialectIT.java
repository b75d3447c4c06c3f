package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.cloud.ByteArray;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
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
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 32 in the PostgreSQL dialect: {@code cutover} creates the change stream there too ({@code CREATE CHANGE
 * STREAM ... WITH (...)}), {@code fallback} reads it through {@code spanner.read_json_<stream>} (records as JSONB) and
 * brings the application's writes back (inserts, updates, deletes, key moves, on a UUID-remapped table with a table
 * referencing it, a hash-sharded table and one fed by a bit-reversed sequence), and {@code cutover --back} verifies
 * the source equal to Spanner and drops the stream; both sides are then read back independently.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class FallbackPostgresDialectIT {

  private static final String DATABASE = "fallback-pg";
  private static final byte[] PHOTO = new byte[50_000];

  static {
    for (int i = 0; i < PHOTO.length; i++) {
      PHOTO[i] = (byte) (i * 17 + 3);
    }
  }

  @Test
  void spannersWritesComeBackFromAPostgresDialectDatabase(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute(
        "CREATE TABLE customers (id bigint PRIMARY KEY, name text NOT NULL, balance numeric(12,2), doc jsonb, "
            + "tags text[], photo bytea, seen timestamptz)",
        "INSERT INTO customers SELECT g, 'customer ' || g, g * 1.5, jsonb_build_object('n', g), "
            + "ARRAY['t' || g, 'x'], NULL, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute' "
            + "FROM generate_series(1, 30) g",
        "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers (id), "
            + "amount int NOT NULL)",
        "INSERT INTO orders SELECT g, 1 + g % 30, g FROM generate_series(1, 60) g",
        "CREATE TABLE events (id bigint PRIMARY KEY, kind text NOT NULL, weight double precision)",
        "INSERT INTO events SELECT g, 'kind ' || (g % 3), g / 4.0 FROM generate_series(1, 40) g",
        "CREATE TABLE items (id bigserial PRIMARY KEY, label varchar(20), qty integer)",
        "INSERT INTO items (label, qty) SELECT 'item ' || g, g FROM generate_series(1, 30) g",
        "ANALYZE");
    Path planFile = PostgresDialectIT.planPostgres(pg, dir.resolve("plan"), "--key-strategy", "events=hash-shard",
        "--key-strategy", "customers=uuid");
    Plan plan = PlanFiles.read(planFile);
    TablePlan customers = plan.tableBySource("public.customers").orElseThrow();
    assertThat(customers.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.UUID);
    String kept = customers.keyStrategy().keptKeyColumn();
    assertThat(kept).isNotNull();
    assertThat(plan.tableBySource("public.events").orElseThrow().keyStrategy().kind())
        .isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    UUID namespace = UUID.fromString(customers.column("id").orElseThrow().uuidNamespace());

    // Forward: migrate --live into a PostgreSQL-dialect database, then cutover, which creates the change stream.
    Path run = dir.resolve("run");
    String target = PostgresDialectIT.target(spanner, DATABASE);
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(planFile, pg, target, spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();
    assertThat(cutover.out()).contains("recorded for fallback");
    assertThat(migrated.out()).contains("change stream pg2spanner_fallback records every write to the 4 migrated");
    DatabaseClient db = PostgresDialectIT.client(spanner, DATABASE);
    assertThat(db.getDialect()).isEqualTo(Dialect.POSTGRESQL);
    assertThat(spannerLong(db, "SELECT count(*) FROM information_schema.change_streams "
        + "WHERE change_stream_name = 'pg2spanner_fallback'")).isEqualTo(1);
    assertThat(FallbackState.read(run).orElseThrow().phase()).isEqualTo(FallbackState.Phase.RECORDING);

    // The application on Spanner (PostgreSQL dialect). Whole seconds: the emulator drops a timestamp's fraction in
    // change records (README).
    String c1 = KeyUuid.of(namespace, 1).toString();
    String c3 = KeyUuid.of(namespace, 3).toString();
    String fresh = KeyUuid.of(namespace, 1_000_001L).toString();
    db.writeAtLeastOnce(List.of(
        Mutation.newInsertBuilder("customers").set("id").to(fresh).set(kept).to(1_000_001L).set("name").to("new one")
            .set("balance").to(Value.pgNumeric("10.50")).set("doc").to(Value.pgJsonb("{\"deep\": {\"k\": [1, 2]}}"))
            .set("tags").toStringArray(List.of("a", "q\"uote", "back\\slash"))
            .set("photo").to(ByteArray.copyFrom(PHOTO))
            .set("seen").to(Timestamp.parseTimestamp("2026-03-01T12:00:00Z")).build(),
        Mutation.newInsertBuilder("orders").set("id").to(9001L).set("customer_id").to(fresh).set("amount").to(5L)
            .build()));
    db.writeAtLeastOnce(List.of(Mutation.newUpdateBuilder("customers").set("id").to(c1).set("name")
        .to("renamed " + "x".repeat(5_000)).set("balance").to(Value.pgNumeric("99.25")).build()));
    // A customer deleted with its orders, in one transaction.
    db.readWriteTransaction().run(tx -> {
      tx.executeUpdate(Statement.newBuilder("DELETE FROM orders WHERE customer_id = $1").bind("p1").to(c3).build());
      tx.buffer(Mutation.delete("customers", Key.of(c3)));
      return null;
    });
    // An order of a customer the stream does not show: its original id is looked up on Spanner.
    db.readWriteTransaction().run(tx -> tx.executeUpdate(Statement.of(
        "UPDATE orders SET amount = amount + 100 WHERE id = 10")));
    for (int i = 0; i < 40; i++) {
      final int n = i;
      db.readWriteTransaction().run(tx -> {
        tx.executeUpdate(Statement.of("INSERT INTO items (label, qty) VALUES ('spanner " + n + "', " + n + ")"));
        tx.executeUpdate(Statement.of("UPDATE items SET qty = qty + 1000 WHERE id = " + (n % 30 + 1)));
        tx.executeUpdate(Statement.of("INSERT INTO events (id, kind, weight) VALUES (" + (1000 + n)
            + ", 'spanner', " + n + ".125)"));
        return null;
      });
    }
    // Key moves (a hash-sharded event and an item each to a new key) and a delete.
    db.readWriteTransaction().run(tx -> {
      tx.executeUpdate(Statement.of("INSERT INTO events (id, kind, weight) SELECT 5000, kind, weight FROM events "
          + "WHERE id = 5"));
      tx.executeUpdate(Statement.of("DELETE FROM events WHERE id = 5"));
      tx.executeUpdate(Statement.of("INSERT INTO items (id, label, qty) SELECT 7000, label, qty FROM items "
          + "WHERE id = 7"));
      tx.executeUpdate(Statement.of("DELETE FROM items WHERE id = 7"));
      tx.executeUpdate(Statement.of("DELETE FROM events WHERE id = 6"));
      return null;
    });

    // fallback brings them back while it runs...
    CompletableFuture<CliRunner.Result> follower = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(List.of(
        "fallback", "--run-dir", run.toString(), "--progress-interval", "1")));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (pgLong(pg, "SELECT count(*) FROM items WHERE id = 7000") == 0) {
      if (follower.isDone()) {
        CliRunner.Result r = follower.get();
        fail("fallback ended (exit " + r.exitCode() + "):\n" + r.out() + r.err());
      }
      if (System.nanoTime() > deadline) {
        fail("fallback did not bring the last change back within 3 minutes");
      }
      Thread.sleep(100);
    }
    // ... and cutover --back stops it, verifies and switches back.
    CliRunner.Result back = MigrateSupport.cli(List.of("cutover", "--back", "--run-dir", run.toString()));
    CliRunner.Result followed = follower.get(3, TimeUnit.MINUTES);
    assertThat(back.exitCode()).as(back.out() + back.err() + "\n--- fallback:\n" + followed.out() + followed.err())
        .isZero();
    assertThat(followed.exitCode()).as(followed.out() + followed.err()).isZero();
    assertThat(followed.out()).contains("(cutover --back asked)").doesNotContain("dead-lettered");
    assertThat(back.out()).contains("4 table(s) verified: all match.").contains("cutover --back done in")
        .contains("change stream pg2spanner_fallback dropped").contains("sequence public.items_id_seq moved");
    assertThat(FallbackState.read(run).orElseThrow().phase()).isEqualTo(FallbackState.Phase.DONE);
    assertThat(spannerLong(db, "SELECT count(*) FROM information_schema.change_streams")).isZero();

    // Both sides read back independently.
    assertThat(rows(pg, "SELECT id, label, qty FROM items")).hasSize(70)
        .isEqualTo(rows(db, "SELECT id, label, qty FROM items"));
    assertThat(rows(pg, "SELECT id, kind, weight FROM events")).hasSize(79)
        .isEqualTo(rows(db, "SELECT id, kind, weight FROM events"));
    assertThat(rows(pg, "SELECT id, name, balance, doc::text, array_to_string(tags, '|'), md5(photo), "
        + "to_char(seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM customers")).hasSize(30)
        .isEqualTo(rows(db, "SELECT " + kept + ", name, balance, doc, tags, photo, seen FROM customers"));
    assertThat(rows(pg, "SELECT o.id, o.customer_id, o.amount FROM orders o")).hasSize(59)
        .isEqualTo(rows(db, "SELECT o.id, c." + kept + ", o.amount FROM orders o JOIN customers c "
            + "ON c.id = o.customer_id"));
    assertThat(pg.queryValue("SELECT doc::text FROM customers WHERE id = 1000001"))
        .isEqualTo("{\"deep\": {\"k\": [1, 2]}}");
    assertThat(pg.queryValue("SELECT tags::text FROM customers WHERE id = 1000001"))
        .isEqualTo("{a,\"q\\\"uote\",\"back\\\\slash\"}");
    assertThat(pg.queryValue("SELECT balance::text FROM customers WHERE id = 1")).isEqualTo("99.25");
    assertThat(pgLong(pg, "SELECT amount FROM orders WHERE id = 10")).isEqualTo(110);
    assertThat(pgLong(pg, "SELECT count(*) FROM customers WHERE id = 3")).isZero();
    assertThat(pgLong(pg, "SELECT count(*) FROM events WHERE id IN (5, 6)")).isZero();
    assertThat(pgLong(pg, "SELECT count(*) FROM events WHERE id = 5000")).isEqualTo(1);
    assertThat(pgLong(pg, "SELECT last_value FROM items_id_seq")).isEqualTo(pgLong(pg, "SELECT max(id) FROM items"))
        .isGreaterThan(1_000_000L);
  }

  /** Every row, its first column the key, each value in one canonical text (numbers without trailing zeros). */
  private static Map<String, List<String>> rows(PgTestDatabase pg, String sql) throws Exception {
    Map<String, List<String>> rows = new TreeMap<>();
    try (Connection c = pg.connect(); var s = c.createStatement(); var rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 2; i <= n; i++) {
          Object v = rs.getObject(i);
          row.add(v == null ? null : v instanceof Number number ? canonical(number.toString()) : v.toString());
        }
        rows.put(rs.getString(1), row);
      }
    }
    return rows;
  }

  private static Map<String, List<String>> rows(DatabaseClient db, String sql) throws Exception {
    Map<String, List<String>> rows = new TreeMap<>();
    try (ResultSet rs = db.singleUse().executeQuery(Statement.of(sql))) {
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i < rs.getColumnCount(); i++) {
          row.add(rs.isNull(i) ? null : text(rs.getValue(i)));
        }
        rows.put(text(rs.getValue(0)), row);
      }
    }
    return rows;
  }

  private static String text(Value v) throws Exception {
    Type.Code code = v.getType().getCode();
    return switch (code) {
      case INT64 -> Long.toString(v.getInt64());
      case FLOAT64 -> canonical(Double.toString(v.getFloat64()));
      case PG_NUMERIC -> canonical(v.getString());
      case PG_JSONB -> v.getPgJsonb();
      case BYTES -> HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(v.getBytes().toByteArray()));
      case ARRAY -> String.join("|", v.getStringArray());
      case TIMESTAMP -> v.getTimestamp().toString();
      default -> v.getString();
    };
  }

  private static String canonical(String number) {
    return new BigDecimal(number).stripTrailingZeros().toPlainString();
  }
}
