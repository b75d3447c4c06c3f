package dev.pg2spanner.beam;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.plan.InterleaveTree;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.transforms.Wait;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;

/**
 * The load as composed, named Beam transforms; the same pieces, converters, batching and commits as the in-process
 * loader.
 *
 * <pre>
 * Level N/Pieces            Create of the PiecePlanner.cut pieces of interleave level N
 * Level N/Wait for level N-1  (N &gt; 0) children start only after their parents' rows are written
 * Level N/Load pieces       Reshuffle (spread pieces over workers) → LoadPiece (JDBC + TableConverter + the
 *                           loader's BatchingSink and WriteCommitter: each piece's rows are committed where they
 *                           were read)
 * Dead letters/Flatten → Dead letters/Write (TextIO, one file)
 * </pre>
 *
 * <p>Rows never cross between steps: only pieces (before the Reshuffle), one count per piece and the dead letters do.
 * See {@link LoadPiece} for why the write is not a step of its own.
 *
 * <p>Levels: the emulator (and real Spanner with {@code INTERLEAVE IN PARENT}) refuses a child row whose parent row
 * does not exist yet, so level N's pieces wait on level N-1's written counts ({@link Wait#on}), as the in-process
 * engine starts a level only when the one above is done.
 *
 * <p>Order: pieces are ctid block ranges, so each worker's rows arrive in physical (not key) order, and the Reshuffle
 * hands whole pieces to different workers, so concurrent workers write different, scattered parts of the key space,
 * and nothing sorts a worker's rows by key before a commit (the rule "write in non-key order across partitioned
 * workers"; SpannerIO's default grouping sorted 1000 batches by key).
 *
 * <p>Snapshot: the readers import the launcher's exported snapshot when one is given (see {@link JdbcPieceSources});
 * on the DirectRunner the launcher is the same JVM and keeps its transaction open until the pipeline returns. On
 * Dataflow that means the launcher must stay up and wait for the job; a launcher that cannot wait must run without a
 * snapshot id, and then each worker reads in a snapshot of its own, which is consistent only if the source takes no
 * writes during the load (verify will show the difference otherwise).
 */
public final class LoadPipeline {

  static final String METRICS = "pg2spanner";
  static final String ROWS_READ = "rowsRead";
  static final String ROWS_CONVERTED = "rowsConverted";
  static final String ROWS_REJECTED = "rowsRejected";
  static final String ROWS_FAILED = "rowsFailedInSpanner";
  static final String ROWS_COMMITTED = "rowsCommitted";
  static final String READ_NANOS = "readNanos";
  static final String BATCH_NANOS = "batchNanos";
  static final String WRITE_NANOS = "writeNanos";
  static final String COMMITS = "commits";

  private LoadPipeline() {}

  /**
   * What a finished job did, from its metrics.
   *
   * @param rowsRejected rows the converters rejected
   * @param rowsFailed rows no commit could hold or Spanner refused
   * @param readNanos time in the sources (JDBC and conversion), summed over {@link LoadPiece} calls
   * @param batchNanos time batching rows and bisecting refused batches, beside the commits themselves
   * @param writeNanos time in commits (each attempt, retries included), summed over workers
   * @param commits commits that succeeded
   * @param rowsCommitted rows committed so far (counted as each commit lands, for progress while the job runs)
   */
  public record Counts(long rowsRead, long rowsConverted, long rowsRejected, long rowsFailed, long readNanos,
      long batchNanos, long writeNanos, long commits, long rowsCommitted) {
    /** Rows Spanner accepted. */
    public long rowsWritten() {
      return rowsConverted - rowsFailed;
    }

    /** Rows in the dead-letter output. */
    public long deadLetters() {
      return rowsRejected + rowsFailed;
    }

    /**
     * The time split in the in-process loader's words: "Worker time: read …, batch …, write … (N commits, R rows
     * each on average)", and, when {@code threads} is known (the DirectRunner's fixed pool), "other …": the rest
     * of {@code threads × elapsed}, which no metric measures (the runner's bundling and shuffles, idle threads).
     * Dataflow and Flink workers have no such fixed total, so it is left out there.
     *
     * @param threads the DirectRunner's target parallelism, or 0 when unknown
     */
    public String timeSplit(java.time.Duration elapsed, int threads) {
      double read = readNanos / 1e9;
      double batch = batchNanos / 1e9;
      double write = writeNanos / 1e9;
      StringBuilder b = new StringBuilder(String.format(java.util.Locale.ROOT,
          "Worker time: read %.1f s, batch %.1f s, write %.1f s (%d commits", read, batch, write, commits));
      if (commits > 0) {
        b.append(String.format(java.util.Locale.ROOT, ", %,d rows each on average", rowsWritten() / commits));
      }
      b.append(')');
      if (threads > 0) {
        double wall = elapsed.toNanos() / 1e9;
        double other = Math.max(0, threads * wall - read - batch - write);
        b.append(String.format(java.util.Locale.ROOT, ", other %.1f s (%d threads x %.1f s minus the measured parts: "
            + "the runner's bundling and shuffles, idle)", other, threads, wall));
      }
      return b.append('.').toString();
    }
  }

