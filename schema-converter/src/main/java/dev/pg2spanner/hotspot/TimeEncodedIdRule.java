package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Ids the application makes with their creation time in them (Snowflake-style 64-bit ids, ULIDs, KSUIDs, order numbers
 * that start with the date), though nothing in the database generates them: every new row takes a larger key, like a
 * sequence. Proven from the values, for one {@link IdLayout}, only when all of these hold:
 * <ul>
 *   <li>the layout reads at least 99% of the sampled values, in physical order and at the end of the key;</li>
 *   <li>the times advance: the rows read in physical order carry at least two different times;</li>
 *   <li>the times it decodes are plausible: none in the future (beyond a day of clock skew) and none before the table's
 *       lifetime as far as it is known: a day after the layout's epoch (or the year the scheme was published), and, when the
 *       activity statistics show every row was inserted since they began counting, that moment;</li>
 *   <li>the times follow insertion order twice over: rows read in physical order carry non-decreasing times (≥ 90% of
 *       neighbours, and {@code pg_stats.correlation} is not below 0.9 where known), and the newest keys, read in
 *       key order, were written by at least {@value #MIN_TRANSACTIONS} transactions, newer keys by newer transactions
 *       (≥ 90% of neighbours), each transaction's rows within an hour of each other.</li>
 * </ul>
 * The last test is what tells these ids from a natural key that was loaded in sorted order (a product catalogue, a
 * restored copy): those rows were all written by one transaction or a few large ones, whatever their values say.
 * Where several layouts pass (the same 64-bit values read against different epochs), the one whose newest time is
 * latest wins: the others place the newest rows further in the past.
 */
public final class TimeEncodedIdRule implements MonotonicRule {

  /** Fewer rows in physical order than this prove nothing (as for {@link CorrelatedValuesRule}). */
  static final int MIN_SAMPLES = CorrelatedValuesRule.MIN_SAMPLES;
  /** The newest keys must include at least this many rows. */
  static final int MIN_TAIL = 20;
  /** ... written by at least this many transactions. */
  static final int MIN_TRANSACTIONS = 5;
  /** Share of values a layout must read, and of decoded times that must be plausible. */
  static final double MIN_DECODED_SHARE = 0.99;
  /** Share of neighbours (in physical order, and in key order across transactions) that must be in order. */
  static final double MIN_ORDERED_SHARE = 0.9;
  /** Clocks of the application's servers and of the database may disagree by this much. */
  static final Duration CLOCK_ALLOWANCE = Duration.ofDays(1);
  /** The rows one transaction writes carry times at most this far apart (at least the layout's resolution). */
  static final Duration MAX_TRANSACTION_SPAN = Duration.ofHours(1);
  /** Share of the newest transactions allowed a wider span (an update touches older rows too). */
  static final double MAX_WIDE_TRANSACTIONS = 0.1;

  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT)
      .withZone(ZoneOffset.UTC);

  @Override
  public Optional<Monotonicity> detect(PgCatalog catalog, PgTable table, PgColumn column, KeySample sample) {
    if (column.stats() != null && column.stats().correlation() != null
        && column.stats().correlation() < CorrelatedValuesRule.MIN_CORRELATION) {
      return Optional.empty();
    }
    List<Object> values = sample.values(column.name());
    Optional<KeyTail> tail = sample.tail(column.name());
    if (values.size() < MIN_SAMPLES || tail.isEmpty() || tail.get().readAt() == null) {
      return Optional.empty();
    }
    List<KeyTail.Entry> newest = inSpannerOrder(tail.get().entries(column.name()));
    if (newest.size() < MIN_TAIL) {
      return Optional.empty();
    }
    Instant insertedSince = everyRowInsertedSince(table.stats(), tail.get().readAt());
    Proof best = null;
    for (IdLayout layout : IdLayout.values()) {
      Proof proof = prove(layout, values, newest, tail.get().readAt(), insertedSince);
      if (proof != null && (best == null || proof.newest > best.newest)) {
        best = proof;
      }
    }
    return Optional.ofNullable(best).map(p -> p.monotonicity(column.name(), insertedSince));
  }

  /**
   * The tail's rows in the order Spanner keeps them, largest first within each run: PostgreSQL read them in the
   * column's collation, which for text under a linguistic collation ("en_US") is not byte order.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static List<KeyTail.Entry> inSpannerOrder(List<KeyTail.Entry> entries) {
    List<KeyTail.Entry> sorted = new ArrayList<>(entries);
    sorted.sort(java.util.Comparator.comparingInt(KeyTail.Entry::run).thenComparing(
        e -> (Comparable) e.value(), java.util.Comparator.reverseOrder()));
    return sorted;
  }

  /**
   * When the activity statistics show that every row now in the table was inserted since they began counting
   * ({@code n_tup_ins} at least the row count), the moment they began: no id made at insertion is older. Else null.
   */
  static Instant everyRowInsertedSince(PgTableStats stats, Instant now) {
    if (stats.inserts() == null || stats.statsSince() == null || stats.rowEstimate() == null
        || stats.rowEstimate() <= 0 || stats.inserts() < stats.rowEstimate() || stats.statsSince().isAfter(now)) {
      return null;
    }
    return stats.statsSince();
  }

  /** What one layout showed. */
  private record Proof(IdLayout layout, long oldest, long newest, double orderedNeighbours, int transactions,
      double transactionOrder, int sampled, int tailRows, Instant notBefore) {

    Monotonicity monotonicity(String column, Instant insertedSince) {
      Map<String, Object> evidence = new LinkedHashMap<>();
      String from = format(oldest, newest, layout, true);
      String to = format(oldest, newest, layout, false);
      evidence.put("layout", layout.description());
      evidence.put("decodedFrom", from);
      evidence.put("decodedTo", to);
      evidence.put("orderedNeighbours", round(orderedNeighbours));
      evidence.put("sampled", sampled);
      evidence.put("newestKeys", tailRows);
      evidence.put("newestKeysTransactions", transactions);
      evidence.put("newestKeysInTransactionOrder", round(transactionOrder));
      evidence.put("notBefore", SECOND.format(notBefore));
      String floor = notBefore.isAfter(layout.firstPlausible())
          ? "the statistics show every row was inserted since " + SECOND.format(insertedSince) + ", less a day for "
              + "clock skew"
          : "the layout dates from " + DAY.format(layout.firstPlausible());
      return new Monotonicity(column, Monotonicity.Cause.TIME_ENCODED_ID, false, evidence,
          column + " holds ids that encode their creation time, though nothing in the database generates them: "
              + "they encode times from " + from + " to " + to + " in insertion order (" + layout.description()
              + "). " + Math.round(orderedNeighbours * 100) + "% of " + sampled + " rows read in physical order "
              + "carry non-decreasing times, the newest " + tailRows + " keys were written by " + transactions
              + " transactions in key order (" + Math.round(transactionOrder * 100) + "% of neighbours), and no time "
              + "lies in the future or before " + DAY.format(notBefore) + " (" + floor + "), so each new row takes "
              + "a larger key than the last.", layout);
    }
  }

  /** The proof that {@code layout} is how these ids carry their time, or null when any test fails. */
  private static Proof prove(IdLayout layout, List<Object> values, List<KeyTail.Entry> newest, Instant now,
      Instant insertedSince) {
    if (!layout.reads(values.get(0)) || !layout.reads(newest.get(0).value())) {
      return null;
    }
    Instant notBefore = layout.firstPlausible();
    if (insertedSince != null && insertedSince.minus(CLOCK_ALLOWANCE).isAfter(notBefore)) {
      // At the layout's own precision: a number dated yesterday is not older than a table created yesterday evening.
      long unit = layout.resolution().toMillis();
      notBefore = Instant.ofEpochMilli(Math.floorDiv(insertedSince.minus(CLOCK_ALLOWANCE).toEpochMilli(), unit) * unit);
    }
    long low = notBefore.toEpochMilli();
    long high = now.plus(CLOCK_ALLOWANCE).toEpochMilli();
    // Physical order: decodable, plausible, non-decreasing.
    List<Long> times = new ArrayList<>(values.size());
    int plausible = 0;
    for (Object v : values) {
      OptionalLong t = layout.millis(v);
      if (t.isPresent()) {
        times.add(t.getAsLong());
        plausible += t.getAsLong() >= low && t.getAsLong() <= high ? 1 : 0;
      }
    }
    if (times.size() < values.size() * MIN_DECODED_SHARE || plausible < values.size() * MIN_DECODED_SHARE) {
      return null;
    }
    int inOrder = 0;
    for (int i = 1; i < times.size(); i++) {
      inOrder += times.get(i - 1) <= times.get(i) ? 1 : 0;
    }
    double orderedNeighbours = times.size() < 2 ? 0 : (double) inOrder / (times.size() - 1);
    // Times that never advance are not creation times: small or dense numbers all decode to one instant.
    if (orderedNeighbours < MIN_ORDERED_SHARE || times.stream().distinct().limit(2).count() < 2) {
      return null;
    }
    // Key order: decodable, plausible, newer keys written by newer transactions.
    long oldest = times.stream().mapToLong(Long::longValue).min().orElseThrow();
    long newestTime = times.stream().mapToLong(Long::longValue).max().orElseThrow();
    List<long[]> decoded = new ArrayList<>(); // {time, transaction age (or -1), run}
    int tailPlausible = 0;
    for (KeyTail.Entry e : newest) {
      OptionalLong t = layout.millis(e.value());
      if (t.isPresent()) {
        decoded.add(new long[] {t.getAsLong(), e.transactionAge() == null ? -1 : e.transactionAge(), e.run()});
        tailPlausible += t.getAsLong() >= low && t.getAsLong() <= high ? 1 : 0;
        oldest = Math.min(oldest, t.getAsLong());
        newestTime = Math.max(newestTime, t.getAsLong());
      }
    }
    if (decoded.size() < newest.size() * MIN_DECODED_SHARE || tailPlausible < newest.size() * MIN_DECODED_SHARE) {
      return null;
    }
    Set<Long> transactions = new HashSet<>();
    Map<Long, long[]> spans = new HashMap<>(); // transaction age -> {min time, max time}
    int across = 0;
    int acrossInOrder = 0;
    for (int i = 0; i < decoded.size(); i++) {
      long[] row = decoded.get(i);
      if (row[1] < 0) {
        continue;
      }
      transactions.add(row[1]);
      spans.merge(row[1], new long[] {row[0], row[0]},
          (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
      if (i > 0) {
        long[] larger = decoded.get(i - 1); // the previous row has the larger key
        if (larger[1] >= 0 && larger[2] == row[2] && larger[1] != row[1]) {
          across++;
          acrossInOrder += larger[1] < row[1] ? 1 : 0;
        }
      }
    }
    if (transactions.size() < MIN_TRANSACTIONS || across == 0
        || (double) acrossInOrder / across < MIN_ORDERED_SHARE) {
      return null;
    }
    long maxSpan = Math.max(MAX_TRANSACTION_SPAN.toMillis(), layout.resolution().toMillis());
    long wide = spans.values().stream().filter(s -> s[1] - s[0] > maxSpan).count();
    if (wide > transactions.size() * MAX_WIDE_TRANSACTIONS) {
      return null;
    }
    return new Proof(layout, oldest, newestTime, orderedNeighbours, transactions.size(),
        (double) acrossInOrder / across, values.size(), newest.size(), notBefore);
  }

  /** One end of the decoded range, as precise as it needs to be to show the two ends apart. */
  private static String format(long oldest, long newest, IdLayout layout, boolean first) {
    Instant at = Instant.ofEpochMilli(first ? oldest : newest);
    if (layout.resolution().compareTo(Duration.ofDays(1)) >= 0) {
      return DAY.format(at);
    }
    boolean sameMinute = MINUTE.format(Instant.ofEpochMilli(oldest)).equals(MINUTE.format(Instant.ofEpochMilli(newest)));
    return (sameMinute ? SECOND : MINUTE).format(at);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
