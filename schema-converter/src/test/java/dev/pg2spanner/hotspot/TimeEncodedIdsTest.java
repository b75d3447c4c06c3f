package dev.pg2spanner.hotspot;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static dev.pg2spanner.fixtures.PgFixtures.withCorrelation;
import static dev.pg2spanner.fixtures.PgFixtures.withStats;
import static dev.pg2spanner.fixtures.WrittenKeys.TWITTER_EPOCH;
import static dev.pg2spanner.fixtures.WrittenKeys.ksuid;
import static dev.pg2spanner.fixtures.WrittenKeys.orderNumber;
import static dev.pg2spanner.fixtures.WrittenKeys.snowflake;
import static dev.pg2spanner.fixtures.WrittenKeys.ulid;
import static dev.pg2spanner.fixtures.WrittenKeys.written;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.fixtures.WrittenKeys;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * Keys an application makes with their creation time in them, each shape generated as an application writes it (rows
 * arriving over weeks in many small transactions), and each shape's twin: the same kind of values that were not made
 * at insertion (loaded once in sorted order, copied from elsewhere, random, or from the future), which must not count
 * as time-ordered ids.
 */
class TimeEncodedIdsTest {

  private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");

  private static KeySample sample(WrittenKeys w) {
    return w.sample("public.t", "id", NOW);
  }

  private static Optional<Monotonicity> detect(PgColumn c, WrittenKeys w, PgTableStats stats) {
    PgTable t = withStats(table("t", 1, List.of(c), List.of(), List.of()), stats);
    return MonotonicityDetector.detect(catalog(List.of(t), List.of()), t, t.columns().get(0), sample(w));
  }

  private static Optional<Monotonicity> detect(PgColumn c, WrittenKeys w) {
    return detect(c, w, PgTableStats.unknown());
  }

  private static void assertTimeEncoded(PgColumn c, WrittenKeys w, IdLayout layout) {
    Monotonicity m = detect(c, w).orElseThrow(() -> new AssertionError("not flagged: " + layout));
    assertThat(m.cause()).as(layout.name()).isEqualTo(Monotonicity.Cause.TIME_ENCODED_ID);
    assertThat(m.layout()).isEqualTo(layout);
    assertThat(m.orderOnly()).isFalse();
  }

  /** Not time-encoded: no evidence, or at most order alone (which never changes a key by itself). */
  private static void assertNotTimeEncoded(PgColumn c, WrittenKeys w, PgTableStats stats, String why) {
    detect(c, w, stats).ifPresent(m -> {
      assertThat(m.cause()).as(why).isNotEqualTo(Monotonicity.Cause.TIME_ENCODED_ID);
      assertThat(m.orderOnly()).as(why).isTrue();
    });
  }

  private static void assertNotTimeEncoded(PgColumn c, WrittenKeys w, String why) {
    assertNotTimeEncoded(c, w, PgTableStats.unknown(), why);
  }

  private static final Instant MONTH_AGO = NOW.minus(Duration.ofDays(30));
  private static final Instant HOUR_AGO = NOW.minus(Duration.ofHours(1));
  private static final PgColumn ID = withCorrelation(column("id", BIGINT), 0.999);
  private static final PgColumn TEXT_ID = withCorrelation(column("id", TEXT), 0.999);

  private static final LongFunction<Object> KSUID = ksuid(new Random(17));

  // ------------------------------------------------------------------------------------------------ each shape

  @Test
  void snowflakeIdsOfEachLayoutAreTimeEncoded() {
    assertTimeEncoded(ID, written(2000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 0),
        IdLayout.TWITTER_SNOWFLAKE);
    assertTimeEncoded(ID, written(2000, MONTH_AGO, HOUR_AGO, snowflake(1420070400000L, 22, 1), 0),
        IdLayout.DISCORD_SNOWFLAKE);
    assertTimeEncoded(ID, written(2000, MONTH_AGO, HOUR_AGO, snowflake(1314220021721L, 23, 1), 0),
        IdLayout.INSTAGRAM);
    assertTimeEncoded(ID, written(2000, MONTH_AGO, HOUR_AGO, snowflake(1409529600000L, 24, 10), 0),
        IdLayout.SONYFLAKE);
    assertTimeEncoded(ID, written(2000, MONTH_AGO, HOUR_AGO, snowflake(0, 16, 1), 0), IdLayout.MASTODON);
  }

