package dev.pg2spanner.plan;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.TIMESTAMPTZ;
import static dev.pg2spanner.fixtures.PgFixtures.UUID;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.nullable;
import static dev.pg2spanner.fixtures.PgFixtures.sequence;
import static dev.pg2spanner.fixtures.PgFixtures.serial;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.fixtures.WrittenKeys;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.planner.PlanInputs;
import dev.pg2spanner.planner.Planner;
import dev.pg2spanner.planner.PlannerOptions;
import dev.pg2spanner.report.ApplicationChanges;
import dev.pg2spanner.report.MarkdownReport;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The three texts that explain a key strategy to an application (the planner's finding, report.md's key line, the
 * application-visible changes list) all carry the one consequence sentence {@link KeyConsequences} writes for it,
 * checked on a plan the planner made with every strategy in it.
 */
class KeyConsequencesTest {

  /** Snowflake-style ids the application made over a month, in many small transactions. */
  private static final WrittenKeys SNOWFLAKES = WrittenKeys.written(2000,
      Instant.parse("2026-10-22T12:00:00Z"), Instant.parse("2026-11-21T11:00:00Z"),
      WrittenKeys.snowflake(WrittenKeys.TWITTER_EPOCH, 22, 1), 0);

  /** One table per strategy, planned together; customers' integer key is remapped to UUIDs on request. */
  private static final Plan PLAN = plan();
  private static final String MD = MarkdownReport.render(PLAN);

