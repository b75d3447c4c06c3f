package dev.pg2spanner.verify;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.ReadOnlyTransaction;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Verify: per plan table, the row count and an order-independent checksum of canonical row values on the source
 * and on Spanner, and when they differ, the first differing keys.
 *
 * <p>What is compared: every loaded column ({@link ColumnPlan#isLoaded()}) in plan order; generated and synthetic
 * columns are skipped because they are not source data (a synthetic {@code row_id} is random per target row).
 * A row's hash is {@link Canonical#rowHash}; a table's checksum is (row count, sum of row hashes mod 2^128).
 *
 * <p>Consistency: every target table is read at one strong read timestamp taken when {@code verify()} starts, so
 * the target side is one consistent point in time (also in the second pass). That timestamp must stay within the
 * database's version retention period (1 hour by default) until the last read starts; a longer verify fails with
 * Spanner's FAILED_PRECONDITION, reported as a target error.
 *
 * <p>Memory is bounded whatever the table size: the checksums need none; naming differing keys uses key buckets,
 * see {@link TableScan}; the target is read in primary-key ranges of bounded size ({@link TargetRanges}), because
 * the Spanner client may buffer a whole query's result before returning its first row; the source is streamed by
 * its {@link SourceRows}. Tables run in parallel on {@code threads} threads; within a table the source and target
 * passes run concurrently.
 */
public final class Verifier {

  /** At most this many differing keys are named per table. */
  public static final int MAX_DIFFERING_KEYS = 10;
  /** Keys longer than this (e.g. whole-row keys of tables without a source key) are cut in reports. */
  public static final int MAX_KEY_CHARS = 200;

  private final Plan plan;
  private final DatabaseClient target;
  private final SourceRows source;
  private final int threads;
  private final int rowsPerRead;

  /**
   * @param plan the plan whose tables are verified; not null
   * @param target the migrated database; not null
   * @param source the source rows, converted as the loader converts them; not null
   * @param threads tables verified at once, at least 1
   */
  public Verifier(Plan plan, DatabaseClient target, SourceRows source, int threads) {
    this(plan, target, source, threads, 0);
  }

  /**
   * Like {@link #Verifier(Plan, DatabaseClient, SourceRows, int)}, with the size of the target's key-range reads
   * fixed (tests use small ranges to cut small tables into many).
   *
   * @param rowsPerRead about this many target rows per read; 0 to derive it from each table's size estimate
   *     (about 4 MiB of rows, 100 to 20,000 rows)
   */
  public Verifier(Plan plan, DatabaseClient target, SourceRows source, int threads, int rowsPerRead) {
    this.plan = Objects.requireNonNull(plan, "plan");
    this.target = Objects.requireNonNull(target, "target");
    this.source = Objects.requireNonNull(source, "source");
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
    if (rowsPerRead < 0) {
      throw new IllegalArgumentException("rowsPerRead must be 0 or more, was " + rowsPerRead);
    }
    this.threads = threads;
    this.rowsPerRead = rowsPerRead;
  }

  /** The columns verify compares, in plan order: every loaded column. */
  public static List<ColumnPlan> loadedColumns(TablePlan table) {
    return table.columns().stream().filter(ColumnPlan::isLoaded).toList();
  }

  public List<TableVerification> verify() throws Exception {
    return verify(plan.tables(), strongReadTimestamp());
  }

  /**
   * Verifies {@code tables} of the plan with the target read at {@code readAt} (a consistent cut's timestamp, which
   * must stay within the database's version retention period until the last read starts).
   */
  public List<TableVerification> verify(List<TablePlan> tables, Timestamp readAt) throws Exception {
    ExecutorService tablePool = Executors.newFixedThreadPool(threads, daemonThreads("verify-table-"));
    // A second pool for the target passes: each table task waits only on its own target pass, and at most
    // `threads` table tasks run, so this pool can never starve them.
    ExecutorService targetPool = Executors.newFixedThreadPool(threads, daemonThreads("verify-target-"));
    try {
      List<Future<TableVerification>> futures = new ArrayList<>();
      for (TablePlan table : tables) {
        futures.add(tablePool.submit(() -> verifyTable(table, readAt, targetPool)));
      }
      List<TableVerification> results = new ArrayList<>();
      for (Future<TableVerification> f : futures) {
        results.add(await(f));
      }
      return results;
    } finally {
      tablePool.shutdownNow();
      targetPool.shutdownNow();
    }
  }

  /**
   * An aligned text table for the terminal: table | source rows | target rows | checksum | first differing keys
   * (one per line, under each other).
   */
  public static String render(List<TableVerification> results) {
    // The dead-lettered column appears only when some table has rows it leaves out or cannot convert.
    boolean uncompared = results.stream().anyMatch(r -> r.leftOut() > 0 || r.unconverted() > 0);
    List<String> headers = new ArrayList<>(List.of("table", "source rows"));
    if (uncompared) {
      headers.add("dead-lettered");
    }
    headers.addAll(List.of("target rows", "checksum", "first differing keys"));
    List<String[]> rows = new ArrayList<>();
    for (TableVerification r : results) {
      List<String> keys = r.differingKeys();
      List<String> row = new ArrayList<>(List.of(r.table(), count(r.sourceRowsRead())));
      if (uncompared) {
        row.add(count(r.leftOut()));
      }
      row.addAll(List.of(count(r.targetRows()), r.matches() ? "equal" : "DIFFERENT", keys.isEmpty() ? "" : keys.get(0)));
      rows.add(row.toArray(String[]::new));
      for (int i = 1; i < keys.size(); i++) {
        String[] more = new String[headers.size()];
        java.util.Arrays.fill(more, "");
        more[more.length - 1] = keys.get(i);
        rows.add(more);
      }
    }
    int columns = headers.size();
    int[] width = new int[columns];
    for (int c = 0; c < columns; c++) {
      width[c] = headers.get(c).length();
      for (String[] row : rows) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headers.toArray(String[]::new), width);
    String[] rule = new String[columns];
    for (int c = 0; c < columns; c++) {
      rule[c] = "-".repeat(width[c]);
    }
    line(out, rule, width);
    for (String[] row : rows) {
      line(out, row, width);
    }
    for (TableVerification r : results) {
      if (r.leftOut() > 0 || r.unconverted() > 0) {
        out.append(r.table()).append(": ").append(count(r.sourceRowsRead())).append(" source rows");
        if (r.leftOut() > 0) {
          out.append(", ").append(count(r.leftOut())).append(" rejected to the dead-letter file");
        }
        if (r.unconverted() > 0) {
          out.append(", ").append(count(r.unconverted())).append(" not convertible and listed in no dead-letter "
              + "file (so missing in the target)");
        }
        out.append(", ").append(count(r.sourceRows())).append(" compared\n");
      }
    }
    long differing = results.stream().filter(r -> !r.matches()).count();
    out.append(differing == 0
        ? results.size() + " table(s) verified: all match.\n"
        : differing + " of " + results.size() + " table(s) differ.\n");
    long unconverted = results.stream().mapToLong(TableVerification::unconverted).sum();
    if (unconverted > 0) {
      out.append(count(unconverted) + " source row(s) could not be converted and no dead-letter file lists them: "
          + "they are not in the target. If migrate rejected them (within --max-bad-rows), give verify that run's "
          + "dead-letter file (--dead-letter FILE, or --run-dir DIR); otherwise migrate them (see the reasons above "
          + "and report.md).\n");
    }
    return out.toString();
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static void line(StringBuilder out, String[] cells, int[] width) {
    StringBuilder l = new StringBuilder();
    for (int c = 0; c < cells.length; c++) {
      boolean numeric = c > 0 && c < cells.length - 2;
      String pad = " ".repeat(width[c] - cells[c].length());
      l.append(numeric ? pad + cells[c] : cells[c] + pad);
      if (c < cells.length - 1) {
        l.append(" | ");
      }
    }
    out.append(l.toString().stripTrailing()).append('\n');
  }

  private TableVerification verifyTable(TablePlan table, Timestamp readAt, ExecutorService targetPool)
      throws Exception {
    Columns columns = Columns.of(table);
    TargetTable targetTable = new TargetTable(table, columns, readAt);
    Future<TableScan> targetFirst = targetPool.submit(() -> targetTable.read(TableScan.firstPass()));
    Uncompared uncompared = new Uncompared();
    TableScan sourceFirst = readSource(table, columns, TableScan.firstPass(), uncompared);
    TableScan targetScan = await(targetFirst);
    List<String> differing = new ArrayList<>(uncompared.keys);
    if (!sourceFirst.total().sameAs(targetScan.total())) {
      BitSet buckets = TableScan.differingBuckets(sourceFirst, targetScan, MAX_DIFFERING_KEYS);
      Future<TableScan> targetSecond = targetPool.submit(() -> targetTable.read(TableScan.secondPass(buckets)));
      TableScan sourceSecond = readSource(table, columns, TableScan.secondPass(buckets), new Uncompared());
      for (String key : differingKeys(sourceSecond, await(targetSecond))) {
        if (differing.size() < MAX_DIFFERING_KEYS) {
          differing.add(key);
        }
      }
    }
    return new TableVerification(table.target(), sourceFirst.total().rows(), targetScan.total().rows(),
        sourceFirst.total().hex(), targetScan.total().hex(), differing, uncompared.leftOut,
        uncompared.unconverted);
  }

  /** The source rows of one pass that were not compared: left out (dead-lettered) or not convertible. */
  private static final class Uncompared {
    long leftOut;
    long unconverted;
    final List<String> keys = new ArrayList<>();

    void unconverted(String key, String reason) {
      unconverted++;
      if (keys.size() < MAX_DIFFERING_KEYS) {
        keys.add("not convertible, in no dead-letter file: " + shorten(key) + " (" + reason + ")");
      }
    }
  }

  private static List<String> differingKeys(TableScan source, TableScan target) {
    TreeSet<String> keys = new TreeSet<>(source.keys().keySet());
    keys.addAll(target.keys().keySet());
    List<String> differing = new ArrayList<>();
    for (String key : keys) {
      Checksum s = source.keys().get(key);
      Checksum t = target.keys().get(key);
      long sourceCount = s == null ? 0 : s.rows();
      long targetCount = t == null ? 0 : t.rows();
      String what;
      // By count first: a key with more rows on one side (always so for a real key, and for a whole-row key
      // one copy of a duplicated row) is missing or extra; the same count with another hash is a changed row.
      if (sourceCount > targetCount) {
        what = "missing in target: ";
      } else if (targetCount > sourceCount) {
        what = "extra in target: ";
      } else if (!s.sameAs(t)) {
        what = "different: ";
      } else {
        continue;
      }
      differing.add(what + shorten(key));
      if (differing.size() == MAX_DIFFERING_KEYS) {
        break;
      }
    }
    return differing;
  }

  private static String shorten(String key) {
    return key.length() <= MAX_KEY_CHARS ? key : key.substring(0, MAX_KEY_CHARS - 1) + "…";
  }

  private TableScan readSource(TablePlan table, Columns columns, TableScan scan, Uncompared uncompared)
      throws Exception {
    source.forEach(table, new SourceRows.Sink() {
      @Override
      public void row(String key, List<Value> values) {
        if (values.size() != columns.names().size()) {
          throw new IllegalStateException("the source rows of " + table.target() + " have " + values.size()
              + " values; verify expects the " + columns.names().size() + " loaded columns " + columns.names());
        }
        scan.accept(key != null ? key : columns.keyText(values), values);
      }

      @Override
      public void leftOut(String key) {
        uncompared.leftOut++;
      }

      @Override
      public void unconverted(String key, String reason) {
        uncompared.unconverted(key, reason);
      }
    });
    return scan;
  }

  /** The target side of one table: its key ranges, cut once at the first read, and the range reads. */
  private final class TargetTable {
    private final TablePlan table;
    private final Columns columns;
    private final Timestamp readAt;
    private final List<String> readColumns;
    private List<KeySet> ranges;

    TargetTable(TablePlan table, Columns columns, Timestamp readAt) {
      this.table = table;
      this.columns = columns;
      this.readAt = readAt;
      this.readColumns = TargetRanges.readColumns(table, columns.names());
    }

    /** Reads every row, range by range, into {@code scan}. Called by one thread at a time. */
    TableScan read(TableScan scan) {
      try {
        if (ranges == null) {
          ranges = TargetRanges.of(target, table, readAt,
              rowsPerRead > 0 ? rowsPerRead : TargetRanges.rowsPerRange(table),
              plan.target().spannerDialect());
        }
        int[] positions = columns.names().stream().mapToInt(readColumns::indexOf).toArray();
        for (KeySet range : ranges) {
          try (ResultSet rs = target.singleUse(TimestampBound.ofReadTimestamp(readAt))
              .read(table.target(), range, readColumns)) {
            while (rs.next()) {
              List<Value> values = new ArrayList<>(positions.length);
              for (int p : positions) {
                values.add(rs.getValue(p));
              }
              scan.accept(columns.keyText(values), values);
            }
          }
        }
      } catch (SpannerException e) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "Cannot read target table " + table.target()
            + " (" + e.getErrorCode() + ": " + e.getMessage() + "); check that migrate created it and that "
            + "--target names the migrated database.", e);
      }
      return scan;
    }
  }

  private Timestamp strongReadTimestamp() {
    try (ReadOnlyTransaction tx = target.readOnlyTransaction(TimestampBound.strong());
        ResultSet rs = tx.executeQuery(Statement.of("SELECT 1"))) {
      rs.next();
      return tx.getReadTimestamp();
    } catch (SpannerException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "Cannot start a read on the target database ("
          + e.getErrorCode() + ": " + e.getMessage() + "); check --target and the credentials.", e);
    }
  }

  private static List<Value> keyValues(int[] positions, List<Value> row) {
    List<Value> key = new ArrayList<>(positions.length);
    for (int p : positions) {
      key.add(row.get(p));
    }
    return key;
  }

  /** The loaded column names of a table, how its rows are named, and the positions of those columns among them. */
  private record Columns(List<String> names, RowKey key, int[] keyPositions) {
    static Columns of(TablePlan table) {
      List<String> names = loadedColumns(table).stream().map(ColumnPlan::target).toList();
      RowKey key = RowKey.forVerify(table);
      return new Columns(names, key, key.columns().stream().mapToInt(names::indexOf).toArray());
    }

    String keyText(List<Value> row) {
      return key.text(keyValues(keyPositions, row));
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    try {
      return future.get();
    } catch (ExecutionException e) {
      // The reader's own exception (a Pg2SpannerException, a source SQLException) is the one to report.
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
