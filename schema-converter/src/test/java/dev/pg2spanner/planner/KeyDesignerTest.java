package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.INTEGER;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.TIMESTAMPTZ;
import static dev.pg2spanner.fixtures.PgFixtures.UUID;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.fk;
import static dev.pg2spanner.fixtures.PgFixtures.index;
import static dev.pg2spanner.fixtures.PgFixtures.nullable;
import static dev.pg2spanner.fixtures.PgFixtures.sequence;
import static dev.pg2spanner.fixtures.PgFixtures.serial;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static dev.pg2spanner.fixtures.PgFixtures.withCorrelation;
import static dev.pg2spanner.fixtures.PgFixtures.withStats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyDesignerTest {

  private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");

  private static Plan plan(PgCatalog catalog, Map<String, KeySample> samples, Map<String, PlanInputs.KeyRange> ranges,
      double lowWrite) {
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, lowWrite);
    return new Planner(options).plan(new PlanInputs(catalog, Map.of(), samples, ranges));
  }

  private static Plan plan(PgCatalog catalog, Map<String, KeySample> samples) {
    return plan(catalog, samples, Map.of(), 0);
  }

  private static TablePlan planned(Plan plan, String source) {
    return plan.tableBySource("public." + source).orElseThrow();
  }

  private static List<String> key(TablePlan t) {
    return t.primaryKey().stream().map(p -> p.column() + (p.descending() ? " DESC" : "")).toList();
  }

  private static List<FindingCode> codes(TablePlan t) {
    return t.findings().stream().map(Finding::code).toList();
  }

  private static KeySample sample(String table, List<String> columns, List<List<Object>> rows) {
    return new KeySample("public." + table, columns, rows, true);
  }

  private static List<List<Object>> risingText(int n) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(List.of(String.format("01J%07d", i)));
    }
    return rows;
  }

  /** Activity statistics: the given average insert rate over a window ending now. */
  private static PgTableStats stats(double insertsPerSecond, Duration window) {
    return new PgTableStats(1e6, 100, 1 << 20, 1 << 20, Math.round(insertsPerSecond * window.toSeconds()), 0L, 0L,
        NOW.minus(window), null);
  }

  /** A table keyed by text values stored in rising order (ULID-like), with nothing generating them. */
  private static Plan orderedKeyPlan(PgTableStats stats, double threshold) {
    PgTable devices = withStats(table("devices", 1, List.of(withCorrelation(column("id", TEXT), 0.999),
        nullable("seen_code", TEXT)), List.of(), List.of(index("devices_seen_idx", false, "seen_code"))), stats);
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      rows.add(List.of(String.format("01J%07d", i), String.format("SEEN%08d", i)));
    }
    PgTable withSeenCorrelated = new PgTable(devices.schema(), devices.name(), devices.kind(), List.of(
        devices.columns().get(0), withCorrelation(devices.columns().get(1), 0.999)), devices.primaryKey(),
        devices.uniqueConstraints(), devices.foreignKeys(), devices.checks(), devices.indexes(),
        devices.partitioning(), devices.inheritanceParents(), devices.hasInheritanceChildren(), devices.comment(),
        devices.stats());
    return plan(catalog(List.of(withSeenCorrelated), List.of()), Map.of("public.devices",
        sample("devices", List.of("id", "seen_code"), rows)), Map.of(), threshold);
  }

  private static Finding finding(TablePlan t, FindingCode code, String index) {
    return t.findings().stream().filter(f -> f.code() == code && java.util.Objects.equals(f.index(), index))
        .findFirst().orElseThrow(() -> new AssertionError("no " + code + " on " + t.source() + " " + index + ": "
            + codes(t)));
  }

  @Test
  void aKeyWhoseOnlyEvidenceIsOrderIsKeptWhileTheInsertRateIsUnknown() {
    // No activity statistics at all, then statistics over 2 hours that show a high rate: both too little to judge.
    for (PgTableStats unknown : List.of(PgTableStats.unknown(), stats(500.0, Duration.ofHours(2)))) {
      TablePlan t = planned(orderedKeyPlan(unknown, 1.0), "devices");
      assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
      assertThat(key(t)).containsExactly("id");
      assertThat(codes(t)).doesNotContain(FindingCode.HOTSPOT_KEY, FindingCode.MONOTONIC_INDEX);
      Finding kept = finding(t, FindingCode.ORDERED_KEY_KEPT, null);
      assertThat(kept.severity()).isEqualTo(dev.pg2spanner.finding.Severity.WARNING);
      assertThat(kept.message()).contains("--key-strategy public.devices=hash-shard")
          .contains("at 1 inserts/s or more").contains("24 hours");
      assertThat(kept.evidence()).containsEntry("cause", "TIME_PREFIXED_TEXT").containsKey("correlation")
          .containsEntry("optIn", "hash-shard");
      // The same bar for the index that leads with a column stored in order.
      Finding index = finding(t, FindingCode.ORDERED_KEY_KEPT, "devices_seen_idx");
      assertThat(index.severity()).isEqualTo(dev.pg2spanner.finding.Severity.WARNING);
      assertThat(t.indexes().get(0).columns()).extracting(KeyPart::column).containsExactly("seen_code");
      assertThat(t.columns()).noneMatch(c -> c.target().endsWith("_shard"));
    }
  }

  @Test
  void aKeyWhoseOnlyEvidenceIsOrderChangesOnlyOnATrustedRateAtOrAboveTheThreshold() {
    TablePlan busy = planned(orderedKeyPlan(stats(1.0, Duration.ofDays(2)), 1.0), "devices");
    assertThat(busy.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(finding(busy, FindingCode.HOTSPOT_KEY, null).severity())
        .isEqualTo(dev.pg2spanner.finding.Severity.WARNING);
    assertThat(finding(busy, FindingCode.MONOTONIC_INDEX, "devices_seen_idx").message()).contains("shard");
    assertThat(codes(busy)).doesNotContain(FindingCode.ORDERED_KEY_KEPT);

    TablePlan quiet = planned(orderedKeyPlan(stats(0.5, Duration.ofDays(2)), 1.0), "devices");
    assertThat(quiet.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(finding(quiet, FindingCode.ORDERED_KEY_KEPT, null).severity())
        .isEqualTo(dev.pg2spanner.finding.Severity.INFO);
    assertThat(finding(quiet, FindingCode.ORDERED_KEY_KEPT, "devices_seen_idx").severity())
        .isEqualTo(dev.pg2spanner.finding.Severity.INFO);
    assertThat(codes(quiet)).doesNotContain(FindingCode.HOTSPOT_KEY, FindingCode.LOW_WRITE_RATE);
  }

  @Test
  void aGeneratorChangesTheKeyWithoutAnyWriteRate() {
    PgTable orders = table("orders", 1, List.of(serial("id", "public", "orders_id_seq")), List.of(), List.of());
    TablePlan t = planned(plan(catalog(List.of(orders), List.of(sequence("public", "orders_id_seq", 1, 10L,
        "public.orders.id"))), Map.of(), Map.of(), 1.0), "orders");
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.BIT_REVERSED);
    assertThat(codes(t)).contains(FindingCode.HOTSPOT_KEY).doesNotContain(FindingCode.ORDERED_KEY_KEPT);
  }

  @Test
  void anOrderedKeyCanStillBeChangedOnRequest() {
    PgTable devices = withStats(table("devices", 1, List.of(withCorrelation(column("id", TEXT), 0.999)), List.of(),
        List.of()), PgTableStats.unknown());
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 1.0,
        Map.of("public.devices", KeyStrategy.Kind.HASH_SHARD));
    Plan plan = new Planner(options).plan(new PlanInputs(catalog(List.of(devices), List.of()), Map.of(),
        Map.of("public.devices", sample("devices", List.of("id"), risingText(500))), Map.of()));
    TablePlan t = planned(plan, "devices");
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(codes(t)).contains(FindingCode.KEY_STRATEGY_REQUESTED).doesNotContain(FindingCode.ORDERED_KEY_KEPT);
  }

  /** A busy 1,024-column table keyed by text stored in rising order: Spanner's column limit, reached. */
  private static Plan widePlan(Map<String, KeyStrategy.Kind> requested) {
    List<dev.pg2spanner.catalog.PgColumn> columns = new ArrayList<>();
    columns.add(withCorrelation(column("id", TEXT), 0.999));
    for (int i = 1; i < 1_024; i++) {
      columns.add(nullable("c" + i, INTEGER));
    }
    PgTable wide = withStats(table("wide", 1, columns, List.of(), List.of()), stats(10.0, Duration.ofDays(30)));
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 1.0,
        requested);
    return new Planner(options).plan(new PlanInputs(catalog(List.of(wide), List.of()), Map.of(),
        Map.of("public.wide", sample("wide", List.of("id"), risingText(500))), Map.of()));
  }

  @Test
  void aHashShardRequestOnATableAtTheColumnLimitSaysTheShardColumnCrossesIt() {
    assertThatThrownBy(() -> widePlan(Map.of("public.wide", KeyStrategy.Kind.HASH_SHARD)))
        .isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("--key-strategy public.wide=hash-shard")
        .hasMessageContaining("hash-shard adds a shard column to wide, which already has 1,024 columns")
        .hasMessageContaining("the shard column is what would cross the limit")
        .hasMessageNotContaining("bug");
    // Without the request the policy keeps the key, with the reason, rather than write a plan Spanner refuses.
    TablePlan kept = planned(widePlan(Map.of()), "wide");
    assertThat(kept.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(kept.keyStrategy().reason()).contains("1024 columns, Spanner's limit per table");
    assertThat(kept.columns()).hasSize(1_024);
  }

  /** customers ← orders ← order_lines ← line_notes, each keyed by its parent's key plus one column. */
  private static List<PgTable> hierarchy(PgTable root) {
    PgTable orders = table("orders", 2, List.of(column("customer_id", TEXT), column("order_no", INTEGER)),
        List.of(fk("orders_customer_fk", List.of("customer_id"), "customers", List.of("id"),
            PgForeignKey.Action.CASCADE)), List.of());
    PgTable lines = table("order_lines", 3, List.of(column("customer_id", TEXT), column("order_no", INTEGER),
        column("line_no", INTEGER)), List.of(fk("lines_order_fk", List.of("customer_id", "order_no"), "orders",
        List.of("customer_id", "order_no"), PgForeignKey.Action.CASCADE)), List.of(index("lines_by_order", false,
        "customer_id", "order_no", "line_no")));
    PgTable notes = table("line_notes", 4, List.of(column("customer_id", TEXT), column("order_no", INTEGER),
        column("line_no", INTEGER), column("note_no", INTEGER)), List.of(fk("notes_line_fk",
        List.of("customer_id", "order_no", "line_no"), "order_lines", List.of("customer_id", "order_no", "line_no"),
        PgForeignKey.Action.NO_ACTION)), List.of());
    PgTable invoices = table("invoices", 1, List.of(column("invoice_no", TEXT), nullable("customer_id", TEXT)),
        List.of(fk("invoices_customer_fk", List.of("customer_id"), "customers", List.of("id"),
            PgForeignKey.Action.NO_ACTION)), List.of());
    return List.of(root, orders, lines, notes, invoices);
  }

  @Test
  void hashShardReachesEveryLevelOfAFourLevelHierarchyAndEveryReferencingForeignKey() {
    // Order alone changes a key only on a table proven busy: 10 inserts/s over 30 days.
    PgTable customers = withStats(table("customers", 1, List.of(withCorrelation(column("id", TEXT), 0.999)), List.of(),
        List.of()), stats(10.0, Duration.ofDays(30)));
    Plan plan = plan(catalog(hierarchy(customers), List.of()), Map.of("public.customers",
        sample("customers", List.of("id"), risingText(500))));

    TablePlan root = planned(plan, "customers");
    assertThat(root.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(root.keyStrategy().shards()).isEqualTo(12);
    assertThat(key(root)).containsExactly("shard_id", "id");
    String expression = root.column("shard_id").orElseThrow().generatedExpression();
    assertThat(expression).isEqualTo("MOD(ABS(FARM_FINGERPRINT(id)), 12)");

    assertThat(key(planned(plan, "orders"))).containsExactly("shard_id", "id", "order_no");
    assertThat(key(planned(plan, "order_lines"))).containsExactly("shard_id", "id", "order_no", "line_no");
    assertThat(key(planned(plan, "line_notes"))).containsExactly("shard_id", "id", "order_no", "line_no", "note_no");
    for (String child : List.of("orders", "order_lines", "line_notes")) {
      TablePlan t = planned(plan, child);
      assertThat(t.column("shard_id").orElseThrow().generatedExpression()).isEqualTo(expression);
      assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
      assertThat(t.interleave()).isNotNull();
      // Interleaving renamed customer_id to the parent's key name.
      assertThat(t.column("id").orElseThrow().source()).isEqualTo("customer_id");
      assertThat(codes(t)).contains(FindingCode.INTERLEAVE_CANDIDATE);
    }
    assertThat(planned(plan, "orders").interleave().parent()).isEqualTo("customers");
    assertThat(planned(plan, "line_notes").interleave().parent()).isEqualTo("order_lines");
    assertThat(codes(planned(plan, "orders"))).doesNotContain(FindingCode.HOTSPOT_KEY);

    TablePlan invoices = planned(plan, "invoices");
    ForeignKeyPlan fk = invoices.foreignKeys().get(0);
    assertThat(fk.columns()).containsExactly("customers_shard", "customer_id");
    assertThat(fk.referencedColumns()).containsExactly("shard_id", "id");
    ColumnPlan added = invoices.column("customers_shard").orElseThrow();
    assertThat(added.generatedExpression()).isEqualTo("MOD(ABS(FARM_FINGERPRINT(customer_id)), 12)");
    assertThat(added.notNull()).isFalse();

    // The index leads with the parent's key, which shows no monotonic growth in this catalog: it is left as it is.
    IndexPlan byOrder = planned(plan, "order_lines").indexes().get(0);
    assertThat(byOrder.interleaveIn()).isNull();
    Finding hotspot = root.findings().stream().filter(f -> f.code() == FindingCode.HOTSPOT_KEY).findFirst()
        .orElseThrow();
    assertThat(hotspot.message()).contains("reads by id must add the shard predicate").contains("write skew");
    @SuppressWarnings("unchecked")
    Map<String, Object> skew = (Map<String, Object>) hotspot.evidence().get("writeSkew");
    assertThat((Double) skew.get("sourceKey")).isGreaterThan(0.8);
    assertThat((Double) skew.get("plannedKey")).isLessThan(0.2);
  }

  /** An integer-keyed four-level hierarchy, a referencing table and a self-reference, for the uuid strategy. */
  private static PgCatalog integerHierarchy() {
    PgTable customers = table("customers", 1, List.of(serial("id", "public", "customers_id_seq"),
        nullable("referrer_id", BIGINT), column("name", TEXT)),
        List.of(fk("customers_referrer_fk", List.of("referrer_id"), "customers", List.of("id"),
            PgForeignKey.Action.NO_ACTION)), List.of(index("customers_name", false, "name")));
    customers = new PgTable(customers.schema(), customers.name(), customers.kind(), customers.columns(),
        customers.primaryKey(), customers.uniqueConstraints(), customers.foreignKeys(),
        List.of(new dev.pg2spanner.catalog.PgCheck("customers_id_positive", "(id > 0)", true),
            new dev.pg2spanner.catalog.PgCheck("customers_name_set",
                "((name <> ''::text) AND (name <> 'id'::text))", true)),
        customers.indexes(), null, List.of(), false, null, customers.stats());
    PgTable orders = table("orders", 2, List.of(column("customer_id", BIGINT), column("order_no", INTEGER)),
        List.of(fk("orders_customer_fk", List.of("customer_id"), "customers", List.of("id"),
            PgForeignKey.Action.CASCADE)), List.of());
    PgTable lines = table("order_lines", 3, List.of(column("customer_id", BIGINT), column("order_no", INTEGER),
        column("line_no", INTEGER)), List.of(fk("lines_order_fk", List.of("customer_id", "order_no"), "orders",
        List.of("customer_id", "order_no"), PgForeignKey.Action.CASCADE)), List.of());
    PgTable notes = table("line_notes", 4, List.of(column("customer_id", BIGINT), column("order_no", INTEGER),
        column("line_no", INTEGER), column("note_no", INTEGER)), List.of(fk("notes_line_fk",
        List.of("customer_id", "order_no", "line_no"), "order_lines", List.of("customer_id", "order_no", "line_no"),
        PgForeignKey.Action.NO_ACTION)), List.of());
    PgTable invoices = table("invoices", 1, List.of(column("invoice_no", TEXT), nullable("customer_id", BIGINT)),
        List.of(fk("invoices_customer_fk", List.of("customer_id"), "customers", List.of("id"),
            PgForeignKey.Action.NO_ACTION)), List.of(index("invoices_by_customer", false, "customer_id")));
    return catalog(List.of(customers, orders, lines, notes, invoices),
        List.of(sequence("public", "customers_id_seq", 1, 500L, "public.customers.id")));
  }

  private static Plan planRequesting(PgCatalog catalog, Map<String, KeyStrategy.Kind> requested) {
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 0,
        requested);
    List<List<Object>> rising = new ArrayList<>();
    for (long i = 1; i <= 500; i++) {
      rising.add(List.of(i));
    }
    return new Planner(options).plan(new PlanInputs(catalog, Map.of(), Map.of("public.customers",
        sample("customers", List.of("id"), rising)), Map.of("public.customers", new PlanInputs.KeyRange(1, 500))));
  }

  @Test
  void uuidOnAnIntegerKeyRemapsEveryCopyOfTheKeyThroughFourLevelsAndKeepsTheOldId() {
    Plan plan = planRequesting(integerHierarchy(), Map.of("public.customers", KeyStrategy.Kind.UUID));
    String namespace = dev.pg2spanner.plan.KeyUuid.namespaceFor("public.customers").toString();

    TablePlan root = planned(plan, "customers");
    assertThat(root.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.UUID);
    assertThat(root.keyStrategy().keptKeyColumn()).isEqualTo("legacy_id");
    assertThat(root.keyStrategy().reason()).startsWith("requested with --key-strategy");
    assertThat(key(root)).containsExactly("id");
    ColumnPlan id = root.column("id").orElseThrow();
    assertThat(id).isEqualTo(new ColumnPlan("id", "bigint", "id", "STRING(36)", true,
        dev.pg2spanner.plan.ValueConversion.KEY_UUID, "GENERATE_UUID()", null, namespace));
    ColumnPlan legacy = root.column("legacy_id").orElseThrow();
    assertThat(legacy.source()).isEqualTo("id");
    assertThat(legacy.targetType()).isEqualTo("INT64");
    assertThat(legacy.notNull()).as("new rows have no old id").isFalse();
    IndexPlan unique = root.indexes().stream().filter(x -> x.columns().get(0).column().equals("legacy_id"))
        .findFirst().orElseThrow();
    assertThat(unique.unique()).isTrue();
    assertThat(unique.nullFiltered()).isTrue();
    // The self-reference holds ids of the same table.
    assertThat(root.column("referrer_id").orElseThrow().uuidNamespace()).isEqualTo(namespace);
    assertThat(root.column("referrer_id").orElseThrow().defaultExpression()).as("only the key gets new UUIDs").isNull();
    // The CHECK on the old integer cannot hold for a UUID; the other one stays, though a string in it spells "id":
    // which columns a CHECK reads is known from its typed expression, not searched for in its text.
    assertThat(root.checks()).extracting(dev.pg2spanner.plan.CheckPlan::source)
        .containsExactly("customers_name_set");
    assertThat(root.findings().stream().filter(f -> f.code() == FindingCode.KEY_REMAPPED && "id".equals(f.column())))
        .singleElement().satisfies(f -> assertThat(f.message()).contains("customers_id_positive"));
    assertThat(codes(root)).contains(FindingCode.HOTSPOT_KEY, FindingCode.KEY_STRATEGY_REQUESTED)
        .doesNotContain(FindingCode.DEFAULT_NOT_TRANSLATED);
    assertThat(root.findings().stream().filter(f -> f.code() == FindingCode.KEY_STRATEGY_REQUESTED).findFirst()
        .orElseThrow().message()).contains("replaces the policy's choice");
    Finding requested = root.findings().stream().filter(f -> f.code() == FindingCode.HOTSPOT_KEY)
        .findFirst().orElseThrow();
    assertThat(requested.message()).contains("uuid_generate_v5('" + namespace + "', \"id\"::text)")
        .contains("orders.id", "order_lines.id", "line_notes.id", "invoices.customer_id", "customers.referrer_id");
    @SuppressWarnings("unchecked")
    Map<String, Object> skew = (Map<String, Object>) requested.evidence().get("writeSkew");
    assertThat((Double) skew.get("sourceKey")).isGreaterThan(0.8);
    assertThat((Double) skew.get("plannedKey")).isLessThan(0.2);

    for (String child : List.of("orders", "order_lines", "line_notes")) {
      TablePlan t = planned(plan, child);
      assertThat(t.column("id").orElseThrow().conversion()).isEqualTo(dev.pg2spanner.plan.ValueConversion.KEY_UUID);
      assertThat(t.column("id").orElseThrow().uuidNamespace()).isEqualTo(namespace);
      assertThat(t.column("id").orElseThrow().defaultExpression()).isNull();
      assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
      assertThat(t.interleave()).isNotNull();
    }
    TablePlan invoices = planned(plan, "invoices");
    ColumnPlan ref = invoices.column("customer_id").orElseThrow();
    assertThat(ref.conversion()).isEqualTo(dev.pg2spanner.plan.ValueConversion.KEY_UUID);
    assertThat(ref.uuidNamespace()).isEqualTo(namespace);
    assertThat(ref.notNull()).isFalse();
    assertThat(invoices.foreignKeys().get(0).referencedColumns()).containsExactly("id");
    assertThat(dev.pg2spanner.plan.PlanValidator.problems(plan)).isEmpty();
  }

  @Test
  void theValidatorRejectsAHandEditThatBreaksTheUuidMapping() {
    Plan plan = planRequesting(integerHierarchy(), Map.of("public.customers", KeyStrategy.Kind.UUID));
    List<TablePlan> tables = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      if (t.source().equals("public.invoices")) {
        List<ColumnPlan> columns = t.columns().stream().map(c -> !c.target().equals("customer_id") ? c
            : new ColumnPlan(c.source(), c.sourceType(), c.target(), c.targetType(), c.notNull(), c.conversion(),
                null, null, "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toList();
        t = new TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(), t.bytesEstimate(), columns,
            t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(), t.foreignKeys(), t.checks(), t.findings());
      }
      if (t.source().equals("public.orders")) {
        List<ColumnPlan> columns = t.columns().stream().map(c -> !c.target().equals("id") ? c
            : new ColumnPlan(c.source(), c.sourceType(), c.target(), c.targetType(), c.notNull(),
                dev.pg2spanner.plan.ValueConversion.STRING, null, null)).toList();
        t = new TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(), t.bytesEstimate(), columns,
            t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(), t.foreignKeys(), t.checks(), t.findings());
      }
      tables.add(t);
    }
    Plan edited = new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(),
        plan.target(), tables, plan.sequences(), plan.findings());
    assertThat(dev.pg2spanner.plan.PlanValidator.problems(edited))
        .anySatisfy(p -> assertThat(p).contains("foreignKeys[0].columns[0]").contains("uuidNamespace")
            .contains("no reference will match"))
        .anySatisfy(p -> assertThat(p).contains("primaryKey[0].column").contains("only 'customers.id' maps them"));
  }

  @Test
  void aRequestThatCannotApplyNamesTheTableAndWhatToChooseInstead() {
    PgCatalog catalog = integerHierarchy();
    assertThatThrownBy(() -> planRequesting(catalog, Map.of("public.customer", KeyStrategy.Kind.UUID)))
        .isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("no table public.customer in this plan");
    assertThatThrownBy(() -> planRequesting(catalog, Map.of("public.orders", KeyStrategy.Kind.UUID)))
        .isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("interleaved in customers").hasMessageContaining("root of the hierarchy");
    assertThatThrownBy(() -> planRequesting(catalog, Map.of("public.invoices", KeyStrategy.Kind.BIT_REVERSED)))
        .isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("--key-strategy public.invoices=bit-reversed")
        .hasMessageContaining("choose hash-shard (or uuid, for a single-column integer key)");
    assertThatThrownBy(() -> planRequesting(catalog, Map.of("public.invoices", KeyStrategy.Kind.UUID)))
        .isInstanceOf(KeyStrategyRequestException.class).hasMessageContaining("choose hash-shard");
  }

  @Test
  void uuidIsRefusedWhereOneColumnWouldHaveToHoldUuidsForOneReferenceAndIntegersForAnother() {
    // A 1:1 table keyed by a foreign key: uuid on it would break the reference to accounts.
    PgTable accounts = table("accounts", 1, List.of(serial("id", "public", "accounts_id_seq")), List.of(), List.of());
    PgTable stats = table("acc_stats", 1, List.of(column("account_id", BIGINT), column("logins", INTEGER)),
        List.of(fk("acc_stats_fk", List.of("account_id"), "accounts", List.of("id"), PgForeignKey.Action.CASCADE)),
        List.of());
    PgTable other = table("ledger", 1, List.of(column("id", BIGINT)), List.of(), List.of());
    PgTable both = table("links", 2, List.of(column("x", BIGINT), column("n", INTEGER)),
        List.of(fk("links_accounts", List.of("x"), "accounts", List.of("id"), PgForeignKey.Action.NO_ACTION),
            fk("links_ledger", List.of("x"), "ledger", List.of("id"), PgForeignKey.Action.NO_ACTION)), List.of());
    PgCatalog oneToOne = catalog(List.of(accounts, stats), List.of(sequence("public", "accounts_id_seq", 1, 500L,
        "public.accounts.id")));
    assertThatThrownBy(() -> planRequesting(oneToOne, Map.of("public.acc_stats", KeyStrategy.Kind.UUID)))
        .isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("foreign key acc_stats_fk makes it reference accounts.id")
        .hasMessageContaining("Request uuid for accounts instead");
    // Requested for the referenced table instead, the 1:1 table follows it whatever the names' order.
    Plan plan = planRequesting(oneToOne, Map.of("public.accounts", KeyStrategy.Kind.UUID));
    assertThat(planned(plan, "acc_stats").column("account_id").orElseThrow().conversion())
        .isEqualTo(dev.pg2spanner.plan.ValueConversion.KEY_UUID);
    assertThat(planned(plan, "acc_stats").keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThatThrownBy(() -> planRequesting(oneToOne, Map.of("public.accounts", KeyStrategy.Kind.UUID,
        "public.acc_stats", KeyStrategy.Kind.HASH_SHARD)))
        .isInstanceOf(KeyStrategyRequestException.class).hasMessageContaining("drop this request");
    // A column that references two tables cannot follow only one of them.
    PgCatalog twoWays = catalog(List.of(accounts, other, both), List.of(sequence("public", "accounts_id_seq", 1,
        500L, "public.accounts.id")));
    assertThatThrownBy(() -> planRequesting(twoWays, Map.of("public.accounts", KeyStrategy.Kind.UUID)))
        .isInstanceOf(KeyStrategyRequestException.class)
        .hasMessageContaining("public.links.x").hasMessageContaining("ledger.id, which keeps its integer values");
    // A composite key led by an integer: that integer alone does not identify a row.
    PgTable readings = table("readings", 2, List.of(column("device_id", INTEGER),
        serial("seq", "public", "readings_seq")), List.of(), List.of());
    assertThatThrownBy(() -> planRequesting(catalog(List.of(readings), List.of()), Map.of("public.readings",
        KeyStrategy.Kind.UUID)))
        .isInstanceOf(KeyStrategyRequestException.class).hasMessageContaining("single-column integer key");
  }

  @Test
  void uuidLeavesASharedSequenceToTheOtherTablesAndCopiesGeneratedColumnsItWouldBreak() {
    PgTable aa = table("aa", 1, List.of(serial("id", "public", "global_id"), column("name", TEXT)), List.of(),
        List.of());
    aa = new PgTable(aa.schema(), aa.name(), aa.kind(), List.of(aa.columns().get(0), aa.columns().get(1),
        new dev.pg2spanner.catalog.PgColumn("early", 3, dev.pg2spanner.catalog.PgType.builtin("bool", "boolean"),
            false, null, dev.pg2spanner.catalog.PgColumn.Identity.NONE, "(id < 100)", null, null, null, null)),
        aa.primaryKey(), aa.uniqueConstraints(), aa.foreignKeys(), aa.checks(), aa.indexes(), null, List.of(), false,
        null, aa.stats());
    PgTable zz = table("zz", 1, List.of(serial("id", "public", "global_id")), List.of(), List.of());
    PgCatalog catalog = catalog(List.of(aa, zz), List.of(sequence("public", "global_id", 1, 900L, "public.aa.id",
        "public.zz.id")));
    for (String requested : List.of("public.aa", "public.zz")) {
      Plan plan = planRequesting(catalog, Map.of(requested, KeyStrategy.Kind.UUID));
      String other = requested.equals("public.aa") ? "zz" : "aa";
      assertThat(plan.sequences()).singleElement().satisfies(seq ->
          assertThat(seq.usedBy()).containsExactly(other + ".id"));
      assertThat(planned(plan, other).keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.BIT_REVERSED);
      String me = requested.substring("public.".length());
      assertThat(planned(plan, me).column("id").orElseThrow().defaultExpression()).isEqualTo("GENERATE_UUID()");
      assertThat(dev.pg2spanner.plan.PlanValidator.problems(plan)).as(requested).isEmpty();
    }
    Plan plan = planRequesting(catalog, Map.of("public.aa", KeyStrategy.Kind.UUID));
    ColumnPlan early = planned(plan, "aa").column("early").orElseThrow();
    assertThat(early.generatedExpression()).isNull();
    assertThat(early.isLoaded()).isTrue();
  }

  @Test
  void aRequestReplacesThePolicyEvenForAKeyThatIsNotFlagged() {
    Plan plan = planRequesting(integerHierarchy(), Map.of("public.invoices", KeyStrategy.Kind.HASH_SHARD,
        "public.customers", KeyStrategy.Kind.KEEP));
    TablePlan invoices = planned(plan, "invoices");
    assertThat(invoices.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(codes(invoices)).contains(FindingCode.KEY_STRATEGY_REQUESTED).doesNotContain(FindingCode.HOTSPOT_KEY);
    TablePlan customers = planned(plan, "customers");
    assertThat(customers.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(customers.keyStrategy().reason()).contains("requested with --key-strategy");
    assertThat(plan.sequences()).isEmpty();
    assertThat(dev.pg2spanner.plan.PlanValidator.problems(plan)).isEmpty();
  }

  @Test
  void sharedSequenceBecomesOneBitReversedSequenceCoveringEveryMigratedId() {
    PgTable invoices = table("invoices", 1, List.of(serial("id", "public", "doc_seq"), column("amount", INTEGER)),
        List.of(), List.of());
    PgTable credits = table("credit_notes", 1, List.of(serial("id", "public", "doc_seq")), List.of(), List.of());
    PgTable lines = table("invoice_lines", 2, List.of(column("id", BIGINT), column("line", INTEGER)),
        List.of(fk("lines_fk", List.of("id"), "invoices", List.of("id"), PgForeignKey.Action.CASCADE)), List.of());
    PgCatalog catalog = catalog(List.of(invoices, credits, lines), List.of(sequence("public", "doc_seq", 1, 5_000L,
        "public.credit_notes.id", "public.invoices.id")));
    Plan plan = plan(catalog, Map.of(), Map.of("public.invoices", new PlanInputs.KeyRange(1, 4_990),
        "public.credit_notes", new PlanInputs.KeyRange(7, 5_000)), 0);

    assertThat(plan.sequences()).hasSize(1);
    SequencePlan seq = plan.sequences().get(0);
    assertThat(seq.source()).isEqualTo("public.doc_seq");
    assertThat(seq.skipRangeMin()).isEqualTo(1);
    assertThat(seq.skipRangeMax()).isGreaterThanOrEqualTo(5_000 + 1_000_000);
    assertThat(seq.usedBy()).containsExactly("credit_notes.id", "invoices.id");
    for (String t : List.of("invoices", "credit_notes")) {
      TablePlan p = planned(plan, t);
      assertThat(p.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.BIT_REVERSED);
      assertThat(p.keyStrategy().sequence()).isEqualTo(seq.target());
      assertThat(p.column("id").orElseThrow().defaultExpression())
          .isEqualTo("GET_NEXT_SEQUENCE_VALUE(SEQUENCE " + seq.target() + ")");
      assertThat(key(p)).containsExactly("id");
    }
    // The child keeps its key and follows its parent.
    TablePlan child = planned(plan, "invoice_lines");
    assertThat(child.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(key(child)).containsExactly("id", "line");
  }

  @Test
  void timestampFirstKeyWithADistributedSecondColumnIsSwappedWithTimeDescending() {
    PgTable readings = table("readings", 2, List.of(column("taken_at", TIMESTAMPTZ), column("device_id", BIGINT)),
        List.of(), List.of());
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      rows.add(List.of(1_700_000_000.0 + i, (long) (i * 7919 % 997)));
    }
    Plan plan = plan(catalog(List.of(readings), List.of()), Map.of("public.readings",
        sample("readings", List.of("taken_at", "device_id"), rows)));
    TablePlan t = planned(plan, "readings");
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.SWAP);
    assertThat(key(t)).containsExactly("device_id", "taken_at DESC");
  }

  @Test
  void timestampKeyWithAFewValuedSecondColumnIsHashShardedInstead() {
    PgTable events = table("events", 2, List.of(column("occurred_at", TIMESTAMPTZ), column("source", TEXT)),
        List.of(), List.of());
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      rows.add(List.of(1_700_000_000.0 + i, List.of("api", "worker", "cron").get(i % 3)));
    }
    Plan plan = plan(catalog(List.of(events), List.of()), Map.of("public.events",
        sample("events", List.of("occurred_at", "source"), rows)));
    TablePlan t = planned(plan, "events");
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.HASH_SHARD);
    assertThat(t.column("shard_id").orElseThrow().generatedExpression())
        .isEqualTo("MOD(ABS(FARM_FINGERPRINT(CONCAT(CAST(UNIX_MICROS(occurred_at) AS STRING), '|', source))), 12)");
  }

  @Test
  void timeOrderedUuidKeysKeepTheirValuesAndGetRandomOnesForNewRows() {
    PgTable sessions = table("sessions", 1, List.of(column("id", UUID)), List.of(), List.of());
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(List.of(String.format("%08x-0000-7000-8000-000000000000", 0x01900000 + i)));
    }
    Plan plan = plan(catalog(List.of(sessions), List.of()), Map.of("public.sessions",
        sample("sessions", List.of("id"), rows)));
    TablePlan t = planned(plan, "sessions");
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.UUID);
    assertThat(t.column("id").orElseThrow().defaultExpression()).isEqualTo("GENERATE_UUID()");
  }

  @Test
  void lowWriteTablesKeepTheirKeyWithTheReasonOnlyOverATrustedWindow() {
    PgTable settings = table("settings", 1, List.of(serial("id", "public", "settings_id_seq")), List.of(), List.of());
    PgTableStats quiet = new PgTableStats(50.0, 1, 8192, 8192, 50L, 0L, 0L, NOW.minus(Duration.ofDays(30)), null);
    PgCatalog catalog = catalog(List.of(withStats(settings, quiet)), List.of(sequence("public", "settings_id_seq", 1,
        50L, "public.settings.id")));
    TablePlan kept = planned(plan(catalog, Map.of(), Map.of(), 1.0), "settings");
    assertThat(kept.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(kept.keyStrategy().reason()).contains("low write rate");
    assertThat(codes(kept)).contains(FindingCode.HOTSPOT_KEY, FindingCode.LOW_WRITE_RATE);

    PgTableStats young = new PgTableStats(50.0, 1, 8192, 8192, 50L, 0L, 0L, NOW.minus(Duration.ofHours(2)), null);
    PgCatalog youngCatalog = catalog(List.of(withStats(settings, young)), catalog.sequences());
    assertThat(planned(plan(youngCatalog, Map.of(), Map.of(), 1.0), "settings").keyStrategy().kind())
        .isEqualTo(KeyStrategy.Kind.BIT_REVERSED);
  }

  @Test
  void distributedKeysAreNotFlagged() {
    PgTable tenantLed = table("tenant_orders", 2, List.of(column("tenant_id", BIGINT), serial("id", "public", "s")),
        List.of(), List.of());
    PgTable random = table("tokens", 1, List.of(column("id", UUID)), List.of(), List.of());
    PgTable natural = table("countries", 1, List.of(withCorrelation(column("code", TEXT), 0.05)), List.of(),
        List.of());
    List<List<Object>> v4 = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      v4.add(List.of(java.util.UUID.nameUUIDFromBytes(new byte[] {(byte) i}).toString().replaceFirst("-3", "-4")));
    }
    Plan plan = plan(catalog(List.of(tenantLed, random, natural), List.of(sequence("public", "s", 1, 10L,
        "public.tenant_orders.id"))), Map.of("public.tokens", sample("tokens", List.of("id"), v4)));
    for (TablePlan t : plan.tables()) {
      assertThat(t.keyStrategy().kind()).as(t.source()).isEqualTo(KeyStrategy.Kind.KEEP);
      assertThat(codes(t)).as(t.source()).doesNotContain(FindingCode.HOTSPOT_KEY);
    }
  }

  @Test
  void monotonicSecondaryIndexGetsAShardPrefixDerivedFromTheIndexedValue() {
    PgTable accounts = table("accounts", 1, List.of(column("email", TEXT), column("created_at", TIMESTAMPTZ)),
        List.of(), List.of(index("accounts_created_idx", false, "created_at"), index("accounts_email_key", true,
            "email")));
    Plan plan = plan(catalog(List.of(accounts), List.of()), Map.of());
    TablePlan t = planned(plan, "accounts");
    IndexPlan created = t.indexes().stream().filter(i -> i.source().equals("accounts_created_idx")).findFirst()
        .orElseThrow();
    assertThat(created.columns()).extracting(KeyPart::column).containsExactly("created_at_shard", "created_at");
    assertThat(t.column("created_at_shard").orElseThrow().generatedExpression())
        .isEqualTo("MOD(ABS(FARM_FINGERPRINT(CAST(UNIX_MICROS(created_at) AS STRING))), 12)");
    assertThat(codes(t)).contains(FindingCode.MONOTONIC_INDEX);
    // The advice quotes the expression the DDL creates, not a simplified one.
    assertThat(t.findings()).filteredOn(f -> f.code() == FindingCode.MONOTONIC_INDEX).singleElement()
        .satisfies(f -> assertThat(f.message())
            .contains("created_at_shard = MOD(ABS(FARM_FINGERPRINT(CAST(UNIX_MICROS(created_at) AS STRING))), 12)"));
    IndexPlan email = t.indexes().stream().filter(i -> i.source().equals("accounts_email_key")).findFirst()
        .orElseThrow();
    assertThat(email.columns()).extracting(KeyPart::column).containsExactly("email");
  }

  @Test
  void tableWithoutPrimaryKeyGetsASyntheticRandomKeyAndNothingIsDeduplicated() {
    PgTable views = table("page_views", 0, List.of(nullable("url", TEXT)), List.of(), List.of());
    TablePlan t = planned(plan(catalog(List.of(views), List.of()), Map.of()), "page_views");
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.SYNTHETIC);
    assertThat(key(t)).containsExactly("row_id");
    assertThat(t.column("row_id").orElseThrow().defaultExpression()).isEqualTo("GENERATE_UUID()");
    assertThat(codes(t)).contains(FindingCode.NO_PRIMARY_KEY);
  }

  @Test
  void tableWithoutPrimaryKeyGetsARowHashOverItsColumnsAndAnIndexOnIt() {
    // Issue 30: live changes to such a table find their row through the hash's index, not by a scan.
    PgTable views = table("page_views", 0, List.of(nullable("url", TEXT), column("hits", BIGINT),
        nullable("pg2spanner_row_hash", TEXT)), List.of(), List.of());
    TablePlan t = planned(plan(catalog(List.of(views), List.of()), Map.of()), "page_views");
    dev.pg2spanner.plan.RowHash hash = t.rowHash();
    assertThat(hash).isNotNull();
    // A source column has the desired name: the added one gets another, as row_id would.
    assertThat(hash.column()).isNotEqualTo("pg2spanner_row_hash").startsWith("pg2spanner_row_hash");
    assertThat(hash.columns()).containsExactly("url", "hits", "pg2spanner_row_hash");
    ColumnPlan column = t.column(hash.column()).orElseThrow();
    assertThat(column.source()).isNull();
    assertThat(column.targetType()).isEqualTo("INT64");
    assertThat(column.notNull()).isFalse();
    assertThat(column.conversion()).isEqualTo(dev.pg2spanner.plan.ValueConversion.SYNTHETIC);
    assertThat(column.isLoaded()).isFalse();
    assertThat(t.indexes()).filteredOn(i -> i.target().equals(hash.index())).singleElement()
        .satisfies(i -> {
          assertThat(i.columns()).extracting(KeyPart::column).containsExactly(hash.column());
          assertThat(i.unique()).isFalse();
          assertThat(i.source()).isNull();
        });
    assertThat(t.findings()).filteredOn(f -> f.code() == FindingCode.NO_PRIMARY_KEY).singleElement()
        .satisfies(f -> assertThat(f.message()).contains(hash.column(), hash.index(), "dropped after cutover"));
    assertThat(dev.pg2spanner.plan.PlanValidator.problems(plan(catalog(List.of(views), List.of()), Map.of())))
        .isEmpty();
  }

  @Test
  void aTableWithAPrimaryKeyGetsNoRowHash() {
    PgTable keyed = table("keyed", 1, List.of(column("id", BIGINT), nullable("url", TEXT)), List.of(), List.of());
    TablePlan t = planned(plan(catalog(List.of(keyed), List.of()), Map.of()), "keyed");
    assertThat(t.rowHash()).isNull();
    assertThat(t.columns()).extracting(ColumnPlan::target).containsExactly("id", "url");
  }

  @Test
  void thePostgresDialectWritesTheRowHashAsBigint() {
    PgTable views = table("page_views", 0, List.of(nullable("url", TEXT)), List.of(), List.of());
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 0)
        .withDialect(dev.pg2spanner.spanner.SpannerDialect.POSTGRESQL);
    Plan plan = new Planner(options).plan(new PlanInputs(catalog(List.of(views), List.of()), Map.of(), Map.of(),
        Map.of()));
    TablePlan t = planned(plan, "page_views");
    assertThat(t.rowHash()).isNotNull();
    assertThat(t.column(t.rowHash().column()).orElseThrow().targetType()).isEqualTo("bigint");
    assertThat(t.indexes()).extracting(IndexPlan::target).contains(t.rowHash().index());
    assertThat(dev.pg2spanner.plan.PlanValidator.problems(plan)).isEmpty();
  }

  @Test
  void thePostgresDialectPrintsTheKeyDesignsTypedExpressionsInItsOwnSpelling() {
    PgTable invoices = table("invoices", 1, List.of(serial("id", "public", "doc_seq"), column("amount", INTEGER)),
        List.of(), List.of());
    PgTable views = table("page_views", 0, List.of(nullable("url", TEXT)), List.of(), List.of());
    PgTable accounts = table("accounts", 1, List.of(column("email", TEXT), column("created_at", TIMESTAMPTZ)),
        List.of(), List.of(index("accounts_created_idx", false, "created_at")));
    PgTable devices = table("devices", 1, List.of(column("id", BIGINT)), List.of(), List.of());
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 0,
        Map.of("public.devices", KeyStrategy.Kind.HASH_SHARD))
        .withDialect(dev.pg2spanner.spanner.SpannerDialect.POSTGRESQL);
    Plan plan = new Planner(options).plan(new PlanInputs(catalog(List.of(invoices, views, accounts, devices),
        List.of(sequence("public", "doc_seq", 1, 5_000L, "public.invoices.id"))), Map.of(), Map.of(),
        Map.of("public.invoices", new PlanInputs.KeyRange(1, 4_990))));
    // The hash-shard key's column and the finding that explains it (before, the finding quoted a simplified
    // GoogleSQL expression in a PostgreSQL-dialect plan).
    TablePlan sharded = planned(plan, "devices");
    String key = "mod(abs(spanner.farm_fingerprint(id::text)), 12)";
    assertThat(sharded.column("shard_id").orElseThrow().generatedExpression()).isEqualTo(key);
    assertThat(sharded.findings()).filteredOn(f -> f.code() == FindingCode.KEY_STRATEGY_REQUESTED).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("The plan adds shard_id = " + key + " as a stored"));
    SequencePlan seq = plan.sequences().get(0);
    assertThat(planned(plan, "invoices").column("id").orElseThrow().defaultExpression())
        .isEqualTo("nextval('" + seq.target() + "')");
    assertThat(planned(plan, "page_views").column("row_id").orElseThrow().defaultExpression())
        .isEqualTo("spanner.generate_uuid()");
    TablePlan t = planned(plan, "accounts");
    String shard = "mod(abs(spanner.farm_fingerprint(extract(epoch from created_at)::text)), 12)";
    assertThat(t.column("created_at_shard").orElseThrow().generatedExpression()).isEqualTo(shard);
    // The advice quotes the expression this dialect's DDL creates.
    assertThat(t.findings()).filteredOn(f -> f.code() == FindingCode.MONOTONIC_INDEX).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("created_at_shard = " + shard));
    assertThat(dev.pg2spanner.plan.PlanValidator.problems(plan)).isEmpty();
  }
}