  /** Reshuffle, then load each piece: the composite that turns pieces into written counts and rejected rows. */
  static final class LoadPieces extends PTransform<PCollection<PieceSpec>, PCollectionTuple> {
    private static final long serialVersionUID = 1L;
    private final LoadPiece load;

    LoadPieces(LoadPiece load) {
      this.load = load;
    }

    @Override
    public PCollectionTuple expand(PCollection<PieceSpec> pieces) {
      PCollectionTuple rows = pieces
          .apply("Reshuffle", Reshuffle.viaRandomKey())
          .apply("LoadPiece", ParDo.of(load).withOutputTags(LoadPiece.WRITTEN, TupleTagList.of(LoadPiece.REJECTED)));
      rows.get(LoadPiece.WRITTEN).setCoder(VarLongCoder.of());
      rows.get(LoadPiece.REJECTED).setCoder(StringUtf8Coder.of());
      return rows;
    }
  }

  /** Pieces by interleave level, ascending (the launcher's pieces, or placeholders for a dry run). */
  public static Map<Integer, List<PieceSpec>> byLevel(List<Piece> pieces) {
    Map<Integer, List<PieceSpec>> levels = new TreeMap<>();
    for (Piece piece : pieces) {
      levels.computeIfAbsent(piece.level(), l -> new ArrayList<>()).add(PieceSpec.of(piece));
    }
    return levels;
  }

  /**
   * One placeholder piece per planned table at its interleave level, for drawing the graph without a source
   * ({@code --dry-run}); the real pieces are cut at launch inside the snapshot.
   */
  public static Map<Integer, List<PieceSpec>> outline(Plan plan) {
    Map<Integer, List<PieceSpec>> levels = new TreeMap<>();
    List<List<String>> byLevel = InterleaveTree.of(plan).levels();
    for (int level = 0; level < byLevel.size(); level++) {
      for (String target : byLevel.get(level)) {
        String source = plan.tableByTarget(target).orElseThrow().source();
        levels.computeIfAbsent(level, l -> new ArrayList<>()).add(new PieceSpec(target + "#outline", target, source,
            "", "", true, 0, null, level, 0));
      }
    }
    return levels;
  }

  /**
   * Adds the load to {@code pipeline}, committing to the Spanner database {@code target}.
   *
   * @param levels pieces by interleave level, ascending; levels without pieces are skipped
   * @param sources opens a reader on each worker
   * @param plan the plan, parsed once by the command (for each table's index count)
   * @param target the Spanner database (its tables must exist)
   * @param deadLetter the dead-letter file (local path or gs://), written as one file, replaced if present
   */
  public static void build(Pipeline pipeline, Map<Integer, List<PieceSpec>> levels, PieceSourceFactory sources,
      Plan plan, SpannerTarget target, String deadLetter) {
    build(pipeline, levels, sources, plan, new SpannerWrites(target), deadLetter);
  }

  /**
   * Adds the load to {@code pipeline} with {@code targets} as what the workers commit to: the product's is
   * {@link SpannerWrites}; a benchmark measures the pipeline's own ceiling with a target that discards.
   */
  public static void build(Pipeline pipeline, Map<Integer, List<PieceSpec>> levels, PieceSourceFactory sources,
      Plan plan, WriteTargets targets, String deadLetter) {
    LoadPiece load = new LoadPiece(sources, targets, indexCounts(plan.tables()));
    List<PCollection<String>> deadLetters = new ArrayList<>();
    PCollection<Long> previous = null;
    int previousLevel = -1;
    for (Map.Entry<Integer, List<PieceSpec>> level : new TreeMap<>(levels).entrySet()) {
      if (level.getValue().isEmpty()) {
        continue;
      }
      String name = "Level " + level.getKey();
      PCollection<PieceSpec> pieces = pipeline.apply(name + "/Pieces",
          Create.of(level.getValue()).withCoder(SerializableCoder.of(PieceSpec.class)));
      if (previous != null) {
        pieces = pieces.apply(name + "/Wait for level " + previousLevel, Wait.on(previous));
      }
      PCollectionTuple loaded = pieces.apply(name + "/Load pieces", new LoadPieces(load));
      deadLetters.add(loaded.get(LoadPiece.REJECTED));
      previous = loaded.get(LoadPiece.WRITTEN);
      previousLevel = level.getKey();
    }
    PCollectionList<String> all = deadLetters.isEmpty()
        ? PCollectionList.of(pipeline.apply("Dead letters/None", Create.empty(StringUtf8Coder.of())))
        : PCollectionList.of(deadLetters);
    all.apply("Dead letters/Flatten", Flatten.pCollections())
        .apply("Dead letters/Write", TextIO.write().to(deadLetter).withoutSharding());
  }

