package dev.pg2spanner.beam;

import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.TupleTag;

/**
 * Reads one piece through the loader's converters: converted rows go to {@link #MUTATIONS}, rows that cannot be
 * converted to {@link #REJECTED} as dead-letter JSON lines (the fields of {@link RejectedRow}, exactly as the
 * in-process dead-letter file writes them). The source (its JDBC connection) is opened once per DoFn instance in
 * {@code @Setup}, not per piece; a failed read throws, so the runner retries the piece, and blind insert-or-update
 * writes make the retry safe.
 *
 * <p>Time: {@link LoadPipeline#READ_NANOS} counts the time in the source (JDBC and conversion) and
 * {@link LoadPipeline#EMIT_NANOS} the time handing rows to the runner, so the runner's summary can split the load's
 * time as the in-process loader does.
 */
public final class ReadPiece extends DoFn<PieceSpec, Mutation> {

  private static final long serialVersionUID = 1L;

  /** Converted rows, ready for SpannerIO. */
  public static final TupleTag<Mutation> MUTATIONS = new TupleTag<>() {};

  /** Rejected rows as JSON lines. */
  public static final TupleTag<String> REJECTED = new TupleTag<>() {};

  private final PieceSourceFactory sources;
  private final Counter rowsRead = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_READ);
  private final Counter rowsConverted = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_CONVERTED);
  private final Counter rowsRejected = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_REJECTED);
  private final Counter readNanos = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.READ_NANOS);
  private final Counter emitNanos = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.EMIT_NANOS);
  private transient PieceSource source;

  public ReadPiece(PieceSourceFactory sources) {
    this.sources = sources;
  }

  @Setup
  public void setup() throws Exception {
    source = sources.open();
  }

  @ProcessElement
  public void process(@Element PieceSpec piece, MultiOutputReceiver out) throws Exception {
    long start = System.nanoTime();
    long[] emitting = new long[1];
    // Once per piece: MultiOutputReceiver.get builds a new receiver on each call.
    OutputReceiver<Mutation> mutations = out.get(MUTATIONS);
    OutputReceiver<String> rejections = out.get(REJECTED);
    long read = source.read(piece.toPiece(), new RowSink() {
      @Override
      public void accept(ConvertedRow row) {
        long t = System.nanoTime();
        rowsConverted.inc();
        mutations.output(row.mutation());
        emitting[0] += System.nanoTime() - t;
      }

      @Override
      public void reject(RejectedRow row) {
        long t = System.nanoTime();
        rowsRejected.inc();
        rejections.output(json(row));
        emitting[0] += System.nanoTime() - t;
      }
    });
    rowsRead.inc(read);
    emitNanos.inc(emitting[0]);
    readNanos.inc(System.nanoTime() - start - emitting[0]);
  }

  @Teardown
  public void teardown() throws Exception {
    if (source != null) {
      source.close();
      source = null;
    }
  }

  /** One dead-letter line (no trailing newline), as the in-process dead-letter file writes it. */
  static String json(RejectedRow row) {
    return DeadLetterFile.line(row);
  }
}
