package dev.pg2spanner.load;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.load.convert.CopyLine;
import dev.pg2spanner.load.convert.CopyTuple;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.read.CopyPieceReader;
import dev.pg2spanner.load.read.PieceReader;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.load.write.BatchingSink;
import dev.pg2spanner.load.write.ProgressTracker;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.load.write.WriteCommitter;
import dev.pg2spanner.load.write.WriteTarget;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Benchmark only (issue 18): the in-process loader with Spanner replaced by a target that counts the converted
 * mutations' bytes and discards them, so the figures show pg2spanner's own ceiling (read, convert, batch) rather
 * than the emulator's. It lives in the bench sources, in the loader's package for {@link LoadEngine}'s
 * package-private {@link WriteTarget} seam; nothing of it ships in the product.
 */
public final class DiscardLoad {

  private DiscardLoad() {}

  /**
   * The whole loader (pieces, workers, batching, checkpoints) into the discard target.
   *
   * @param reader "copy": {@link CopyPieceReader}, in binary (what migrate uses); "copy-text":
   *     the same reader with every table copied as text; "jdbc": {@link PieceReader}'s result sets
   * @param countBytes estimate the bytes of every mutation (costs time: for the warm-up pass)
   * @return rows, bytes (estimated Spanner value bytes of every mutation, 0 unless counted), seconds and the
   *     engine's time split
   */
  public static Map<String, Object> run(Path planFile, String jdbcUrl, int workers, Path work, boolean countBytes,
      String reader) throws Exception {
    Plan plan = PlanFiles.read(planFile);
    LongAdder bytes = new LongAdder();
    LongAdder mutations = new LongAdder();
    // Counting bytes walks every value again: done on the warm-up pass only, so measured passes pay nothing for it.
    WriteTarget discard = batch -> {
      if (countBytes) {
        for (Mutation m : batch) {
          bytes.add(bytes(m));
        }
      }
      mutations.add(batch.size());
    };
    LongAdder serverCpuTicks = new LongAdder();
    long start = System.nanoTime();
    long jvmCpuStart = jvmCpuNanos();
    LoadResult result = load(plan, jdbcUrl, workers, Files.createTempDirectory(work, "discard-" + workers + "w-"),
        discard, reader, serverCpuTicks);
    double seconds = (System.nanoTime() - start) / 1e9;
    double jvmCpuS = (jvmCpuNanos() - jvmCpuStart) / 1e9;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("workers", workers);
    out.put("reader", reader);
    out.put("rows", result.rowsWritten());
    out.put("rejected", result.rowsRejected());
    out.put("bytes", bytes.sum());
    out.put("seconds", seconds);
    out.put("rowsPerS", result.rowsWritten() / seconds);
    out.put("MBPerS", bytes.sum() / 1e6 / seconds);
    out.put("readAndConvertS", result.readTime().toNanos() / 1e9);
    // CPU per row: this JVM (loader threads, JIT and GC alike) and the readers' PostgreSQL backends, from /proc.
    out.put("jvmCpuS", jvmCpuS);
    out.put("serverCpuS", serverCpuTicks.sum() / (double) CLOCK_TICKS);
    out.put("jvmCpuUsPerRow", jvmCpuS * 1e6 / Math.max(1, result.rowsWritten()));
    out.put("serverCpuUsPerRow", serverCpuTicks.sum() * 1e6 / CLOCK_TICKS / Math.max(1, result.rowsWritten()));
    out.put("elapsedEngineS", result.elapsed().toNanos() / 1e9);
    return out;
  }