  /** Each planned table's number of secondary indexes (a row's mutation count is its cells × one more). */
  static Map<String, Integer> indexCounts(java.util.Collection<dev.pg2spanner.plan.TablePlan> tables) {
    Map<String, Integer> counts = new TreeMap<>();
    for (var table : tables) {
      counts.put(table.target(), table.indexes().size());
    }
    return counts;
  }

  /** The load's figures from a finished (or running) job's metrics. */
  public static Counts counts(PipelineResult result) {
    MetricQueryResults metrics = result.metrics().queryMetrics(MetricsFilter.builder()
        .addNameFilter(MetricNameFilter.inNamespace(METRICS)).build());
    Map<String, Long> sums = new java.util.HashMap<>();
    for (MetricResult<Long> counter : metrics.getCounters()) {
      long value = counter.getAttempted() == null ? 0 : counter.getAttempted();
      sums.merge(counter.getName().getName(), value, Long::sum);
    }
    return new Counts(sums.getOrDefault(ROWS_READ, 0L), sums.getOrDefault(ROWS_CONVERTED, 0L),
        sums.getOrDefault(ROWS_REJECTED, 0L), sums.getOrDefault(ROWS_FAILED, 0L), sums.getOrDefault(READ_NANOS, 0L),
        sums.getOrDefault(BATCH_NANOS, 0L), sums.getOrDefault(WRITE_NANOS, 0L), sums.getOrDefault(COMMITS, 0L),
        sums.getOrDefault(ROWS_COMMITTED, 0L));
  }

  /**
   * The names of the pipeline's transforms, indented by nesting, down to {@code maxDepth} levels.
   */
  public static List<String> graph(Pipeline pipeline, int maxDepth) {
    List<String> lines = new ArrayList<>();
    pipeline.traverseTopologically(new Pipeline.PipelineVisitor.Defaults() {
      private int depth;

      @Override
      public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
        if (!node.isRootNode()) {
          add(node);
          depth++;
        }
        return CompositeBehavior.ENTER_TRANSFORM;
      }

      @Override
      public void leaveCompositeTransform(TransformHierarchy.Node node) {
        if (!node.isRootNode()) {
          depth--;
        }
      }

      @Override
      public void visitPrimitiveTransform(TransformHierarchy.Node node) {
        add(node);
      }

      private void add(TransformHierarchy.Node node) {
        if (depth < maxDepth) {
          String full = node.getFullName();
          lines.add("  ".repeat(depth) + (depth == 0 ? full : full.substring(full.lastIndexOf('/') + 1)));
        }
      }
    });
    return List.copyOf(lines);
  }

  /**
   * Waits for the job and returns its counts; a failed job's own {@link Pg2SpannerException}, when one caused it,
   * is rethrown as it is, so the user sees the same sentence as with the in-process runner.
   */
  public static Counts finish(PipelineResult result) {
    return finished(result, waitFor(result, null));
  }

  /**
   * Waits at most {@code timeout} (null: until the job ends) and returns the job's state, or null when it is still
   * running; a failed job's own {@link Pg2SpannerException} is rethrown as in {@link #finish}.
   */
  public static PipelineResult.State waitFor(PipelineResult result, java.time.Duration timeout) {
    try {
      PipelineResult.State state = timeout == null ? result.waitUntilFinish()
          : result.waitUntilFinish(org.joda.time.Duration.millis(Math.max(1, timeout.toMillis())));
      return state == null || !state.isTerminal() ? null : state;
    } catch (RuntimeException e) {
      rethrowOwn(e);
      throw e;
    }
  }

  /** Rethrows the {@link Pg2SpannerException} that caused {@code e}, when one did (a same-JVM worker's). */
  static void rethrowOwn(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof Pg2SpannerException p) {
        throw p;
      }
    }
  }

  /** The counts of a job that ended in {@code state}; anything but DONE is an error. */
  public static Counts finished(PipelineResult result, PipelineResult.State state) {
    if (state != PipelineResult.State.DONE) {
      throw new Pg2SpannerException(ExitCode.DATA_REJECTED, NextStep.STATED,
          "the load job ended in state " + state + " instead "
          + "of DONE; see the runner's log, then run migrate again into an empty database");
    }
    return counts(result);
  }
}
