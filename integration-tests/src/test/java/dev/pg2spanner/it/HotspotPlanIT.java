package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4 end to end: evidence-based detection on a fixture that covers every rule and every must-not-flag case, the
 * strategies chosen, the interleave decisions with their reasons, and — on the emulator — the generated schema
 * accepting migrated rows and then new rows from its own sequence / shard / UUID defaults without collision.
 */
@WithPostgres
@WithSpannerEmulator
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HotspotPlanIT {

  @TempDir
  static Path out;
  private static Plan plan;

  @BeforeAll
  static void planTheFixture(PgTestDatabase pg) throws Exception {
    pg.execute(Fixtures.resource("fixtures/hotspots.sql"));
    CliRunner.Result r = PlanCommandIT.plan(pg, out);
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    plan = PlanFiles.read(out.resolve("plan.yaml"));
  }

  private static TablePlan table(String name) {
    return plan.tableBySource("public." + name).orElseThrow(() -> new AssertionError("no table " + name));
  }

  private static Set<String> flagged(FindingCode code) {
    return plan.tables().stream().flatMap(t -> t.findings().stream())
        .filter(f -> f.code() == code)
        .map(f -> f.table().substring("public.".length()) + (f.index() == null ? "" : "." + f.index()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static KeyStrategy.Kind kind(String table) {
    return table(table).keyStrategy().kind();
  }

  @Test
  @Order(1)
  void exactlyTheMonotonicKeysAreFlagged() {
    assertThat(flagged(FindingCode.HOTSPOT_KEY)).containsExactly(
        "countdown", "credit_notes", "customers", "daily_totals", "events", "identity_always",
        "identity_default", "invoices", "readings", "serial_orders", "uuid7_sessions");
    // Rising values with nothing generating them, on a database whose statistics are minutes old: observed, kept.
    assertThat(flagged(FindingCode.ORDERED_KEY_KEPT)).containsExactly("app_ids", "ulid_keys");
    assertThat(flagged(FindingCode.MONOTONIC_INDEX)).containsExactly("customers.customers_created_idx");
    // Never scanned since the statistics began: proposed for pruning, still migrated.
    assertThat(flagged(FindingCode.UNUSED_INDEX)).contains("customers.customers_email_idx");
    assertThat(table("customers").indexes()).anyMatch(i -> "customers_email_idx".equals(i.source()));
  }

  @Test
  @Order(2)
  void eachFindingCarriesItsEvidence() {
    Finding shared = table("invoices").findings().stream().filter(f -> f.code() == FindingCode.HOTSPOT_KEY)
        .findFirst().orElseThrow();
    assertThat(shared.evidence()).containsEntry("sequence", "public.shared_doc_seq").containsEntry("ownedBy", "nobody");
    assertThat(shared.message()).contains("shared by 2 columns").contains("bit_reversed_positive")
        .contains("write skew");
    Finding uuid = table("uuid7_sessions").findings().stream().filter(f -> f.code() == FindingCode.HOTSPOT_KEY)
        .findFirst().orElseThrow();
    assertThat(uuid.evidence().get("sampledVersions").toString()).contains("v7=");
    Finding rising = table("app_ids").findings().stream().filter(f -> f.code() == FindingCode.ORDERED_KEY_KEPT)
        .findFirst().orElseThrow();
    assertThat(rising.evidence()).containsEntry("cause", "CORRELATED_VALUES").containsKey("correlation")
        .containsEntry("optIn", "hash-shard");
    assertThat(rising.message()).contains("--key-strategy public.app_ids=hash-shard")
        .contains("too short a window to judge");
    Finding countdown = table("countdown").findings().stream().filter(f -> f.code() == FindingCode.HOTSPOT_KEY)
        .findFirst().orElseThrow();
    assertThat(countdown.evidence()).containsEntry("increment", -1);
  }

  @Test
  @Order(3)
  void strategiesFollowThePolicy() {
    for (String t : List.of("serial_orders", "identity_always", "identity_default", "invoices", "credit_notes",
        "countdown", "customers")) {
      assertThat(kind(t)).as(t).isEqualTo(KeyStrategy.Kind.BIT_REVERSED);
    }
    for (String t : List.of("events", "daily_totals")) {
      assertThat(kind(t)).as(t).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    }
    assertThat(kind("readings")).isEqualTo(KeyStrategy.Kind.SWAP);
    assertThat(table("readings").primaryKey()).containsExactly(KeyPart.asc("device_id"),
        new KeyPart("taken_at", true));
    assertThat(kind("uuid7_sessions")).isEqualTo(KeyStrategy.Kind.UUID);
    for (String t : List.of("external_ids", "random_sessions", "countries", "tenant_orders", "app_ids",
        "ulid_keys")) {
      assertThat(kind(t)).as(t).isEqualTo(KeyStrategy.Kind.KEEP);
    }
    List<SequencePlan> shared = plan.sequences().stream().filter(s -> s.source().equals("public.shared_doc_seq"))
        .toList();
    assertThat(shared).hasSize(1);
    assertThat(shared.get(0).usedBy()).containsExactly("credit_notes.id", "invoices.id");
  }

  @Test
  @Order(4)
  void interleavingDecisionsCarryTheirReasons() {
    assertThat(table("orders").interleave().parent()).isEqualTo("customers");
    assertThat(table("order_lines").interleave().parent()).isEqualTo("orders");
    assertThat(table("line_notes").interleave().parent()).isEqualTo("order_lines");
    assertThat(table("orders").column("id").orElseThrow().source()).isEqualTo("customer_id");
    for (String t : List.of("order_tags", "customer_flags", "shared_profiles")) {
      assertThat(table(t).interleave()).as(t).isNull();
    }
    assertThat(reason("order_tags")).contains("reordering the child's key");
    assertThat(reason("customer_flags")).contains("SET NULL");
    assertThat(reason("shared_profiles")).contains("could be interleaved in any of");
    assertThat(flagged(FindingCode.INTERLEAVE_CANDIDATE)).contains("orders.orders_customer_id_fkey",
        "order_lines.order_lines_customer_id_order_no_fkey", "line_notes.line_notes_customer_id_order_no_line_no_fkey");
  }

  private static String reason(String table) {
    return table(table).findings().stream().filter(f -> f.code() == FindingCode.NOT_INTERLEAVED)
        .map(Finding::message).collect(Collectors.joining(" | "));
  }

  @Test
  @Order(5)
  void generatedSchemaTakesMigratedRowsThenNewRowsWithoutCollision(PgTestDatabase pg, SpannerTestDatabase spanner)
      throws Exception {
    SpannerTarget target = SpannerTarget.parse(spanner.path(), spanner.emulatorHost());
    FlywayMigrator flyway = new FlywayMigrator(target, out.resolve("migrations"));
    assertThat(flyway.migrateTo(4)).containsExactly(1, 2, 3, 4);

    // Migrated rows: the source's own key values.
    List<Mutation> rows = new ArrayList<>();
    try (Connection c = pg.connect(); var s = c.createStatement()) {
      try (var rs = s.executeQuery("SELECT id, note FROM serial_orders")) {
        while (rs.next()) {
          rows.add(Mutation.newInsertBuilder("serial_orders").set("id").to(rs.getLong("id"))
              .set("note").to(rs.getString("note")).build());
        }
      }
      for (String t : List.of("invoices", "credit_notes")) {
        try (var rs = s.executeQuery("SELECT id, total::text AS total FROM " + t)) {
          while (rs.next()) {
            rows.add(Mutation.newInsertBuilder(t).set("id").to(rs.getLong("id"))
                .set("total").to(new java.math.BigDecimal(rs.getString("total"))).build());
          }
        }
      }
      try (var rs = s.executeQuery("SELECT (extract(epoch FROM occurred_at) * 1000000)::bigint AS us, source "
          + "FROM events")) {
        while (rs.next()) {
          rows.add(Mutation.newInsertBuilder("events").set("occurred_at").to(Timestamp.ofTimeMicroseconds(
              rs.getLong("us"))).set("source").to(rs.getString("source")).build());
        }
      }
      try (var rs = s.executeQuery("SELECT (extract(epoch FROM taken_at) * 1000000)::bigint AS us, device_id, value "
          + "FROM readings")) {
        while (rs.next()) {
          rows.add(Mutation.newInsertBuilder("readings").set("taken_at").to(Timestamp.ofTimeMicroseconds(
              rs.getLong("us"))).set("device_id").to(rs.getLong("device_id")).set("value").to(rs.getDouble("value"))
              .build());
        }
      }
      try (var rs = s.executeQuery("SELECT id::text AS id FROM uuid7_sessions")) {
        while (rs.next()) {
          rows.add(Mutation.newInsertBuilder("uuid7_sessions").set("id").to(rs.getString("id")).build());
        }
      }
    }
    for (int i = 0; i < rows.size(); i += 1000) {
      spanner.client().writeAtLeastOnce(rows.subList(i, Math.min(rows.size(), i + 1000)));
    }

    // New rows: keys from the generated schema's defaults.
    spanner.client().readWriteTransaction().run(tx -> {
      for (int i = 0; i < 200; i++) {
        tx.executeUpdate(Statement.of("INSERT INTO serial_orders (note) VALUES ('new')"));
        tx.executeUpdate(Statement.of("INSERT INTO invoices (total) VALUES (1)"));
        tx.executeUpdate(Statement.of("INSERT INTO credit_notes (total) VALUES (2)"));
        tx.executeUpdate(Statement.of("INSERT INTO uuid7_sessions (started_at) VALUES (CURRENT_TIMESTAMP())"));
      }
      tx.executeUpdate(Statement.of("INSERT INTO events (occurred_at, source) VALUES (CURRENT_TIMESTAMP(), 'api')"));
      // The swapped key (device_id, taken_at DESC): new readings of every device, at one instant.
      tx.executeUpdate(Statement.of("INSERT INTO readings (device_id, taken_at, value) SELECT DISTINCT device_id, "
          + "CURRENT_TIMESTAMP(), 0 FROM readings"));
      return null;
    });

    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM serial_orders")).isEqualTo(2000 + 200);
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT id) FROM serial_orders")).isEqualTo(2000 + 200);
    long skipMax = plan.sequences().stream().filter(s -> s.usedBy().contains("serial_orders.id")).findFirst()
        .orElseThrow().skipRangeMax();
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM serial_orders WHERE note = 'new' AND id BETWEEN 1 AND "
        + skipMax))
        .isZero();
    // One shared sequence: ids never collide across the two tables that share it.
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM (SELECT id FROM invoices UNION DISTINCT SELECT id FROM "
        + "credit_notes)")).isEqualTo(1500 + 300 + 400);
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT id) FROM uuid7_sessions")).isEqualTo(1000 + 200);
    long readings = pgLong(pg, "SELECT count(*) FROM readings");
    long devices = pgLong(pg, "SELECT count(DISTINCT device_id) FROM readings");
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM readings")).isEqualTo(readings + devices);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM events WHERE shard_id < 0 OR shard_id >= 12")).isZero();
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT shard_id) FROM events")).isGreaterThan(6);
  }
}
