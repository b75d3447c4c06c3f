package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Statement;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
 * Issue 36 end to end: a database holding each shape of key an application makes with its time in it (Snowflake ids,
 * ULIDs, KSUIDs, date-prefixed invoice numbers) and a composite key led by a handful of tenants, written row by row in
 * many transactions as an application writes them, beside each shape's natural-key twin (dense external ids, a
 * restored copy, ids copied from before the table existed, random tokens and natural codes loaded in sorted order,
 * many tenants, a few regions before a natural code). The real {@code plan} command must flag exactly the shapes,
 * with the decoded times as evidence, and keep every twin; the plan then migrates, and new rows take their ids from
 * the planned defaults.
 */
@WithPostgres
@WithSpannerEmulator
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KeyEvidencePlanIT {

  @TempDir
  static Path out;
  private static Plan plan;

  @BeforeAll
  static void planTheFixture(PgTestDatabase pg) throws Exception {
    pg.execute(Fixtures.resource("fixtures/key-evidence.sql"));
    // On its own: the procedure commits after every few rows, as an application does.
    pg.execute("CALL key_evidence_fill()");
    pg.execute("ANALYZE");
    CliRunner.Result r = PlanCommandIT.plan(pg, out.resolve("plan"));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    plan = PlanFiles.read(out.resolve("plan").resolve("plan.yaml"));
  }

  private static TablePlan table(String name) {
    return plan.tableBySource("public." + name).orElseThrow(() -> new AssertionError("no table " + name));
  }

  private static Set<String> flagged(FindingCode code) {
    return plan.tables().stream().flatMap(t -> t.findings().stream()).filter(f -> f.code() == code)
        .map(f -> f.table().substring("public.".length())).collect(Collectors.toCollection(TreeSet::new));
  }

  private static Finding hotspot(String table) {
    return table(table).findings().stream().filter(f -> f.code() == FindingCode.HOTSPOT_KEY).findFirst()
        .orElseThrow(() -> new AssertionError("no HOTSPOT_KEY on " + table));
  }

  @Test
  @Order(1)
  void exactlyTheShapesAreFlaggedAndEveryTwinIsKept() {
    assertThat(flagged(FindingCode.HOTSPOT_KEY)).containsExactly("dated_invoices", "ksuid_events", "tenant_orders",
        "tweets", "ulid_orders");
    for (String twin : List.of("catalogue_items", "restored_tweets", "imported_orders", "api_tokens", "skus",
        "customers_by_email", "spread_tenant_orders", "regional_products")) {
      assertThat(table(twin).keyStrategy().kind()).as(twin).isEqualTo(KeyStrategy.Kind.KEEP);
    }
    // The twins whose values are stored in order are reported as kept on order alone, as before issue 36.
    assertThat(flagged(FindingCode.ORDERED_KEY_KEPT)).containsExactly("api_tokens", "catalogue_items",
        "customers_by_email", "imported_orders", "restored_tweets", "skus");
  }

  @Test
  @Order(2)
  void eachShapeGetsTheStrategyThatFitsWhoMakesItsIds() {
    // 64-bit ids the application makes: a bit-reversed sequence of its own, with no PostgreSQL source.
    assertThat(table("tweets").keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.BIT_REVERSED);
    SequencePlan sequence = plan.sequences().stream().filter(s -> s.usedBy().contains("tweets.id")).findFirst()
        .orElseThrow();
    assertThat(sequence.source()).isNull();
    assertThat(table("tweets").column("id").orElseThrow().defaultExpression())
        .isEqualTo("GET_NEXT_SEQUENCE_VALUE(SEQUENCE " + sequence.target() + ")");
    assertThat(hotspot("tweets").message()).contains("The application makes these ids itself and must change how");
    // Text ids and numbers people read: a shard column, nothing changes on insert.
    for (String t : List.of("ulid_orders", "ksuid_events", "dated_invoices", "tenant_orders")) {
      assertThat(table(t).keyStrategy().kind()).as(t).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    }
    assertThat(table("tenant_orders").primaryKey()).extracting(KeyPart::column)
        .containsExactly("shard_id", "tenant_id", "id");
  }

  @Test
  @Order(3)
  void theEvidenceIsTheDecodedTimesAndTheHotRanges() {
    Map<String, String> layouts = Map.of("tweets", "Snowflake layout, epoch 2010-11-04",
        "ulid_orders", "ULID (Unix milliseconds in Crockford base32)",
        "ksuid_events", "KSUID (seconds since 2014-05-13 in base62)",
        "dated_invoices", "a YYYYMMDD date prefix");
    layouts.forEach((table, layout) -> {
      Finding f = hotspot(table);
      assertThat(f.evidence()).as(table).containsEntry("cause", "TIME_ENCODED_ID").containsEntry("layout", layout)
          .containsKeys("decodedFrom", "decodedTo", "newestKeysTransactions", "writeSkew");
      assertThat(f.message()).as(table).containsPattern("encode times from \\d{4}-\\d\\d-\\d\\d.* to \\d{4}-\\d\\d-\\d\\d"
          + ".* in insertion order \\(" + java.util.regex.Pattern.quote(layout) + "\\)");
    });
    Finding tenants = hotspot("tenant_orders");
    assertThat(tenants.evidence()).containsEntry("cause", "SEQUENCE").containsEntry("leadingColumns", "tenant_id")
        .containsEntry("leadingValues", 4);
    assertThat(tenants.message()).contains("every insert goes to the end of one of 4 key ranges, one per value of "
        + "tenant_id").contains("where every insert lands at the end of one of 4 key ranges");
    @SuppressWarnings("unchecked")
    Map<String, Object> skew = (Map<String, Object>) tenants.evidence().get("writeSkew");
    assertThat(skew).containsEntry("hotRanges", 4);
  }

  @Test
  @Order(4)
  void theReportsSayWhatTheApplicationMustChange() throws Exception {
    String md = Files.readString(out.resolve("plan").resolve("report.md"));
    assertThat(md).contains("The application makes these ids itself and must change how");
    assertThat(md).contains("Inserts do not change (Spanner computes shard_id)");
  }

  @Test
  @Order(5)
  void thePlanMigratesAndNewRowsTakeIdsFromThePlannedDefaults(PgTestDatabase pg, SpannerTestDatabase spanner) {
    CliRunner.Result r = MigrateSupport.cli(migrateArgs(out.resolve("plan").resolve("plan.yaml"), pg, spanner.path(),
        spanner.emulatorHost(), out.resolve("run")));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).containsPattern("(?m)^tweets +\\| +1,200 \\| +1,200 \\| equal")
        .containsPattern("(?m)^tenant_orders +\\| +1,200 \\| +1,200 \\| equal");

    long skipMax = plan.sequences().stream().filter(s -> s.usedBy().contains("tweets.id")).findFirst().orElseThrow()
        .skipRangeMax();
    spanner.client().readWriteTransaction().run(tx -> {
      for (int i = 0; i < 100; i++) {
        tx.executeUpdate(Statement.of("INSERT INTO tweets (body) VALUES ('new')"));
        tx.executeUpdate(Statement.of("INSERT INTO ulid_orders (id, total) VALUES ('01NEW" + String.format("%021d", i)
            + "', NUMERIC '1')"));
      }
      return null;
    });
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT id) FROM tweets")).isEqualTo(1200 + 100);
    // New ids come from the bit-reversed sequence, whose skip range covers every migrated id.
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM tweets WHERE body = 'new' AND id BETWEEN 1 AND " + skipMax))
        .isZero();
    assertThat(spannerLong(spanner, "SELECT COUNT(DISTINCT shard_id) FROM ulid_orders")).isGreaterThan(6);
  }
}