  @Test
  void theEvidenceSaysWhatTheIdsDecodeToAndHowTheyWereWritten() {
    Monotonicity m = detect(ID, written(2000, Instant.parse("2026-06-01T00:00:00Z"),
        Instant.parse("2026-06-01T00:37:00Z"), snowflake(TWITTER_EPOCH, 22, 1), 0)).orElseThrow();
    assertThat(m.explanation()).contains("encode times from 2026-06-01 00:00 to 2026-06-01 00:36 in insertion order "
        + "(Snowflake layout, epoch 2010-11-04)").contains("transactions in key order");
    assertThat(m.evidence()).containsEntry("layout", "Snowflake layout, epoch 2010-11-04")
        .containsEntry("decodedFrom", "2026-06-01 00:00").containsKeys("newestKeysTransactions", "orderedNeighbours");
  }

  @Test
  void ulidsTypeIdsKsuidsAndDatedOrderNumbersAreTimeEncoded() {
    assertTimeEncoded(TEXT_ID, written(2000, MONTH_AGO, HOUR_AGO, ulid(""), 0), IdLayout.ULID);
    assertTimeEncoded(TEXT_ID, written(2000, MONTH_AGO, HOUR_AGO, ulid("user_"), 0), IdLayout.ULID);
    assertTimeEncoded(TEXT_ID, written(2000, MONTH_AGO, HOUR_AGO, KSUID, 0), IdLayout.KSUID);
    assertTimeEncoded(TEXT_ID, written(2000, MONTH_AGO, HOUR_AGO, orderNumber("ORD-"), 0), IdLayout.DATE_PREFIX);
    assertTimeEncoded(ID, written(2000, MONTH_AGO, HOUR_AGO, orderNumber(null), 0), IdLayout.DATE_PREFIX);
  }