  private static Plan plan() {
    PgTable orders = table("orders", 1, List.of(serial("id", "public", "orders_id_seq")), List.of(), List.of());
    PgTable customers = table("customers", 1, List.of(serial("id", "public", "customers_id_seq")), List.of(),
        List.of());
    PgTable events = table("events", 2, List.of(column("occurred_at", TIMESTAMPTZ), column("source", TEXT)),
        List.of(), List.of());
    PgTable readings = table("readings", 2, List.of(column("taken_at", TIMESTAMPTZ), column("device_id", BIGINT)),
        List.of(), List.of());
    PgTable sessions = table("sessions", 1, List.of(column("id", UUID)), List.of(), List.of());
    PgTable pageViews = table("page_views", 0, List.of(nullable("url", TEXT)), List.of(), List.of());
    PgTable tags = table("tags", 1, List.of(column("tag", TEXT)), List.of(), List.of());
    PgTable posts = table("posts", 1, List.of(column("id", BIGINT)), List.of(), List.of());
    Instant now = Instant.parse("2026-11-21T12:00:00Z");

    List<List<Object>> eventRows = new ArrayList<>();
    List<List<Object>> readingRows = new ArrayList<>();
    List<List<Object>> sessionRows = new ArrayList<>();
    List<List<Object>> customerRows = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      eventRows.add(List.of(1_700_000_000.0 + i, List.of("api", "worker", "cron").get(i % 3)));
      readingRows.add(List.of(1_700_000_000.0 + i, (long) (i * 7919 % 997)));
      sessionRows.add(List.of(String.format("%08x-0000-7000-8000-000000000000", 0x01900000 + i)));
      customerRows.add(List.of((long) i + 1));
    }
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(),
        Instant.parse("2026-11-21T12:00:00Z"), 0, Map.of("public.customers", KeyStrategy.Kind.UUID));
    return new Planner(options).plan(new PlanInputs(
        catalog(List.of(orders, customers, events, readings, sessions, pageViews, tags, posts), List.of(
            sequence("public", "orders_id_seq", 1, 10L, "public.orders.id"),
            sequence("public", "customers_id_seq", 1, 1000L, "public.customers.id"))),
        Map.of(),
        Map.of("public.events", sample("events", List.of("occurred_at", "source"), eventRows),
            "public.readings", sample("readings", List.of("taken_at", "device_id"), readingRows),
            "public.sessions", sample("sessions", List.of("id"), sessionRows),
            "public.customers", sample("customers", List.of("id"), customerRows),
            "public.posts", SNOWFLAKES.sample("public.posts", "id", now)),
        Map.of("public.customers", new PlanInputs.KeyRange(1, 1000))));
  }

  private static KeySample sample(String table, List<String> columns, List<List<Object>> rows) {
    return new KeySample("public." + table, columns, rows, true);
  }

  private static TablePlan planned(String source) {
    return PLAN.tableBySource("public." + source).orElseThrow();
  }

  /** report.md's key line of {@code t}: the bullet in its table's section that starts with the bold key title. */
  private static String reportKeyLine(TablePlan t) {
    String section = MD.substring(MD.indexOf("### " + t.source() + " → "));
    int end = section.indexOf("\n### ", 1);
    return section.substring(0, end < 0 ? section.length() : end).lines()
        .filter(line -> line.startsWith("- **Key")).findFirst()
        .orElseThrow(() -> new AssertionError("no key line for " + t.source()));
  }

  /** Every rendering carries {@code consequence} whole, and the reports get it through {@link KeyConsequences#of}. */
  private static void assertEveryTextSays(String source, KeyStrategy.Kind kind, String consequence) {
    TablePlan t = planned(source);
    assertThat(t.keyStrategy().kind()).as(source).isEqualTo(kind);
    assertThat(KeyConsequences.of(PLAN, t, UnaryOperator.identity())).as(source).contains(consequence);

    assertThat(t.findings()).as(source + "'s findings").map(Finding::message)
        .anySatisfy(m -> assertThat(m).contains(KeyConsequences.inFinding(consequence)));
    assertThat(reportKeyLine(t)).as(source + "'s key line in report.md").endsWith(". " + consequence);
    assertThat(ApplicationChanges.of(PLAN, t)).as(source + "'s application-visible changes")
        .map(ApplicationChanges.Change::detail)
        .filteredOn(detail -> detail.contains(consequence)).hasSize(1)
        .allSatisfy(detail -> assertThat(detail).endsWith(". " + consequence));
  }

  @Test
  void bitReversed() {
    assertEveryTextSays("orders", KeyStrategy.Kind.BIT_REVERSED, KeyConsequences.bitReversed("id"));
    assertThat(KeyConsequences.bitReversed("id")).isEqualTo("New ids are no longer ordered or dense: ORDER BY id no "
        + "longer means creation order and MAX(id) is no longer the newest row, so code that relies on either must "
        + "use a timestamp instead.");
  }

  @Test
  void bitReversedOnIdsTheApplicationMakes() {
    assertEveryTextSays("posts", KeyStrategy.Kind.BIT_REVERSED, KeyConsequences.bitReversedOwnIds("id"));
    assertThat(KeyConsequences.bitReversedOwnIds("id")).startsWith("The application makes these ids itself and "
        + "must change how: stop making them and omit id on insert (the sequence fills it), or bit-reverse each id");
    SequencePlan sequence = PLAN.sequences().stream().filter(q -> q.usedBy().contains("posts.id")).findFirst()
        .orElseThrow();
    assertThat(sequence.source()).as("no PostgreSQL sequence fed posts.id").isNull();
    // The skip range covers the largest migrated id (read from the newest keys), with as much again to spare.
    long highest = SNOWFLAKES.keys().stream().mapToLong(k -> (Long) k).max().orElseThrow();
    assertThat(sequence.skipRangeMax()).isEqualTo(2 * highest);
  }

  @Test
  void hashShard() {
    assertEveryTextSays("events", KeyStrategy.Kind.HASH_SHARD,
        KeyConsequences.hashShard("occurred_at, source", "shard_id", 12));
  }

  @Test
  void uuidOnTimeOrderedUuids() {
    assertEveryTextSays("sessions", KeyStrategy.Kind.UUID, KeyConsequences.uuidNewRows("id"));
  }

  @Test
  void uuidRemappingAnIntegerKey() {
    assertEveryTextSays("customers", KeyStrategy.Kind.UUID, KeyConsequences.uuidRemap("id", "legacy_id"));
  }

  @Test
  void swap() {
    assertEveryTextSays("readings", KeyStrategy.Kind.SWAP, KeyConsequences.swap("device_id"));
  }

  @Test
  void synthetic() {
    assertEveryTextSays("page_views", KeyStrategy.Kind.SYNTHETIC, KeyConsequences.synthetic("row_id"));
  }

  @Test
  void aKeptKeyChangesNothingForTheApplication() {
    TablePlan t = planned("tags");
    assertThat(t.keyStrategy().kind()).isEqualTo(KeyStrategy.Kind.KEEP);
    assertThat(KeyConsequences.of(PLAN, t, UnaryOperator.identity())).isEmpty();
    assertThat(reportKeyLine(t)).isEqualTo("- **Key kept**: (tag), as in PostgreSQL.");
    assertThat(ApplicationChanges.of(PLAN, t)).isEmpty();
    assertThat(t.findings()).map(Finding::message).noneMatch(m -> m.contains("Application-visible"));
  }
}
