package dev.pg2spanner.beam;

import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * Benchmark only (issue 18): the product's Beam pipeline ({@link LoadPipeline}: levels, Reshuffle, {@link LoadPiece}
 * with the loader's converters, batching and commit loop, dead letters) with the workers' Spanner replaced, through
 * {@link WriteTargets}, by a target that counts the mutations in Beam metrics and drops them; so the
 * figures show the Beam path's own ceiling on a runner rather than the emulator's. Nothing of it ships in the
 * product.
 */
public final class BeamDiscardLoad {

  static final String METRICS = "bench";
  static final String MUTATIONS = "discardedMutations";

  private BeamDiscardLoad() {}

  /** DirectRunner options as {@code migrate --runner direct} builds them (checks off), {@code threads} threads. */
  public static PipelineOptions direct(int threads) {
    return BeamLoader.directOptions(threads);
  }

  /**
   * FlinkRunner options as {@code migrate --runner flink} builds them: the embedded local cluster. With
   * {@code -Dbench.flinkDataStream=true}, Flink's DataStream translation in batch mode instead of the DataSet one
   * (issue 34's comparison, BENCHMARKS.md).
   */
  public static PipelineOptions flink(int parallelism) {
    FlinkPipelineOptions options = PipelineOptionsFactory.create().as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setParallelism(parallelism);
    options.setStreaming(false);
    options.setJobName("pg2spanner-bench-discard");
    if (Boolean.getBoolean("bench.flinkDataStream")) {
      options.as(org.apache.beam.runners.flink.VersionDependentFlinkPipelineOptions.class)
          .setUseDataStreamForBatch(true);
    }
    return options;
  }

  /**
   * FlinkRunner options for a running session cluster, as {@code migrate --runner flink --flink-master} builds them:
   * the JobManager's REST address and the jars to ship ({@code filesToStage}).
   */
  public static PipelineOptions flinkCluster(int parallelism, String master, List<String> filesToStage) {
    FlinkPipelineOptions options = flink(parallelism).as(FlinkPipelineOptions.class);
    options.setFlinkMaster(master);
    options.setFilesToStage(filesToStage);
    return options;
  }

  /**
   * The whole pipeline into the discard sink: the snapshot and pieces as migrate cuts them for {@code workers}, the
   * job, and its wait; timed from opening the snapshot to the job's end (so Flink's figure includes starting and
   * stopping its embedded cluster).
   *
   * @return rows (mutations discarded), seconds, rows/s, and LoadPiece's read, batch and write time
   */
  public static Map<String, Object> run(Path planFile, String jdbcUrl, PipelineOptions options, int workers,
      Path work) throws Exception {
    Plan plan = PlanFiles.read(planFile);
    String planYaml = PlanFiles.toYaml(plan);
    SourceConnector source = new SourceConnector(new SourceConfig(jdbcUrl, null));
    Path dead = Files.createTempDirectory(work, "beam-discard-").resolve("dead-letters.jsonl");
    long start = System.nanoTime();
    LoadPipeline.Counts counts;
    long mutations = 0;
    try (SnapshotSession snapshot = SnapshotSession.open(source)) {
      int minPieces = Math.max(10 * plan.target().nodes(), 4 * workers);
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, minPieces, 64L << 20);
      Pipeline pipeline = Pipeline.create(options);
      LoadPipeline.build(pipeline, LoadPipeline.byLevel(pieces), new JdbcPieceSources(planYaml, jdbcUrl, null,
          snapshot.snapshotId()), plan, new Discard(), dead.toString());
      PipelineResult result = pipeline.run();
      counts = LoadPipeline.finish(result);
      for (MetricResult<Long> c : result.metrics().queryMetrics(MetricsFilter.builder()
          .addNameFilter(MetricNameFilter.inNamespace(METRICS)).build()).getCounters()) {
        long value = c.getAttempted() == null ? 0 : c.getAttempted();
        if (MUTATIONS.equals(c.getName().getName())) {
          mutations += value;
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (mutations != counts.rowsConverted() || counts.rowsRejected() != 0) {
      throw new IllegalStateException("the discard sink counted " + mutations + " mutations but the pipeline "
          + "converted " + counts.rowsConverted() + " rows and rejected " + counts.rowsRejected()
          + ": the figures would be wrong");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("runner", options.getRunner().getSimpleName());
    out.put("workers", workers);
    out.put("rows", mutations);
    out.put("seconds", seconds);
    out.put("rowsPerS", mutations / seconds);
    out.put("readS", counts.readNanos() / 1e9);
    out.put("batchS", counts.batchNanos() / 1e9);
    out.put("writeS", counts.writeNanos() / 1e9);
    return out;
  }

  /**
   * The workers' "target": counts the mutations in Beam metrics and drops them; the loader's batching and commit
   * loop around it are the product's. Bytes are not estimated: walking every value again cost a tenth of the
   * TaskManagers' samples in a profile (2026-11-29), and the in-process discard's measured pass does not pay it
   * either, so MB/s is not reported for these passes.
   */
  static final class Discard implements WriteTargets {
    private static final long serialVersionUID = 1L;

    @Override
    public Opened open() {
      Counter mutations = Metrics.counter(METRICS, MUTATIONS);
      return new Opened() {
        @Override
        public void write(List<Mutation> batch) {
          mutations.inc(batch.size());
        }

        @Override
        public void close() {}
      };
    }
  }
}
