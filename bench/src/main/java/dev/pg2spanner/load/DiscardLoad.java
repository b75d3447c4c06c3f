package dev.pg2spanner.load;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
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
   * @param copy read through {@link CopyPieceReader} (what migrate uses) rather than {@link PieceReader}
   * @param countBytes estimate the bytes of every mutation (costs time: for the warm-up pass)
   * @return rows, bytes (estimated Spanner value bytes of every mutation, 0 unless counted), seconds and the
   *     engine's time split
   */
  public static Map<String, Object> run(Path planFile, String jdbcUrl, int workers, Path work, boolean countBytes,
      boolean copy) throws Exception {
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
    Path runDir = Files.createTempDirectory(work, "discard-" + workers + "w-");
    LoadOptions options = new LoadOptions(workers, 0, runDir, runDir.resolve("dead-letters.jsonl"), true,
        Duration.ofMinutes(10), false);
    PrintWriter quiet = new PrintWriter(Writer.nullWriter());
    SourceConnector source = new SourceConnector(new SourceConfig(jdbcUrl, null));
    long start = System.nanoTime();
    LoadResult result;
    try (SnapshotSession snapshot = SnapshotSession.open(source)) {
      Map<String, TableConverter> converters = TableConverter.compileAll(plan);
      int minPieces = Math.max(10 * plan.target().nodes(), 4 * workers);
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, minPieces, 64L << 20);
      result = new LoadEngine(discard, RetryPolicy.DEFAULT, plan, options, quiet).run(pieces,
          () -> new SnapshotReader(snapshot, converters, copy));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("workers", workers);
    out.put("reader", copy ? "copy" : "jdbc");
    out.put("rows", result.rowsWritten());
    out.put("rejected", result.rowsRejected());
    out.put("bytes", bytes.sum());
    out.put("seconds", seconds);
    out.put("rowsPerS", result.rowsWritten() / seconds);
    out.put("MBPerS", bytes.sum() / 1e6 / seconds);
    out.put("readAndConvertS", result.readTime().toNanos() / 1e9);
    out.put("elapsedEngineS", result.elapsed().toNanos() / 1e9);
    return out;
  }

  /**
   * One worker, one pass over every table, with the time split the engine cannot see: waiting for the next row
   * from the JDBC driver (network, protocol decoding) apart from converting it into Spanner values, and apart from
   * batching (BatchingSink with the discard target, limits included).
   */
  public static Map<String, Object> profile(Path planFile, String jdbcUrl) throws Exception {
    Plan plan = PlanFiles.read(planFile);
    Map<String, TableConverter> converters = TableConverter.compileAll(plan);
    long next = 0;
    long convert = 0;
    long batch = 0;
    long rows = 0;
    SourceConnector source = new SourceConnector(new SourceConfig(jdbcUrl, null));
    WriteCommitter committer = new WriteCommitter(m -> { }, RetryPolicy.DEFAULT);
    try (SnapshotSession snapshot = SnapshotSession.open(source); Connection reader = snapshot.openReader()) {
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, 1, Long.MAX_VALUE);
      ProgressTracker tracker = new ProgressTracker(pieces, plan.tables().stream().map(t -> t.target()).toList());
      BatchingSink sink = new BatchingSink(committer, r -> { }, () -> false, tracker);
      for (Piece piece : pieces) {
        TableConverter converter = converters.get(piece.table());
        sink.begin(piece.table(), 0);
        try (Statement s = reader.createStatement()) {
          s.setFetchSize(PieceReader.FETCH_SIZE);
          try (ResultSet rs = s.executeQuery(converter.selectSql(piece))) {
            while (true) {
              long t0 = System.nanoTime();
              boolean more = rs.next();
              long t1 = System.nanoTime();
              next += t1 - t0;
              if (!more) {
                break;
              }
              TableConverter.Result r = converter.convert(rs);
              long t2 = System.nanoTime();
              convert += t2 - t1;
              if (r instanceof TableConverter.Converted c) {
                sink.accept(c.row());
              }
              batch += System.nanoTime() - t2;
              rows++;
            }
          }
        }
        sink.finish();
      }
    }
    // The same SELECTs as COPY text to a null sink: the server's share (scan plus the select list's ::text and
    // AT TIME ZONE formatting) without any JDBC row handling.
    long copyNanos;
    try (SnapshotSession snapshot = SnapshotSession.open(source); Connection reader = snapshot.openReader()) {
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, 1, Long.MAX_VALUE);
      org.postgresql.copy.CopyManager copy = reader.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
      long c0 = System.nanoTime();
      for (Piece piece : pieces) {
        copy.copyOut("COPY (" + converters.get(piece.table()).selectSql(piece) + ") TO STDOUT",
            java.io.OutputStream.nullOutputStream());
      }
      copyNanos = System.nanoTime() - c0;
    }
    double total = (next + convert + batch) / 1e9;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("copySelectS", copyNanos / 1e9);
    out.put("copySelectRowsPerS", rows / (copyNanos / 1e9));
    out.put("rows", rows);
    out.put("seconds", total);
    out.put("rowsPerS", rows / total);
    out.put("readS", next / 1e9);
    out.put("convertS", convert / 1e9);
    out.put("batchS", batch / 1e9);
    return out;
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

  /** One worker's reader inside the shared snapshot, as migrate's. */
  private static final class SnapshotReader implements PieceSource {
    private final Connection connection;
    private final PieceReader reader;
    private final CopyPieceReader copyReader;

    SnapshotReader(SnapshotSession snapshot, Map<String, TableConverter> converters, boolean copy) {
      this.connection = snapshot.openReader();
      this.reader = copy ? null : new PieceReader(converters, PieceReader.FETCH_SIZE);
      this.copyReader = copy ? new CopyPieceReader(converters) : null;
    }

    @Override
    public long read(Piece piece, RowSink sink) throws Exception {
      return copyReader != null ? copyReader.read(connection, piece, sink) : reader.read(connection, piece, sink);
    }

    @Override
    public void close() throws Exception {
      connection.close();
    }
  }
}
