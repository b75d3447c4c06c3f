package dev.pg2spanner.beam;

import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.write.BatchingSink;
import dev.pg2spanner.load.write.ProgressTracker;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.load.write.WriteCommitter;
import dev.pg2spanner.metrics.RunMetrics;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.TupleTag;

/**
 * Loads one piece where the runner put it: reads it through the loader's converters and commits its rows with the
 * in-process loader's own sink ({@link BatchingSink}: commits bounded by bytes and by Spanner's mutation count, rows
 * no commit could hold rejected; {@link WriteCommitter}: blind {@code writeAtLeastOnce}, transient failures retried,
 * a refused batch bisected so that only the refused rows are rejected, with Spanner's reason). Outputs the piece's
 * committed row count to {@link #WRITTEN} (the level's "written" signal) and every rejected row, from the source or
 * from Spanner, to {@link #REJECTED} as the in-process dead-letter file's JSON line.
 *
 * <p>Why the write is here and not a separate step (SpannerIO, before issue 34): rows then never travel between the
 * runner's steps. Each one was encoded once and decoded twice at the fusion break after a multi-output ParDo (Flink's
 * batch translation), and grouped and shuffled again inside SpannerIO; on Flink that cost, not the source nor the
 * target, bounded the load (BENCHMARKS.md). What Beam still does is what it is for here: spread the pieces over
 * workers and machines, rerun a lost worker's pieces, and gather the dead letters. A rerun piece is written again,
 * which blind insert-or-update commits make harmless.
 *
 * <p>The source (its JDBC connection) and the target are opened once per DoFn instance in {@code @Setup}, not per
 * piece. A failed read or a commit that failed for good throws, and the runner retries the piece or fails the job.
 */
public final class LoadPiece extends DoFn<PieceSpec, Long> {

  private static final long serialVersionUID = 1L;

  /** Each piece's committed rows: the level's signal that its writes are done. */
  public static final TupleTag<Long> WRITTEN = new TupleTag<>() {};

  /** Rejected rows as JSON lines. */
  public static final TupleTag<String> REJECTED = new TupleTag<>() {};

  /** The way on a commit failure names: a Beam job has no checkpoint to resume from. */
  static final WayOn WAY_ON = WayOn.stated("run migrate again into an empty database (a Beam load has no --resume)");

  private final PieceSourceFactory sources;
  private final WriteTargets targets;
  private final Map<String, Integer> indexes;
  private final Counter rowsRead = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_READ);
  private final Counter rowsConverted = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_CONVERTED);
  private final Counter rowsRejected = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_REJECTED);
  private final Counter rowsFailed = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_FAILED);
  private final Counter rowsCommitted = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_COMMITTED);
  private final Counter readNanos = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.READ_NANOS);
  private final Counter batchNanos = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.BATCH_NANOS);
  private final Counter writeNanos = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.WRITE_NANOS);
  private final Counter commits = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.COMMITS);
  private transient PieceSource source;
  private transient WriteTargets.Opened target;
  private transient WriteCommitter committer;
  private transient BatchingSink sink;
  /** The current piece's dead-letter output (the sink's rejections go there). */
  private transient OutputReceiver<String> rejections;

  /**
   * @param indexes the number of secondary indexes of each table (a row's mutation count is its cells times one
   *     more than that)
   */
  public LoadPiece(PieceSourceFactory sources, WriteTargets targets, Map<String, Integer> indexes) {
    this.sources = Objects.requireNonNull(sources, "sources");
    this.targets = Objects.requireNonNull(targets, "targets");
    this.indexes = Map.copyOf(indexes);
  }

  @Setup
  public void setup() throws Exception {
    source = sources.open();
    target = targets.open();
    // Rows are counted as each commit lands: a piece that fails half-way still counts what it committed.
    WriteTargets.Opened opened = target;
    committer = new WriteCommitter(mutations -> {
      opened.write(mutations);
      rowsCommitted.inc(mutations.size());
    }, RetryPolicy.DEFAULT, RunMetrics.unobserved("load"), WAY_ON);
    sink = new BatchingSink(committer, row -> {
      rowsFailed.inc();
      rejections.output(DeadLetterFile.line(row));
    }, () -> false, new ProgressTracker(List.of(), List.of()));
  }

  @ProcessElement
  public void process(@Element PieceSpec piece, MultiOutputReceiver out) throws Exception {
    long start = System.nanoTime();
    long sinkBefore = sink.sinkNanos();
    long writeBefore = committer.writeNanos();
    long commitsBefore = committer.commits();
    // Once per piece: MultiOutputReceiver.get builds a new receiver on each call.
    rejections = out.get(REJECTED);
    sink.begin(piece.table(), indexes.getOrDefault(piece.table(), 0));
    long read;
    long written;
    try {
      read = source.read(piece.toPiece(), new RowSink() {
        @Override
        public void accept(ConvertedRow row) {
          rowsConverted.inc();
          sink.accept(row);
        }

        @Override
        public void reject(RejectedRow row) {
          rowsRejected.inc();
          rejections.output(DeadLetterFile.line(row));
        }
      });
      written = sink.finish();
    } catch (Pg2SpannerException e) {
      target.gaveUp(e);
      throw e;
    }
    long inSink = sink.sinkNanos() - sinkBefore;
    long inWrite = committer.writeNanos() - writeBefore;
    rowsRead.inc(read);
    readNanos.inc(System.nanoTime() - start - inSink);
    batchNanos.inc(Math.max(0, inSink - inWrite));
    writeNanos.inc(inWrite);
    commits.inc(committer.commits() - commitsBefore);
    out.get(WRITTEN).output(written);
  }

  @Teardown
  public void teardown() throws Exception {
    try {
      if (source != null) {
        source.close();
        source = null;
      }
    } finally {
      if (target != null) {
        target.close();
        target = null;
      }
    }
  }
}