  @Test
  void textIdsReadInALinguisticCollationAreJudgedInSpannersByteOrder() {
    // PostgreSQL reads the end of a text key in the column's collation; under "en_US" case hardly counts, so the
    // newest KSUIDs (mixed case) arrive in another order than Spanner, which compares bytes, keeps them in.
    WrittenKeys w = written(2000, MONTH_AGO, HOUR_AGO, KSUID, 0);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < w.keys().size(); i++) {
      order.add(i);
    }
    order.sort(java.util.Comparator.comparing(i -> (String) w.keys().get(i), String.CASE_INSENSITIVE_ORDER
        .thenComparing(java.util.Comparator.reverseOrder())));
    java.util.Collections.reverse(order);
    List<List<Object>> tailRows = new ArrayList<>();
    List<Long> tailAges = new ArrayList<>();
    for (int i : order.subList(0, 1000)) {
      tailRows.add(List.of(w.keys().get(i)));
      tailAges.add(w.transactionAges().get(i));
    }
    KeySample linguistic = new KeySample("public.t", List.of("id"), w.physical().stream().map(v -> List.of(v))
        .toList(), true, List.of(new KeyTail(List.of("id"), tailRows, tailAges, NOW)));
    PgTable t = table("t", 1, List.of(TEXT_ID), List.of(), List.of());
    assertThat(MonotonicityDetector.detect(catalog(List.of(t), List.of()), t, t.columns().get(0), linguistic))
        .map(Monotonicity::layout).contains(IdLayout.KSUID);
  }

  @Test
  void idsMadeSinceTheStatisticsBeganPassWhenTheStatisticsShowEveryRowIsNew() {
    // 2,000 rows, 2,000 inserts counted since two hours ago: every row is new, and so are its ids.
    PgTableStats young = new PgTableStats(2000.0, 10, 1, 1, 2000L, 0L, 0L, NOW.minus(Duration.ofHours(2)), null);
    Monotonicity m = detect(ID, written(2000, NOW.minus(Duration.ofMinutes(90)), NOW.minus(Duration.ofMinutes(1)),
        snowflake(TWITTER_EPOCH, 22, 1), 0), young).orElseThrow();
    assertThat(m.cause()).isEqualTo(Monotonicity.Cause.TIME_ENCODED_ID);
    assertThat(m.explanation()).contains("no time lies in the future or before 2026-11-20 (the statistics show every "
        + "row was inserted since 2026-11-21 10:00:00, less a day for clock skew)");
    // Without such statistics, the layout's own start is the bound.
    assertThat(detect(ID, written(2000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 0)).orElseThrow()
        .explanation()).contains("before 2010-11-05 (the layout dates from 2010-11-05)");
  }

  // ------------------------------------------------------------------------------------------------ the twins

  @Test
  void snowflakeIdsWrittenByOneTransactionAreNotProvenToTrackInsertion() {
    // A restored copy or a bulk load: values in order, stored in order, but one transaction wrote them all.
    assertNotTimeEncoded(ID, written(2000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 2000),
        "one transaction");
    // Loaded in a few large batches: the newest 1,000 keys come from two transactions.
    assertNotTimeEncoded(ID, written(5000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 500),
        "batches of 500");
  }

  @Test
  void denseExternalIdsAreNotTimeEncoded() {
    // Assigned by another system in order, one row per transaction: rising, but they decode to the epoch itself.
    WrittenKeys dense = written(2000, MONTH_AGO, HOUR_AGO, ms -> 0L, 0);
    List<Object> ids = new ArrayList<>();
    for (int i = 0; i < dense.keys().size(); i++) {
      ids.add(1_000_000L + i);
    }
    assertNotTimeEncoded(ID, new WrittenKeys(ids, ids, dense.transactionAges()), "dense ids");
    // Large external numbers (15-digit device ids) in order decode to the first day of Twitter's epoch.
    List<Object> imeis = new ArrayList<>();
    for (int i = 0; i < dense.keys().size(); i++) {
      imeis.add(356_938_035_643_809L + 7L * i);
    }
    assertNotTimeEncoded(ID, new WrittenKeys(imeis, imeis, dense.transactionAges()), "device ids");
  }

  @Test
  void randomNumbersAndTokensSortedInOrderAreNotTimeEncoded() {
    Random random = new Random(19);
    WrittenKeys w = written(2000, MONTH_AGO, HOUR_AGO, ms -> random.nextLong() >>> 1, 0);
    List<Object> sorted = new ArrayList<>(w.keys());
    sorted.sort(null);
    // Random 63-bit numbers written in ascending order: most decode to times in the future.
    assertNotTimeEncoded(ID, new WrittenKeys(sorted, sorted, w.transactionAges()), "random 63-bit numbers");

    Random tokens = new Random(23);
    for (LongFunction<Object> token : List.<LongFunction<Object>>of(
        ms -> ulid("").apply(tokens.nextLong() >>> 16),
        ms -> ksuid(tokens).apply((1400000000L + (tokens.nextLong() >>> 32)) * 1000))) {
      WrittenKeys t = written(2000, MONTH_AGO, HOUR_AGO, token, 0);
      List<Object> sortedTokens = new ArrayList<>(t.keys());
      sortedTokens.sort(null);
      assertNotTimeEncoded(TEXT_ID, new WrittenKeys(sortedTokens, sortedTokens, t.transactionAges()), "random tokens");
    }
  }

  @Test
  void naturalTextKeysInSortedOrderAreNotTimeEncoded() {
    WrittenKeys w = written(2000, MONTH_AGO, HOUR_AGO, ms -> "", 0);
    List<Object> skus = new ArrayList<>();
    List<Object> emails = new ArrayList<>();
    for (int i = 0; i < w.keys().size(); i++) {
      skus.add(String.format("SKU-%08d", i));
      emails.add(String.format("customer%05d@example.com", i));
    }
    assertNotTimeEncoded(TEXT_ID, new WrittenKeys(skus, skus, w.transactionAges()), "sorted SKUs");
    assertNotTimeEncoded(TEXT_ID, new WrittenKeys(emails, emails, w.transactionAges()), "sorted e-mail addresses");
  }

  @Test
  void datedNumbersFromBeforeTheTableOrFromTheFutureAreNotTimeEncoded() {
    // Every row was inserted in the last two hours, but the ids say 2024: copied from elsewhere, not made here.
    PgTableStats young = new PgTableStats(2000.0, 10, 1, 1, 2000L, 0L, 0L, NOW.minus(Duration.ofHours(2)), null);
    assertNotTimeEncoded(ID, written(2000, Instant.parse("2024-05-01T00:00:00Z"), Instant.parse("2024-05-30T00:00:00Z"),
        snowflake(TWITTER_EPOCH, 22, 1), 0), young, "older than the table");
    assertNotTimeEncoded(TEXT_ID, written(2000, Instant.parse("2024-05-01T00:00:00Z"),
        Instant.parse("2024-05-30T00:00:00Z"), orderNumber("ORD-"), 0), young, "dated before the table");
    // Ids that say next week, and order numbers dated next month. (Sixty-four-bit ids from the future are not a
    // twin: read against a later epoch they are ids from the past, and the evidence names that layout.)
    assertNotTimeEncoded(TEXT_ID, written(2000, NOW.plus(Duration.ofDays(3)), NOW.plus(Duration.ofDays(9)),
        ulid(""), 0), "ULIDs in the future");
    assertNotTimeEncoded(ID, written(2000, NOW.plus(Duration.ofDays(30)), NOW.plus(Duration.ofDays(60)),
        orderNumber(null), 0), "order numbers dated next month");
    // Personal numbers (date of birth first) loaded in sorted order by one transaction.
    assertNotTimeEncoded(TEXT_ID, written(2000, Instant.parse("1950-01-01T00:00:00Z"),
        Instant.parse("2005-01-01T00:00:00Z"), orderNumber(""), 2000), "dates of birth");
  }

  @Test
  void idsThatDoNotArriveInOrderAreNotTimeEncoded() {
    WrittenKeys w = written(2000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 0);
    List<Object> shuffled = new ArrayList<>(w.keys());
    java.util.Collections.shuffle(shuffled, new Random(29));
    // Stored in random order (made elsewhere, imported in any order).
    assertNotTimeEncoded(column("id", BIGINT), new WrittenKeys(shuffled, w.keys(), w.transactionAges()),
        "shuffled physical order");
    // Stored in order, but the newest keys were written by older transactions.
    List<Long> reversed = new ArrayList<>(w.transactionAges());
    java.util.Collections.reverse(reversed);
    assertNotTimeEncoded(ID, new WrittenKeys(w.physical(), w.keys(), reversed), "transactions against key order");
    // pg_stats says the values are not stored in order, whatever the sample shows.
    assertNotTimeEncoded(withCorrelation(column("id", BIGINT), 0.3), w, "low correlation");
  }

  @Test
  void withoutTheKeyOrderTailNothingIsProven() {
    WrittenKeys w = written(2000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 0);
    PgTable t = table("t", 1, List.of(ID), List.of(), List.of());
    KeySample physicalOnly = new KeySample("public.t", List.of("id"), w.physical().stream().map(v -> List.of(v))
        .toList(), true);
    assertThat(MonotonicityDetector.detect(catalog(List.of(t), List.of()), t, t.columns().get(0), physicalOnly))
        .map(Monotonicity::cause).isNotEqualTo(Optional.of(Monotonicity.Cause.TIME_ENCODED_ID));
  }
}
