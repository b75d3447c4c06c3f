package dev.pg2spanner.load.write;

import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.metrics.RunMetrics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one run: per table (rows, bytes, rejections, pieces, busy time) and the time split of all
 * workers. The table map is fixed at construction, so workers update it without locks and readers see a
 * consistent-enough snapshot for progress lines.
 */
public final class ProgressTracker {

  /** Counters of one table. */
  public static final class Table {
    public final String name;
    public final int pieces;
    public final long estimatedRows;
    public final LongAdder rows = new LongAdder();
    public final LongAdder bytes = new LongAdder();
    public final LongAdder rejected = new LongAdder();
    public final LongAdder piecesDone = new LongAdder();
    public final LongAdder busyNanos = new LongAdder();
    /** When the first commit of this table landed (System.nanoTime), or 0: the table's rate starts there. */
    public final AtomicLong firstCommitNanos = new AtomicLong();
    /** When the latest commit landed: a finished table's rate ends there. */
    public final AtomicLong lastCommitNanos = new AtomicLong();
    /** The same counts for a monitoring system ({@code --metrics-port}). */
    final RunMetrics.LoadTable meters;

    Table(String name, int pieces, long estimatedRows, RunMetrics.LoadTable meters) {
      this.name = name;
      this.pieces = pieces;
      this.estimatedRows = estimatedRows;
      this.meters = meters;
    }

    public boolean finished() {
      return piecesDone.sum() >= pieces;
    }
  }

  public final long startNanos = System.nanoTime();
  public final LongAdder readNanos = new LongAdder();
  public final LongAdder sinkNanos = new LongAdder();
  public final LongAdder idleNanos = new LongAdder();
  private final Map<String, Table> tables;

  /**
   * @param tableOrder table names in the order they are reported (plan order); tables of {@code pieces} missing
   *     from it are reported after them
   */
  public ProgressTracker(Collection<Piece> pieces, List<String> tableOrder) {
    this(pieces, tableOrder, new RunMetrics());
  }

  /** @param metrics where the per-table counts are also counted for a monitoring system */
  public ProgressTracker(Collection<Piece> pieces, List<String> tableOrder, RunMetrics metrics) {
    Map<String, Integer> count = new LinkedHashMap<>();
    Map<String, Long> estimate = new LinkedHashMap<>();
    for (Piece piece : pieces) {
      count.merge(piece.table(), 1, Integer::sum);
      estimate.merge(piece.table(), Math.max(0, piece.estimatedRows()), Long::sum);
    }
    Map<String, Table> map = new LinkedHashMap<>();
    List<String> order = new ArrayList<>(tableOrder);
    count.keySet().stream().filter(t -> !tableOrder.contains(t)).sorted().forEach(order::add);
    for (String name : order) {
      if (count.containsKey(name)) {
        map.put(name, new Table(name, count.get(name), estimate.get(name), metrics.loadTable(name,
            count.get(name))));
      }
    }
    this.tables = Collections.unmodifiableMap(map);
  }

  public Collection<Table> tables() {
    return tables.values();
  }

  public void committed(String table, long rows, long bytes) {
    Table t = tables.get(table);
    if (t == null || rows == 0) {
      return;
    }
    long now = System.nanoTime();
    t.firstCommitNanos.compareAndSet(0, now);
    t.lastCommitNanos.accumulateAndGet(now, Math::max);
    t.rows.add(rows);
    t.bytes.add(bytes);
    t.meters.rows().increment(rows);
    t.meters.bytes().increment(bytes);
  }

  public void rejected(String table) {
    Table t = tables.get(table);
    if (t != null) {
      t.rejected.increment();
      t.meters.rejected().increment();
    }
  }

  public void pieceDone(String table, long busyNanos) {
    Table t = tables.get(table);
    if (t != null) {
      t.piecesDone.increment();
      t.meters.piecesDone().increment();
      t.busyNanos.add(busyNanos);
    }
  }

  public long totalRows() {
    return tables.values().stream().mapToLong(t -> t.rows.sum()).sum();
  }

  public long totalBytes() {
    return tables.values().stream().mapToLong(t -> t.bytes.sum()).sum();
  }

  public long totalEstimatedRows() {
    return tables.values().stream().mapToLong(t -> t.estimatedRows).sum();
  }
}
