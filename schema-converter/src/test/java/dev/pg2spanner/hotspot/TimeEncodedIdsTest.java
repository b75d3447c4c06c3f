package dev.pg2spanner.hotspot;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static dev.pg2spanner.fixtures.PgFixtures.withCorrelation;
import static dev.pg2spanner.fixtures.PgFixtures.withStats;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
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
  private static final long TWITTER_EPOCH = 1288834974657L;
  private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

  /** A table of {@code n} rows written by an application: one to four rows per transaction, in time order. */
  private record Written(List<Object> physical, List<Object> keys, List<Long> transactionAges) {}

  /**
   * Rows made at times from {@code start} to {@code end}, key = {@code id.apply(millis)}, inserted in that order in
   * transactions of one to four rows ({@code perTransaction} 0), or all in batches of {@code perTransaction}.
   */
  private static Written written(int n, Instant start, Instant end, LongFunction<Object> id, int perTransaction) {
    Random random = new Random(7);
    List<Object> keys = new ArrayList<>();
    List<Integer> transaction = new ArrayList<>();
    long step = (end.toEpochMilli() - start.toEpochMilli()) / n;
    int tx = 0;
    int left = 0;
    long at = start.toEpochMilli();
    for (int i = 0; i < n; i++) {
      if (left == 0) {
        tx++;
        left = perTransaction > 0 ? perTransaction : 1 + random.nextInt(4);
        at = start.toEpochMilli() + i * step; // a transaction's rows are made a few milliseconds apart
      }
      left--;
      at += 1 + random.nextInt(5);
      keys.add(id.apply(at));
      transaction.add(tx);
    }
    List<Long> ages = new ArrayList<>();
    for (int t : transaction) {
      ages.add((long) (tx - t));
    }
    return new Written(keys, keys, ages);
  }

  /** The sample plan reads: every row in physical order, and the newest 1000 keys in key order with their ages. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static KeySample sample(Written w) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < w.keys().size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparing(i -> (Comparable) w.keys().get(i), Comparator.reverseOrder()));
    List<List<Object>> tailRows = new ArrayList<>();
    List<Long> tailAges = new ArrayList<>();
    for (int i : order.subList(0, Math.min(1000, order.size()))) {
      tailRows.add(List.of(w.keys().get(i)));
      tailAges.add(w.transactionAges().get(i));
    }
    return new KeySample("public.t", List.of("id"), w.physical().stream().map(v -> List.of(v)).toList(), true,
        List.of(new KeyTail(List.of("id"), tailRows, tailAges, NOW)));
  }

  private static Optional<Monotonicity> detect(PgColumn c, Written w, PgTableStats stats) {
    PgTable t = withStats(table("t", 1, List.of(c), List.of(), List.of()), stats);
    return MonotonicityDetector.detect(catalog(List.of(t), List.of()), t, t.columns().get(0), sample(w));
  }

  private static Optional<Monotonicity> detect(PgColumn c, Written w) {
    return detect(c, w, PgTableStats.unknown());
  }

  private static void assertTimeEncoded(PgColumn c, Written w, IdLayout layout) {
    Monotonicity m = detect(c, w).orElseThrow(() -> new AssertionError("not flagged: " + layout));
    assertThat(m.cause()).as(layout.name()).isEqualTo(Monotonicity.Cause.TIME_ENCODED_ID);
    assertThat(m.layout()).isEqualTo(layout);
    assertThat(m.orderOnly()).isFalse();
  }

  /** Not time-encoded: no evidence, or at most order alone (which never changes a key by itself). */
  private static void assertNotTimeEncoded(PgColumn c, Written w, PgTableStats stats, String why) {
    detect(c, w, stats).ifPresent(m -> {
      assertThat(m.cause()).as(why).isNotEqualTo(Monotonicity.Cause.TIME_ENCODED_ID);
      assertThat(m.orderOnly()).as(why).isTrue();
    });
  }

  private static void assertNotTimeEncoded(PgColumn c, Written w, String why) {
    assertNotTimeEncoded(c, w, PgTableStats.unknown(), why);
  }

  private static final Instant MONTH_AGO = NOW.minus(Duration.ofDays(30));
  private static final Instant HOUR_AGO = NOW.minus(Duration.ofHours(1));
  private static final PgColumn ID = withCorrelation(column("id", BIGINT), 0.999);
  private static final PgColumn TEXT_ID = withCorrelation(column("id", TEXT), 0.999);

  private static LongFunction<Object> snowflake(long epoch, int shift, long unit) {
    Random random = new Random(11);
    return ms -> (Object) ((((ms - epoch) / unit) << shift) | random.nextInt(1 << Math.min(shift, 20)));
  }

  private static LongFunction<Object> ulid(String prefix) {
    Random random = new Random(13);
    return ms -> {
      StringBuilder s = new StringBuilder(prefix);
      for (int i = 9; i >= 0; i--) {
        s.append(CROCKFORD.charAt((int) ((ms >>> (5 * i)) & 31)));
      }
      for (int i = 0; i < 16; i++) {
        s.append(CROCKFORD.charAt(random.nextInt(32)));
      }
      return prefix.isEmpty() ? s.toString() : s.toString().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static final LongFunction<Object> KSUID = ksuid(new Random(17));

  private static LongFunction<Object> ksuid(Random random) {
    return ms -> {
      byte[] payload = new byte[16];
      random.nextBytes(payload);
      BigInteger n = BigInteger.valueOf(ms / 1000 - 1400000000L).shiftLeft(128)
          .add(new BigInteger(1, payload));
      StringBuilder s = new StringBuilder();
      BigInteger base = BigInteger.valueOf(62);
      while (n.signum() > 0) {
        BigInteger[] qr = n.divideAndRemainder(base);
        s.append(BASE62.charAt(qr[1].intValue()));
        n = qr[0];
      }
      while (s.length() < 27) {
        s.append('0');
      }
      return s.reverse().toString();
    };
  }

  private static LongFunction<Object> orderNumber(String prefix) {
    DateTimeFormatter day = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
    int[] counter = {0};
    return ms -> prefix == null
        ? (Object) (Long.parseLong(day.format(Instant.ofEpochMilli(ms))) * 100_000 + ++counter[0])
        : prefix + day.format(Instant.ofEpochMilli(ms)) + String.format("-%06d", ++counter[0]);
  }

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
  void idsMadeSinceTheStatisticsBeganPassWhenTheStatisticsShowEveryRowIsNew() {
    // 2,000 rows, 2,000 inserts counted since two hours ago: every row is new, and so are its ids.
    PgTableStats young = new PgTableStats(2000.0, 10, 1, 1, 2000L, 0L, 0L, NOW.minus(Duration.ofHours(2)), null);
    assertThat(detect(ID, written(2000, NOW.minus(Duration.ofMinutes(90)), NOW.minus(Duration.ofMinutes(1)),
        snowflake(TWITTER_EPOCH, 22, 1), 0), young)).map(Monotonicity::cause)
        .contains(Monotonicity.Cause.TIME_ENCODED_ID);
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
    Written dense = written(2000, MONTH_AGO, HOUR_AGO, ms -> 0L, 0);
    List<Object> ids = new ArrayList<>();
    for (int i = 0; i < dense.keys().size(); i++) {
      ids.add(1_000_000L + i);
    }
    assertNotTimeEncoded(ID, new Written(ids, ids, dense.transactionAges()), "dense ids");
    // Large external numbers (15-digit device ids) in order decode to the first day of Twitter's epoch.
    List<Object> imeis = new ArrayList<>();
    for (int i = 0; i < dense.keys().size(); i++) {
      imeis.add(356_938_035_643_809L + 7L * i);
    }
    assertNotTimeEncoded(ID, new Written(imeis, imeis, dense.transactionAges()), "device ids");
  }

  @Test
  void randomNumbersAndTokensSortedInOrderAreNotTimeEncoded() {
    Random random = new Random(19);
    Written w = written(2000, MONTH_AGO, HOUR_AGO, ms -> random.nextLong() >>> 1, 0);
    List<Object> sorted = new ArrayList<>(w.keys());
    sorted.sort(null);
    // Random 63-bit numbers written in ascending order: most decode to times in the future.
    assertNotTimeEncoded(ID, new Written(sorted, sorted, w.transactionAges()), "random 63-bit numbers");

    Random tokens = new Random(23);
    for (LongFunction<Object> token : List.<LongFunction<Object>>of(
        ms -> ulid("").apply(tokens.nextLong() >>> 16),
        ms -> ksuid(tokens).apply((1400000000L + (tokens.nextLong() >>> 32)) * 1000))) {
      Written t = written(2000, MONTH_AGO, HOUR_AGO, token, 0);
      List<Object> sortedTokens = new ArrayList<>(t.keys());
      sortedTokens.sort(null);
      assertNotTimeEncoded(TEXT_ID, new Written(sortedTokens, sortedTokens, t.transactionAges()), "random tokens");
    }
  }

  @Test
  void naturalTextKeysInSortedOrderAreNotTimeEncoded() {
    Written w = written(2000, MONTH_AGO, HOUR_AGO, ms -> "", 0);
    List<Object> skus = new ArrayList<>();
    List<Object> emails = new ArrayList<>();
    for (int i = 0; i < w.keys().size(); i++) {
      skus.add(String.format("SKU-%08d", i));
      emails.add(String.format("customer%05d@example.com", i));
    }
    assertNotTimeEncoded(TEXT_ID, new Written(skus, skus, w.transactionAges()), "sorted SKUs");
    assertNotTimeEncoded(TEXT_ID, new Written(emails, emails, w.transactionAges()), "sorted e-mail addresses");
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
    Written w = written(2000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 0);
    List<Object> shuffled = new ArrayList<>(w.keys());
    java.util.Collections.shuffle(shuffled, new Random(29));
    // Stored in random order (made elsewhere, imported in any order).
    assertNotTimeEncoded(column("id", BIGINT), new Written(shuffled, w.keys(), w.transactionAges()),
        "shuffled physical order");
    // Stored in order, but the newest keys were written by older transactions.
    List<Long> reversed = new ArrayList<>(w.transactionAges());
    java.util.Collections.reverse(reversed);
    assertNotTimeEncoded(ID, new Written(w.physical(), w.keys(), reversed), "transactions against key order");
    // pg_stats says the values are not stored in order, whatever the sample shows.
    assertNotTimeEncoded(withCorrelation(column("id", BIGINT), 0.3), w, "low correlation");
  }

  @Test
  void withoutTheKeyOrderTailNothingIsProven() {
    Written w = written(2000, MONTH_AGO, HOUR_AGO, snowflake(TWITTER_EPOCH, 22, 1), 0);
    PgTable t = table("t", 1, List.of(ID), List.of(), List.of());
    KeySample physicalOnly = new KeySample("public.t", List.of("id"), w.physical().stream().map(v -> List.of(v))
        .toList(), true);
    assertThat(MonotonicityDetector.detect(catalog(List.of(t), List.of()), t, t.columns().get(0), physicalOnly))
        .map(Monotonicity::cause).isNotEqualTo(Optional.of(Monotonicity.Cause.TIME_ENCODED_ID));
  }
}
