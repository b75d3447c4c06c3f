package dev.pg2spanner.planner;

import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Proposes the split points of a large top-level table, so that real Spanner spreads its bulk load over the
 * instance's servers from the first commit instead of growing splits as the load goes (Google's "Pre-splitting
 * overview", <a href="https://cloud.google.com/spanner/docs/pre-warm-database">
 * https://cloud.google.com/spanner/docs/pre-warm-database</a>: about 10 split points per node; small instances need
 * none; a split of a parent also splits its interleaved children; for evenly spread keys, points that divide the key
 * space evenly).
 *
 * <p>The points are values of the <em>target</em> key, the key the loaded rows will have:
 * <ul>
 *   <li>hash-shard: the shard column leads, so the points are shard numbers, evenly over 1 … shards − 1;</li>
 *   <li>a key of random or name-based UUIDs (uuid on an integer key, the synthetic key): the text of a UUID is
 *       uniform in its hex digits, so the points are evenly spaced 8-digit hex prefixes;</li>
 *   <li>a kept, bit-reversed or swapped key: the loaded rows keep their values (bit-reversed changes only new ids),
 *       so the points are quantiles of the sampled values of the key's first column, in key order.</li>
 * </ul>
 * Only INT64 and STRING first key columns ascending are split; anything else gets none (the load is still correct,
 * only less spread at its start).
 */
final class SplitPoints {

  /** Tables smaller than this load quickly enough on the splits Spanner makes as they grow. */
  static final long MIN_TABLE_BYTES = 1L << 30;
  /** Google's guidance: about 10 split points per node. */
  static final int PER_NODE = 10;

  private SplitPoints() {}

  /** The split points of {@code t}, or none (small table, one node, interleaved, no usable key or sample). */
  static List<List<String>> propose(TablePlan t, KeySample sample, int nodes) {
    if (t.interleave() != null || nodes < 2 || t.bytesEstimate() < MIN_TABLE_BYTES || t.primaryKey().isEmpty()) {
      return List.of();
    }
    int wanted = PER_NODE * nodes;
    KeyPart lead = t.primaryKey().get(0);
    ColumnPlan column = t.column(lead.column()).orElse(null);
    if (column == null || lead.descending()) {
      return List.of();
    }
    String type = column.targetType();
    KeyStrategy strategy = t.keyStrategy();
    if (strategy.kind() == KeyStrategy.Kind.HASH_SHARD && lead.column().equals(strategy.shardColumn())) {
      return evenly(1, strategy.shards() - 1, wanted);
    }
    boolean uuids = column.conversion() == ValueConversion.KEY_UUID
        || strategy.kind() == KeyStrategy.Kind.SYNTHETIC && column.source() == null;
    if (uuids && type.startsWith("STRING")) {
      List<List<String>> points = new ArrayList<>();
      for (int i = 1; i <= wanted; i++) {
        long prefix = (0x1_0000_0000L * i) / (wanted + 1);
        points.add(List.of(String.format(Locale.ROOT, "%08x", prefix)));
      }
      return points;
    }
    if (column.source() == null || !(type.equals("INT64") || type.startsWith("STRING"))) {
      return List.of();
    }
    List<Object> values = sample.values(column.source());
    TreeSet<Object> distinct = new TreeSet<>((a, b) -> compare(a, b));
    for (Object v : values) {
      if (type.equals("INT64") ? v instanceof Long : v instanceof String) {
        distinct.add(v);
      }
    }
    List<Object> sorted = new ArrayList<>(distinct);
    int n = Math.min(wanted, sorted.size() - 1);
    List<List<String>> points = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      String point = String.valueOf(sorted.get((int) ((long) i * sorted.size() / (n + 1))));
      if (points.isEmpty() || !points.get(points.size() - 1).get(0).equals(point)) {
        points.add(List.of(point));
      }
    }
    return points;
  }

  /** At most {@code count} whole numbers from {@code from} to {@code to}, evenly spaced, ascending. */
  private static List<List<String>> evenly(long from, long to, int count) {
    List<List<String>> points = new ArrayList<>();
    long span = to - from + 1;
    if (span <= 0) {
      return points;
    }
    int n = (int) Math.min(span, count);
    for (int i = 0; i < n; i++) {
      String point = String.valueOf(from + (span * i) / n);
      if (points.isEmpty() || !points.get(points.size() - 1).get(0).equals(point)) {
        points.add(List.of(point));
      }
    }
    return points;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    return ((Comparable) a).compareTo(b);
  }
}
