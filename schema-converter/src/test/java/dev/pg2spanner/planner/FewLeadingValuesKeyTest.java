package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.TIMESTAMPTZ;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.sequence;
import static dev.pg2spanner.fixtures.PgFixtures.serial;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static dev.pg2spanner.fixtures.PgFixtures.withStats;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgColumnStats;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.fixtures.WrittenKeys;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.hotspot.KeyTail;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Composite keys whose leading columns take few values before a column that grows: {@code (tenant_id, id bigserial)}
 * with a handful of tenants sends every insert to the end of one of a handful of key ranges. Each shape, generated as
 * an application writes it, and its twin: the same key with many leading values, or with nothing growing after them.
 */
class FewLeadingValuesKeyTest {

  private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
  /** 3 nodes: writes spread over 30 key ranges. */
  private static final int NODES = 3;

  private static Plan plan(PgTable t, KeySample sample, List<dev.pg2spanner.catalog.PgSequence> sequences,
      double lowWrite) {
    PlannerOptions options = new PlannerOptions(NODES, true, "pg2spanner test", "db:5432/app", List.of(), NOW,
        lowWrite);
    return new Planner(options).plan(new PlanInputs(catalog(List.of(t), sequences), Map.of(),
        Map.of("public." + t.name(), sample), Map.of()));
  }

  private static Plan plan(PgTable t, KeySample sample, List<dev.pg2spanner.catalog.PgSequence> sequences) {
    return plan(t, sample, sequences, 0);
  }

  private static PgColumn withDistinct(PgColumn c, double distinct) {
    return new PgColumn(c.name(), c.position(), c.type(), c.notNull(), c.defaultExpression(), c.identity(),
        c.generatedExpression(), c.sequence(), c.collation(), c.comment(), new PgColumnStats(0, distinct, 0.1, 8));
  }

