package dev.pg2spanner.beam;

import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.row.CommitLimits;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.plan.InterleaveTree;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.io.gcp.spanner.MutationGroup;
import org.apache.beam.sdk.io.gcp.spanner.SpannerConfig;
import org.apache.beam.sdk.io.gcp.spanner.SpannerIO;
import org.apache.beam.sdk.io.gcp.spanner.SpannerWriteResult;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.ValueProvider.StaticValueProvider;
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
 * The load as composed, named Beam transforms; the same pieces, converters and limits as the in-process loader.
 *
 * <pre>
 * Level N/Pieces            Create of the PiecePlanner.cut pieces of interleave level N
 * Level N/Wait for level N-1  (N &gt; 0) children start only after their parents' rows are written
 * Level N/Read pieces       Reshuffle (spread pieces over workers) → ReadPiece (JDBC + TableConverter)
 * Level N/Write to Spanner  SpannerIO.write(), REPORT_FAILURES
 * Level N/Failed rows as JSON
 * Dead letters/Flatten → Dead letters/Write (TextIO, one file)
 * </pre>
 *
 * <p>Levels: the emulator (and real Spanner with {@code INTERLEAVE IN PARENT}) refuses a child row whose parent row
 * does not exist yet, so level N's pieces wait on level N-1's SpannerIO output signal ({@link Wait#on}), as the
 * in-process engine starts a level only when the one above is done.
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
  static final String READ_NANOS = "readNanos";
  static final String EMIT_NANOS = "emitNanos";
  /**
   * SpannerIO's own metric: the milliseconds of each batch's write (its commit, with the retries SpannerIO makes),
   * a distribution whose count is the number of commits. SpannerIO registers it under its WriteGrouped class.
   */
  static final String SPANNERIO_WRITE_NAMESPACE = "org.apache.beam.sdk.io.gcp.spanner.SpannerIO$WriteGrouped";
  static final String SPANNERIO_WRITE_LATENCY = "spanner_write_latency_ms";
  /** SpannerIO's counter of mutation groups (rows: each of ours is a group of one) its commits wrote. */
  static final String SPANNERIO_GROUPS_WRITTEN = "mutation_groups_write_success";

  /**
   * SpannerIO's grouping: 1 means "batch, do not sort". The rule is "write in non-key order across partitioned
   * workers": pieces are ctid block ranges, so each worker's rows arrive in physical (not key) order, and the
   * Reshuffle hands whole pieces to different workers, so concurrent workers write different, scattered parts of
   * the key space. SpannerIO's default (factor 1000) would gather 1000 batches per bundle and sort them by key:
   * each worker would then sweep its buffer from the lowest key upward, and workers that start together would
   * hit the same splits at the same time (the very pattern the rule forbids), while holding up to 1000 × the
   * batch size in memory. The price of not sorting is that one commit may touch more splits; with hotspot-free
   * keys (bit-reversed, hashed, UUID) that is true of any batch anyway. The in-process loader makes the same choice.
   */
  static final int GROUPING_FACTOR = 1;

  /** Rows per commit: Spanner counts a row once per mutation group; our byte and cell targets bind first. */
  static final long MAX_ROWS_PER_COMMIT = 10_000;

  private LoadPipeline() {}

  /**
   * What a finished job did, from its metrics.
   *
   * @param readNanos time in the sources (JDBC and conversion), summed over {@link ReadPiece} calls
   * @param emitNanos time {@link ReadPiece} spent handing rows to the runner
   * @param writeMillis time in SpannerIO's batch writes (commits), summed over batches
   * @param commits batches SpannerIO wrote (failed ones included)
   * @param rowsCommitted rows SpannerIO reports as committed so far (for progress while the job runs)
   */
  public record Counts(long rowsRead, long rowsConverted, long rowsRejected, long rowsFailed, long readNanos,
      long emitNanos, long writeMillis, long commits, long rowsCommitted) {
    /** Rows Spanner accepted. */
    public long rowsWritten() {
      return rowsConverted - rowsFailed;
    }

    /** Rows in the dead-letter output. */
    public long deadLetters() {
      return rowsRejected + rowsFailed;
    }

    /**
     * The time split in the in-process loader's words: "Worker time: read …, emit …, write … (N commits, R rows
     * each on average)", and, when {@code threads} is known (the DirectRunner's fixed pool), "other …": the rest
     * of {@code threads × elapsed}, which no metric measures (the runner's bundling and shuffles, SpannerIO's
     * batching, and idle threads). Dataflow workers have no such fixed total, so it is left out there.
     *
     * @param threads the DirectRunner's target parallelism, or 0 when unknown
     */
    public String timeSplit(java.time.Duration elapsed, int threads) {
      double read = readNanos / 1e9;
      double emit = emitNanos / 1e9;
      double write = writeMillis / 1e3;
      StringBuilder b = new StringBuilder(String.format(java.util.Locale.ROOT,
          "Worker time: read %.1f s, emit %.1f s, write %.1f s (%d commits", read, emit, write, commits));
      if (commits > 0) {
        b.append(String.format(java.util.Locale.ROOT, ", %,d rows each on average", rowsWritten() / commits));
      }
      b.append(')');
      if (threads > 0) {
        double wall = elapsed.toNanos() / 1e9;
        double other = Math.max(0, threads * wall - read - emit - write);
        b.append(String.format(java.util.Locale.ROOT, ", other %.1f s (%d threads x %.1f s minus the measured parts: "
            + "the runner's bundling and shuffles, SpannerIO's batching, idle)", other, threads, wall));
      }
      return b.append('.').toString();
    }
  }

  /** Reshuffle, then read each piece: the composite that turns pieces into mutations and rejected rows. */
  static final class ReadPieces extends PTransform<PCollection<PieceSpec>, PCollectionTuple> {
    private static final long serialVersionUID = 1L;
    private final PieceSourceFactory sources;

    ReadPieces(PieceSourceFactory sources) {
      this.sources = sources;
    }

    @Override
    public PCollectionTuple expand(PCollection<PieceSpec> pieces) {
      PCollectionTuple rows = pieces
          .apply("Reshuffle", Reshuffle.viaRandomKey())
          .apply("ReadPiece", ParDo.of(new ReadPiece(sources))
              .withOutputTags(ReadPiece.MUTATIONS, TupleTagList.of(ReadPiece.REJECTED)));
      rows.get(ReadPiece.MUTATIONS).setCoder(MutationCoder.of());
      rows.get(ReadPiece.REJECTED).setCoder(StringUtf8Coder.of());
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
   * The write of one level's mutations. The product's is always SpannerIO ({@link #build(Pipeline, Map,
   * PieceSourceFactory, String, SpannerTarget, String)}); this seam exists so that a benchmark can measure the
   * pipeline's own ceiling with a sink that discards the mutations (bench sources only, never shipped).
   */
  @FunctionalInterface
  public interface LevelWrite {
    /**
     * The transform that writes one level.
     *
     * @param previous the previous level's written signal, or null for the first level: a write that reads the
     *     target's schema must wait for it
     */
    PTransform<PCollection<Mutation>, SpannerWriteResult> forLevel(PCollection<Void> previous);
  }

  /**
   * Adds the load to {@code pipeline}, writing to Spanner through {@link #write SpannerIO}.
   *
   * @param levels pieces by interleave level, ascending; levels without pieces are skipped
   * @param sources opens a reader on each worker
   * @param planYaml the plan (for the keys of failed rows)
   * @param target the Spanner database (its tables must exist)
   * @param deadLetter the dead-letter file (local path or gs://), written as one file, replaced if present
   */
  public static void build(Pipeline pipeline, Map<Integer, List<PieceSpec>> levels, PieceSourceFactory sources,
      String planYaml, SpannerTarget target, String deadLetter) {
    // SpannerIO reads the schema and encodes keys in GoogleSQL unless told the database's dialect.
    org.apache.beam.sdk.values.PCollectionView<com.google.cloud.spanner.Dialect> dialect =
        PlanFiles.fromYaml(planYaml, "plan.yaml").target().spannerDialect()
            .isPostgres()
            ? pipeline.apply("Dialect", Create.of(com.google.cloud.spanner.Dialect.POSTGRESQL))
                .apply("Dialect/View", org.apache.beam.sdk.transforms.View.asSingleton())
            : null;
    build(pipeline, levels, sources, planYaml, previous -> {
      SpannerIO.Write write = write(target);
      if (dialect != null) {
        write = write.withDialectView(dialect);
      }
      if (previous != null) {
        // SpannerIO reads the schema in a read-only transaction when it starts; two levels reading it at once
        // fail on the emulator ("Invalid transaction ID"), and level N has nothing to write before
        // level N-1 is done anyway.
        write = write.withSchemaReadySignal(previous);
      }
      return write;
    }, deadLetter);
  }

  /**
   * Adds the load to {@code pipeline} with {@code writes} as each level's write; see {@link LevelWrite}.
   */
  public static void build(Pipeline pipeline, Map<Integer, List<PieceSpec>> levels, PieceSourceFactory sources,
      String planYaml, LevelWrite writes, String deadLetter) {
    registerCoders(pipeline);
    List<PCollection<String>> deadLetters = new ArrayList<>();
    PCollection<Void> previous = null;
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
      PCollectionTuple rows = pieces.apply(name + "/Read pieces", new ReadPieces(sources));
      SpannerWriteResult written = rows.get(ReadPiece.MUTATIONS).apply(name + "/Write to Spanner",
          writes.forLevel(previous));
      deadLetters.add(rows.get(ReadPiece.REJECTED));
      deadLetters.add(written.getFailedMutations()
          .apply(name + "/Failed rows as JSON", ParDo.of(new FailedMutationJson(planYaml)))
          .setCoder(StringUtf8Coder.of()));
      previous = written.getOutput();
      previousLevel = level.getKey();
    }
    PCollectionList<String> all = deadLetters.isEmpty()
        ? PCollectionList.of(pipeline.apply("Dead letters/None", Create.empty(StringUtf8Coder.of())))
        : PCollectionList.of(deadLetters);
    all.apply("Dead letters/Flatten", Flatten.pCollections())
        .apply("Dead letters/Write", TextIO.write().to(deadLetter).withoutSharding());
  }

  /**
   * Makes {@link MutationCoder} and {@link MutationGroupCoder} the pipeline's coders for mutations and SpannerIO's
   * mutation groups. SpannerIO's write sets no coders of its own: its steps (mutation to group, the batchable
   * filter, batching, failed mutations) take theirs from the registry, which would otherwise fall back to Java
   * serialisation ({@code MutationGroup} is {@code Serializable}), and runners such as Flink and Dataflow encode
   * every element that passes between those steps.
   */
  static void registerCoders(Pipeline pipeline) {
    pipeline.getCoderRegistry().registerCoderForClass(Mutation.class, MutationCoder.of());
    pipeline.getCoderRegistry().registerCoderForClass(MutationGroup.class, MutationGroupCoder.of());
  }

  /**
   * SpannerIO with the loader's limits: commits of about {@link CommitLimits#TARGET_COMMIT_BYTES} and at most
   * {@link CommitLimits#TARGET_MUTATIONS_PER_COMMIT} cells (SpannerIO counts cells including index entries, as
   * Spanner's 80,000 limit does), no sorting (see {@link #GROUPING_FACTOR}), and failed batches reported rather
   * than failing the job, so they reach the dead-letter output.
   */
  static SpannerIO.Write write(SpannerTarget target) {
    SpannerConfig config = SpannerConfig.create()
        .withProjectId(target.project())
        .withInstanceId(target.instance())
        .withDatabaseId(target.database());
    if (target.isEmulator()) {
      // Explicitly: a config that sets a host without withEmulatorHost would talk to the real endpoint.
      config = config.withEmulatorHost(StaticValueProvider.of(target.emulatorHost()));
    }
    return SpannerIO.write()
        .withSpannerConfig(config)
        .withBatchSizeBytes(CommitLimits.TARGET_COMMIT_BYTES)
        .withMaxNumMutations(CommitLimits.TARGET_MUTATIONS_PER_COMMIT)
        .withMaxNumRows(MAX_ROWS_PER_COMMIT)
        .withGroupingFactor(GROUPING_FACTOR)
        .withFailureMode(SpannerIO.FailureMode.REPORT_FAILURES);
  }

  /** The load's figures from a finished (or running) job's metrics. */
  public static Counts counts(PipelineResult result) {
    MetricQueryResults metrics = result.metrics().queryMetrics(MetricsFilter.builder()
        .addNameFilter(MetricNameFilter.inNamespace(METRICS))
        .addNameFilter(MetricNameFilter.named(SPANNERIO_WRITE_NAMESPACE, SPANNERIO_WRITE_LATENCY))
        .addNameFilter(MetricNameFilter.named(SPANNERIO_WRITE_NAMESPACE, SPANNERIO_GROUPS_WRITTEN)).build());
    long read = 0;
    long converted = 0;
    long rejected = 0;
    long failed = 0;
    long readNanos = 0;
    long emitNanos = 0;
    long committed = 0;
    for (MetricResult<Long> counter : metrics.getCounters()) {
      long value = counter.getAttempted() == null ? 0 : counter.getAttempted();
      if (SPANNERIO_WRITE_NAMESPACE.equals(counter.getName().getNamespace())
          && SPANNERIO_GROUPS_WRITTEN.equals(counter.getName().getName())) {
        committed += value;
      }
      if (!METRICS.equals(counter.getName().getNamespace())) {
        continue;
      }
      switch (counter.getName().getName()) {
        case ROWS_READ -> read += value;
        case ROWS_CONVERTED -> converted += value;
        case ROWS_REJECTED -> rejected += value;
        case ROWS_FAILED -> failed += value;
        case READ_NANOS -> readNanos += value;
        case EMIT_NANOS -> emitNanos += value;
        default -> { }
      }
    }
    long writeMillis = 0;
    long commits = 0;
    for (MetricResult<DistributionResult> d : metrics.getDistributions()) {
      if (SPANNERIO_WRITE_NAMESPACE.equals(d.getName().getNamespace())
          && SPANNERIO_WRITE_LATENCY.equals(d.getName().getName()) && d.getAttempted() != null) {
        writeMillis += d.getAttempted().getSum();
        commits += d.getAttempted().getCount();
      }
    }
    return new Counts(read, converted, rejected, failed, readNanos, emitNanos, writeMillis, commits, committed);
  }

  /**
   * The names of the pipeline's transforms, indented by nesting, down to {@code maxDepth} levels (SpannerIO's
   * internals are many and not the user's concern).
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
      throw new Pg2SpannerException(ExitCode.DATA_REJECTED, "the load job ended in state " + state + " instead "
          + "of DONE; see the runner's log, then run migrate again into an empty database");
    }
    return counts(result);
  }
}