  /**
   * The whole loader as migrate runs it (pieces cut as migrate cuts them, parents first, checkpoints in
   * {@code runDir}), committing into {@code target}.
   */
  private static LoadResult load(Plan plan, String jdbcUrl, int workers, Path runDir, WriteTarget target,
      String reader, LongAdder serverCpuTicks) throws Exception {
    if (!List.of("copy", "copy-text", "jdbc").contains(reader)) {
      throw new IllegalArgumentException("reader " + reader + ": copy, copy-text or jdbc");
    }
    LoadOptions options = new LoadOptions(workers, 0, runDir, runDir.resolve("dead-letters.jsonl"), true,
        Duration.ofMinutes(10), false);
    PrintWriter quiet = new PrintWriter(Writer.nullWriter());
    SourceConnector source = new SourceConnector(new SourceConfig(jdbcUrl, null));
    try (SnapshotSession snapshot = SnapshotSession.open(source)) {
      Map<String, TableConverter> converters = TableConverter.compileAll(plan, !reader.equals("copy-text"));
      int minPieces = Math.max(10 * plan.target().nodes(), 4 * workers);
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, minPieces, 64L << 20);
      return new LoadEngine(target, RetryPolicy.DEFAULT, plan, options, quiet).run(pieces,
          () -> new SnapshotReader(snapshot, converters, !reader.equals("jdbc"), serverCpuTicks));
    }
  }

  /**
   * One commit the loader would send: its mutations (all of one table, in the loader's order), the table's
   * interleave level (the load's stage: a level starts only when the one above is committed) and the mutations'
   * estimated bytes ({@link #bytes(Mutation)}).
   */
  public record Batch(int level, List<Mutation> mutations, long bytes) { }

  /**
   * The plan's own commits, captured instead of sent: the whole loader (COPY reader, {@code workers} workers,
   * batching, migrate's piece cut) into a target that keeps every batch it is given, in the order the workers hand
   * them over and with the engine's batch sizes. Everything is held in memory (a few hundred MB at 300,000 rows).
   *
   * @return the batches in commit order, level by level (the engine finishes a level before the next starts)
   */
  public static List<Batch> capture(Path planFile, String jdbcUrl, int workers, Path work) throws Exception {
    Plan plan = PlanFiles.read(planFile);
    Map<String, Integer> levels = PiecePlanner.levels(plan);
    List<Batch> batches = new java.util.ArrayList<>();
    WriteTarget keep = batch -> {
      List<Mutation> copy = List.copyOf(batch);
      long bytes = 0;
      for (Mutation m : copy) {
        bytes += bytes(m);
      }
      Integer level = levels.get(copy.get(0).getTable());
      if (level == null) {
        throw new IllegalStateException("a batch for table " + copy.get(0).getTable() + ", which the plan lacks");
      }
      synchronized (batches) {
        batches.add(new Batch(level, copy, bytes));
      }
    };
    LoadResult result = load(plan, jdbcUrl, workers, Files.createTempDirectory(work, "capture-" + workers + "w-"),
        keep, "copy", new LongAdder());
    long captured = batches.stream().mapToLong(b -> b.mutations().size()).sum();
    if (captured != result.rowsWritten() || result.rowsRejected() != 0) {
      throw new IllegalStateException("captured " + captured + " rows of the " + result.rowsWritten() + " the "
          + "loader reports (" + result.rowsRejected() + " rejected)");
    }
    return List.copyOf(batches);
  }

  /** The body of a timed pass: reads one piece into the sink, adding its time split to {@code nanos}. */
  @FunctionalInterface
  private interface TimedRead {
    long read(Connection reader, Piece piece, TableConverter converter, BatchingSink sink, long[] nanos)
        throws Exception;
  }

  /**
   * One worker, one pass over every table of the plan in one snapshot, each piece read by {@code read} into a
   * BatchingSink with the discard target (limits included).
   *
   * @return the rows read
   */
  private static long onePass(Plan plan, SourceConnector source, long[] nanos, TimedRead read) throws Exception {
    Map<String, TableConverter> converters = TableConverter.compileAll(plan);
    WriteCommitter committer = new WriteCommitter(m -> { }, RetryPolicy.DEFAULT);
    long rows = 0;
    try (SnapshotSession snapshot = SnapshotSession.open(source); Connection reader = snapshot.openReader()) {
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, 1, Long.MAX_VALUE);
      ProgressTracker tracker = new ProgressTracker(pieces, plan.tables().stream().map(t -> t.target()).toList());
      BatchingSink sink = new BatchingSink(committer, r -> { }, () -> false, tracker);
      for (Piece piece : pieces) {
        sink.begin(piece.table(), 0);
        rows += read.read(reader, piece, converters.get(piece.table()), sink, nanos);
        sink.finish();
      }
    }
    return rows;
  }

  /** Rows, their total time and the named parts of {@code nanos}, in seconds. */
  private static Map<String, Object> split(long rows, long[] nanos, String... names) {
    long total = 0;
    for (long n : nanos) {
      total += n;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("rows", rows);
    out.put("seconds", total / 1e9);
    out.put("rowsPerS", rows / (total / 1e9));
    for (int i = 0; i < names.length; i++) {
      out.put(names[i] + "S", nanos[i] / 1e9);
    }
    return out;
  }

  /**
   * One worker, one pass over every table, with the time split the engine cannot see: waiting for the next row
   * from the JDBC driver (network, protocol decoding) apart from converting it into Spanner values, and apart from
   * batching; then the same SELECTs as COPY text to a null sink (the server's share).
   */
  public static Map<String, Object> profile(Path planFile, String jdbcUrl) throws Exception {
    Plan plan = PlanFiles.read(planFile);
    SourceConnector source = new SourceConnector(new SourceConfig(jdbcUrl, null));
    long[] nanos = new long[3];
    long rows = onePass(plan, source, nanos, (reader, piece, converter, sink, t) -> {
      long n = 0;
      try (Statement s = reader.createStatement()) {
        s.setFetchSize(PieceReader.FETCH_SIZE);
        try (ResultSet rs = s.executeQuery(converter.selectSql(piece))) {
          while (true) {
            long t0 = System.nanoTime();
            boolean more = rs.next();
            long t1 = System.nanoTime();
            t[0] += t1 - t0;
            if (!more) {
              return n;
            }
            TableConverter.Result r = converter.convert(rs);
            long t2 = System.nanoTime();
            t[1] += t2 - t1;
            if (r instanceof TableConverter.Converted c) {
              sink.accept(c.row());
            }
            t[2] += System.nanoTime() - t2;
            n++;
          }
        }
      }
    });
    // The same SELECTs as COPY text to a null sink: the server's share (scan plus the select list's ::text and
    // AT TIME ZONE formatting) without any JDBC row handling.
    long[] copyNanos = new long[1];
    onePass(plan, source, copyNanos, (reader, piece, converter, sink, t) -> {
      long c0 = System.nanoTime();
      long n = reader.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyOut(
          "COPY (" + converter.selectSql(piece) + ") TO STDOUT", java.io.OutputStream.nullOutputStream());
      t[0] += System.nanoTime() - c0;
      return n;
    });
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("copySelectS", copyNanos[0] / 1e9);
    out.put("copySelectRowsPerS", rows / (copyNanos[0] / 1e9));
    out.putAll(split(rows, nanos, "read", "convert", "batch"));
    return out;
  }

  /**
   * One worker, one pass over every table through {@link CopyPieceReader}'s steps (what migrate reads with), timed
   * apart: waiting for the next COPY message from the driver, splitting it into fields (a text line or a binary
   * row, whichever the table is copied as), converting them into a mutation, and batching it.
   */
  public static Map<String, Object> profileCopy(Path planFile, String jdbcUrl) throws Exception {
    Plan plan = PlanFiles.read(planFile);
    SourceConnector source = new SourceConnector(new SourceConfig(jdbcUrl, null));
    long[] nanos = new long[4];
    long rows = onePass(plan, source, nanos, (reader, piece, converter, sink, t) -> {
      String relation = piece.relationSchema() + "." + piece.relationName();
      org.postgresql.copy.CopyOut copy = reader.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
          .copyOut(converter.copySql(piece));
      boolean binary = converter.copiesBinary();
      CopyLine cells = binary ? null : new CopyLine(copy.getFieldCount());
      CopyTuple tuple = binary ? new CopyTuple(copy.getFieldCount()) : null;
      long n = 0;
      while (true) {
        long t0 = System.nanoTime();
        byte[] line = copy.readFromCopy();
        long t1 = System.nanoTime();
        t[0] += t1 - t0;
        if (line == null) {
          return n;
        }
        if (binary && !tuple.take(line, piece)) {
          continue;
        }
        if (!binary) {
          cells.split(line, piece);
        }
        long t2 = System.nanoTime();
        t[1] += t2 - t1;
        TableConverter.Result r = binary ? converter.convertCopied(tuple, relation)
            : converter.convertCopied(cells, relation);
        long t3 = System.nanoTime();
        t[2] += t3 - t2;
        if (r instanceof TableConverter.Converted c) {
          sink.accept(c.row());
        }
        t[3] += System.nanoTime() - t3;
        n++;
      }
    });
    return split(rows, nanos, "read", "split", "convert", "batch");
  }

  /** Estimated bytes of a mutation's values, the way Spanner counts them (roughly: the encoded value sizes). */
  public static long bytes(Mutation m) {
    long total = 0;
    for (Value v : m.getValues()) {
      total += bytes(v);
    }
    return total;
  }

  private static long bytes(Value v) {
    if (v.isNull()) {
      return 0;
    }
    switch (v.getType().getCode()) {
      case STRING:
        return v.getString().length();
      case JSON:
        return v.getJson().length();
      case BYTES:
        return v.getBytes().length();
      case NUMERIC:
        return v.getNumeric().toPlainString().length();
      case BOOL:
        return 1;
      case DATE:
        return 4;
      case TIMESTAMP:
        return 12;
      case ARRAY:
        return v.toString().length();
      default:
        return 8;
    }
  }

  /** Linux's clock ticks per second ({@code getconf CLK_TCK}), the unit of /proc/PID/stat's CPU times. */
  public static final long CLOCK_TICKS = 100;

  private static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** User + system CPU ticks of a local process so far (fields 14 and 15 of /proc/PID/stat), or 0 when unknown. */
  public static long cpuTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
  }

  /** One worker's reader inside the shared snapshot, as migrate's; adds its backend's CPU to a sum on close. */
  private static final class SnapshotReader implements PieceSource {
    private final Connection connection;
    private final PieceReader reader;
    private final CopyPieceReader copyReader;
    private final LongAdder serverCpuTicks;
    private final long backendPid;
    private final long backendTicksAtStart;

    SnapshotReader(SnapshotSession snapshot, Map<String, TableConverter> converters, boolean copy,
        LongAdder serverCpuTicks) {
      this.connection = snapshot.openReader();
      this.reader = copy ? null : new PieceReader(converters, PieceReader.FETCH_SIZE);
      this.copyReader = copy ? new CopyPieceReader(converters) : null;
      this.serverCpuTicks = serverCpuTicks;
      long pid = 0;
      try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getLong(1);
      } catch (java.sql.SQLException e) {
        // no figure for this backend
      }
      this.backendPid = pid;
      this.backendTicksAtStart = cpuTicks(pid);
    }

    @Override
    public long read(Piece piece, RowSink sink) throws Exception {
      return copyReader != null ? copyReader.read(connection, piece, sink) : reader.read(connection, piece, sink);
    }

    @Override
    public void close() throws Exception {
      serverCpuTicks.add(cpuTicks(backendPid) - backendTicksAtStart);
      connection.close();
    }
  }
}
