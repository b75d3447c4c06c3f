package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4, the uuid strategy on an integer key, end to end: {@code plan --key-strategy customers=uuid}, a real
 * migrate onto the emulator (the foreign-key phase would fail if any reference were remapped differently from its
 * key), every migrated UUID checked against PostgreSQL's own {@code uuid_generate_v5}, and new rows inserted through
 * the generated schema's default without colliding with migrated ones.
 */
@WithPostgres
@WithSpannerEmulator
class UuidKeyIT {

  /** The database is shared by this class's tests. */
  @BeforeAll
  static void loadTheFixture(PgTestDatabase pg) throws Exception {
    pg.execute(Fixtures.resource("fixtures/uuid-key.sql"));
  }

  @Test
  void integerKeyBecomesUuidsConsistentlyAcrossEveryReferenceAndNewRowsDoNotCollide(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
    CliRunner cli = CliRunner.withEnv(Map.of());
    CliRunner.Result planned = PlanCommandIT.plan(pg, out, "--key-strategy", "customers=uuid");
    assertThat(planned.exitCode()).as(planned.out() + planned.err()).isZero();
    Plan plan = PlanFiles.read(out.resolve("plan.yaml"));
    TablePlan customers = plan.tableBySource("public.customers").orElseThrow();
    assertThat(customers.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.UUID);
    String namespace = customers.column("id").orElseThrow().uuidNamespace();
    assertThat(namespace).isNotNull();
    for (String t : List.of("orders", "order_lines", "line_notes")) {
      ColumnPlan c = plan.tableBySource("public." + t).orElseThrow().column("id").orElseThrow();
      assertThat(c.conversion()).as(t).isEqualTo(ValueConversion.KEY_UUID);
      assertThat(c.uuidNamespace()).as(t).isEqualTo(namespace);
    }
    assertThat(plan.tableBySource("public.payments").orElseThrow().column("customer_id").orElseThrow()
        .uuidNamespace()).isEqualTo(namespace);
    assertThat(plan.sequences()).isEmpty();

    CliRunner.Result migrated = cli.run("migrate", "--plan", out.resolve("plan.yaml").toString(), "--source",
        pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost(), "--progress-interval", "30");
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
    assertThat(migrated.out()).contains("all match");

    // Every key and every reference equals PostgreSQL's own v5 UUID of the old id in the plan's namespace.
    pg.execute("CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\"");
    Map<Long, String> expected = new HashMap<>();
    Map<String, String> expectedPayments = new HashMap<>();
    try (Connection c = pg.connect(); var s = c.createStatement()) {
      try (var rs = s.executeQuery("SELECT id, uuid_generate_v5('" + namespace + "'::uuid, id::text)::text FROM "
          + "customers")) {
        while (rs.next()) {
          expected.put(rs.getLong(1), rs.getString(2));
        }
      }
      try (var rs = s.executeQuery("SELECT id::text, uuid_generate_v5('" + namespace + "'::uuid, "
          + "customer_id::text)::text FROM payments")) {
        while (rs.next()) {
          expectedPayments.put(rs.getString(1), rs.getString(2));
        }
      }
    }
    Map<Long, String> actual = new HashMap<>();
    try (ResultSet rs = query(spanner, "SELECT legacy_id, id FROM customers")) {
      while (rs.next()) {
        actual.put(rs.getLong(0), rs.getString(1));
      }
    }
    assertThat(actual).hasSize(3000 - 30).isEqualTo(expected);
    Map<String, String> actualPayments = new HashMap<>();
    try (ResultSet rs = query(spanner, "SELECT id, customer_id FROM payments")) {
      while (rs.next()) {
        actualPayments.put(rs.getString(0), rs.isNull(1) ? null : rs.getString(1));
      }
    }
    assertThat(actualPayments).isEqualTo(expectedPayments);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM customers c JOIN customers r ON c.referrer_id = r.id "
        + "WHERE r.legacy_id = c.legacy_id - 1")).isEqualTo(
        pgLong(pg, "SELECT count(*) FROM customers WHERE referrer_id IS NOT NULL"));
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM line_notes n JOIN customers c ON n.id = c.id"))
        .isEqualTo(pgLong(pg, "SELECT count(*) FROM line_notes"));
    // Foreign keys exist (and were validated against the migrated rows when they were created).
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_type = "
        + "'FOREIGN KEY' AND table_name IN ('customers', 'payments')")).isEqualTo(2);

    // New rows: UUIDs from the schema's default, children referencing them; the old id is NULL and never collides.
    List<String> newIds = new ArrayList<>();
    spanner.client().readWriteTransaction().run(tx -> {
      for (int i = 0; i < 200; i++) {
        try (ResultSet rs = tx.executeQuery(Statement.newBuilder("INSERT INTO customers (name, referrer_id) VALUES "
            + "('new', @ref) THEN RETURN id").bind("ref").to(expected.get(1L)).build())) {
          rs.next();
          newIds.add(rs.getString(0));
        }
      }
      for (String id : newIds) {
        tx.executeUpdate(Statement.newBuilder("INSERT INTO orders (id, order_no, placed_at) VALUES (@id, 1, "
            + "CURRENT_TIMESTAMP())").bind("id").to(id).build());
      }
      return null;
    });
    assertThat(newIds).doesNotHaveDuplicates().allSatisfy(id -> assertThat(expected).doesNotContainValue(id));
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT id) FROM customers")).isEqualTo(3000 - 30 + 200);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM customers WHERE legacy_id IS NULL")).isEqualTo(200);
    // Lookups by an old id go through the kept column's unique index.
    String index = customers.indexes().stream().filter(x -> x.columns().get(0).column().equals("legacy_id"))
        .findFirst().orElseThrow().target();
    // (The hint only tells the emulator what Spanner itself works out: an equality on legacy_id excludes NULLs.)
    try (ResultSet rs = query(spanner, "@{spanner_emulator.disable_query_null_filtered_index_check=true} "
        + "SELECT id FROM customers@{FORCE_INDEX=" + index + "} WHERE legacy_id = 42")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(0)).isEqualTo(expected.get(42L));
    }
  }

  @Test
  void aKeyStrategyThatCannotApplyIsAUsageErrorNamingTheTable(PgTestDatabase pg, @TempDir Path out)
      throws Exception {
    CliRunner cli = CliRunner.withEnv(Map.of());
    CliRunner.Result child = cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--key-strategy",
        "public.orders=uuid");
    assertThat(child.exitCode()).isEqualTo(2);
    assertThat(child.err()).contains("--key-strategy public.orders=uuid").contains("interleaved in customers")
        .contains("root of the hierarchy");
    assertThat(out.resolve("plan.yaml")).doesNotExist();
    CliRunner.Result kind = cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--key-strategy",
        "customers=shard");
    assertThat(kind.exitCode()).isEqualTo(2);
    assertThat(kind.err()).contains("unknown key strategy 'shard'").contains("hash-shard");
    CliRunner.Result twice = cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--key-strategy",
        "customers=uuid", "--key-strategy", "public.customers=hash-shard");
    assertThat(twice.exitCode()).isEqualTo(2);
    assertThat(twice.err()).contains("names public.customers twice");
  }

  private static ResultSet query(SpannerTestDatabase spanner, String sql) {
    return spanner.client().singleUse().executeQuery(Statement.of(sql));
  }
}