  /** {@code rows} rows, each for a random one of the {@code leading} values, the second column from {@code later}. */
  private static List<List<Object>> rows(int rows, List<Object> leading, java.util.function.IntFunction<Object> later) {
    java.util.Random random = new java.util.Random(5);
    List<List<Object>> out = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      out.add(List.of(leading.get(random.nextInt(leading.size())), later.apply(i)));
    }
    return out;
  }

  private static List<Object> tenants(int n) {
    List<Object> out = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      out.add(1000 + i * 17);
    }
    return out;
  }

  private static PgTable tenantTable(PgColumn tenant) {
    return table("tenant_orders", 2, List.of(tenant, serial("id", "public", "tenant_orders_id_seq"),
        column("total", BIGINT)), List.of(), List.of());
  }

  private static final List<dev.pg2spanner.catalog.PgSequence> SEQ = List.of(sequence("public",
      "tenant_orders_id_seq", 1, 2000L, "public.tenant_orders.id"));

  private static KeySample sample(String table, List<String> columns, List<List<Object>> rows) {
    return new KeySample("public." + table, columns, rows, true);
  }

  private static Finding hotspot(TablePlan t) {
    return t.findings().stream().filter(f -> f.code() == FindingCode.HOTSPOT_KEY).findFirst()
        .orElseThrow(() -> new AssertionError("no HOTSPOT_KEY on " + t.source() + ": " + t.findings()));
  }

  private static boolean flagged(TablePlan t) {
    return t.findings().stream().anyMatch(f -> f.code() == FindingCode.HOTSPOT_KEY);
  }

  @Test
  void aHandfulOfTenantsBeforeASequenceIsAHotspotWithThatManyHotRanges() {
    Plan p = plan(tenantTable(withDistinct(column("tenant_id", BIGINT), 4)), sample("tenant_orders",
        List.of("tenant_id", "id"), rows(2000, tenants(4), i -> (long) i + 1)), SEQ);
    TablePlan t = p.tableBySource("public.tenant_orders").orElseThrow();
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(t.keyStrategy().shardSource()).containsExactly("tenant_id", "id");
    assertThat(t.keyStrategy().reason()).contains("tenant_id takes about 4 values before id");
    Finding f = hotspot(t);
    assertThat(f.column()).isEqualTo("id");
    assertThat(f.message()).contains("The primary key of public.tenant_orders is (tenant_id, id): tenant_id takes "
        + "about 4 values (4 in 2,000 sampled rows; pg_stats n_distinct 4), fewer than the 30 key ranges that spread "
        + "writes over 3 nodes, and id after it grows with every insert.")
        .contains("every insert goes to the end of one of 4 key ranges, one per value of tenant_id")
        .contains("under the current key, where every insert lands at the end of one of 4 key ranges, one per value "
            + "of tenant_id,");
    assertThat(f.evidence()).containsEntry("cause", "SEQUENCE").containsEntry("leadingValues", 4L)
        .containsEntry("leadingColumns", "tenant_id");
    @SuppressWarnings("unchecked")
    Map<String, Object> skew = (Map<String, Object>) f.evidence().get("writeSkew");
    assertThat(skew).containsEntry("hotRanges", 4L);
    // Four tenants share the inserts: a quarter land on each tenant's last range; sharded, far fewer.
    assertThat((double) skew.get("sourceKey")).isBetween(0.2, 0.3);
    assertThat((double) skew.get("plannedKey")).isLessThan(0.15);
  }

  @Test
  void manyTenantsBeforeASequenceSpreadTheWritesAndTheKeyIsKept() {
    Plan p = plan(tenantTable(withDistinct(column("tenant_id", BIGINT), 500)), sample("tenant_orders",
        List.of("tenant_id", "id"), rows(2000, tenants(500), i -> (long) i + 1)), SEQ);
    TablePlan t = p.tableBySource("public.tenant_orders").orElseThrow();
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(flagged(t)).isFalse();
    // The sample alone shows 29 tenants, but pg_stats counts 40: the larger estimate wins, and 40 ≥ 30 keeps it.
    Plan stats = plan(tenantTable(withDistinct(column("tenant_id", BIGINT), 40)), sample("tenant_orders",
        List.of("tenant_id", "id"), rows(2000, tenants(29), i -> (long) i + 1)), SEQ);
    assertThat(stats.tableBySource("public.tenant_orders").orElseThrow().keyStrategy().kind())
        .isEqualTo(KeyStrategy.Kind.KEEP);
  }

  @Test
  void aFewRegionsBeforeANaturalKeyAreNotAHotspot() {
    PgTable products = table("products", 2, List.of(column("region", TEXT), column("sku", TEXT)), List.of(),
        List.of());
    List<List<Object>> rows = rows(2000, List.of("eu", "us", "ap"), i -> String.format("SKU-%06d", (i * 7919) % 99991));
    Plan p = plan(products, sample("products", List.of("region", "sku"), rows), List.of());
    TablePlan t = p.tableBySource("public.products").orElseThrow();
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(flagged(t)).isFalse();
  }

  @Test
  void aFewRegionsBeforeATimestampAreAHotspotUnlessTheTableIsWrittenRarely() {
    PgTable events = table("region_events", 2, List.of(column("region", TEXT), column("at", TIMESTAMPTZ)), List.of(),
        List.of());
    KeySample sample = sample("region_events", List.of("region", "at"),
        rows(2000, List.of("eu", "us", "ap"), i -> 1_790_000_000.0 + i));
    TablePlan t = plan(events, sample, List.of()).tableBySource("public.region_events").orElseThrow();
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(hotspot(t).message()).contains("one of 3 key ranges, one per value of region");

    // 0.1 inserts/s over two days, below the 1 insert/s threshold: the hotspot is accepted.
    PgTableStats rare = new PgTableStats(2000.0, 10, 1, 1, 17280L, 0L, 0L, NOW.minus(Duration.ofDays(2)), null);
    TablePlan kept = plan(withStats(events, rare), sample, List.of(), 1.0).tableBySource("public.region_events")
        .orElseThrow();
    assertThat(kept.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(hotspot(kept).severity()).isEqualTo(dev.pg2spanner.finding.Severity.INFO);
  }

  @Test
  void aFewTenantsBeforeIdsTheApplicationMakesAreAHotspotProvenInKeyOrder() {
    WrittenKeys made = WrittenKeys.written(2000, NOW.minus(Duration.ofDays(30)), NOW.minus(Duration.ofHours(1)),
        WrittenKeys.snowflake(WrittenKeys.TWITTER_EPOCH, 22, 1), 0);
    List<Object> tenants = tenants(3);
    List<List<Object>> rows = new ArrayList<>();
    List<Long> ages = new ArrayList<>();
    for (int i = 0; i < made.keys().size(); i++) {
      rows.add(List.of(tenants.get(i % 3), made.keys().get(i)));
      ages.add(made.transactionAges().get(i));
    }
    // The primary key's end in key order: the last tenant's newest ids first, then the next tenant's.
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.<Integer, Long>comparing(i -> (Long) rows.get(i).get(0))
        .thenComparing(i -> (Long) rows.get(i).get(1)).reversed());
    List<List<Object>> tailRows = new ArrayList<>();
    List<Long> tailAges = new ArrayList<>();
    for (int i : order.subList(0, 1000)) {
      tailRows.add(rows.get(i));
      tailAges.add(ages.get(i));
    }
    KeySample sample = new KeySample("public.posts", List.of("tenant_id", "id"), rows, true,
        List.of(new KeyTail(List.of("tenant_id", "id"), tailRows, tailAges, NOW)));
    PgColumn id = new PgColumn("id", 2, BIGINT, true, null, PgColumn.Identity.NONE, null, null, null, null,
        new PgColumnStats(0, -1, 0.99, 8));
    PgTable posts = table("posts", 2, List.of(column("tenant_id", BIGINT), id), List.of(), List.of());
    TablePlan t = plan(posts, sample, List.of()).tableBySource("public.posts").orElseThrow();
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    Finding f = hotspot(t);
    assertThat(f.evidence()).containsEntry("cause", "TIME_ENCODED_ID").containsEntry("leadingValues", 3L);
    assertThat(f.message()).contains("Snowflake layout, epoch 2010-11-04");
    assertThat(Optional.ofNullable(f.column())).contains("id");
  }
}
