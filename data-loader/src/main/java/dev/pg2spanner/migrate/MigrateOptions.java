package dev.pg2spanner.migrate;

import dev.pg2spanner.live.LiveOptions;
import dev.pg2spanner.metrics.MonitorOptions;
import dev.pg2spanner.schema.DdlBatchPolicy;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything {@code migrate} needs, parsed once by the CLI.
 *
 * @param planFile plan.yaml
 * @param source the source database
 * @param target the Spanner database
 * @param workers parallel readers/writers (≥ 1)
 * @param resume continue the run recorded in {@code runDirectory}
 * @param maxBadRows rejected rows tolerated before the run fails
 * @param runDirectory checkpoint, pieces, progress log and (by default) the dead-letter file
 * @param deadLetterFile where rejected rows go (JSON lines)
 * @param createDatabase create the database on real Spanner when missing
 * @param verify run verify after the load
 * @param interactive a terminal is attached: redraw a progress bar
 * @param progressInterval how often progress is reported
 * @param live after the load, stream the source's changes until cutover ({@code --live})
 * @param publication with {@code live}: an existing publication to stream, or null to create one
 * @param acceptFilteredCopy copy tables row-level security partly hides from this role anyway, only the rows it
 *     can see ({@code --accept-filtered-copy}); without it such a plan is refused before the target is touched
 * @param skipUnplannedTables leave out tables of the planned schemas that are not in the plan instead of refusing
 *     ({@code --skip-unplanned-tables})
 * @param ddlPolicy how post-load DDL is batched ({@code --ddl-batch-size}, {@code --ddl-concurrency}), or null for
 *     the target's default ({@link DdlBatchPolicy#forTarget})
 * @param runner how the rows are copied: "in-process", "direct", "flink" or "dataflow" (recorded in the run
 *     directory: a run is resumed only by the runner that started it)
 * @param verifyInterval with {@code live}: how often changed rows are compared at a consistent cut while streaming
 *     ({@code --verify-interval}); null never (cutover then compares everything changed since the load)
 * @param monitor the metrics endpoint ({@code --metrics-port}) and the slot-WAL limits of a live run
 *     ({@code --max-slot-wal}, {@code --stop-slot-wal})
 */
public record MigrateOptions(Path planFile, SourceConfig source, SpannerTarget target, int workers, boolean resume,
    long maxBadRows, Path runDirectory, Path deadLetterFile, boolean createDatabase, boolean verify,
    boolean interactive, Duration progressInterval, boolean live, String publication, boolean acceptFilteredCopy,
    boolean skipUnplannedTables, DdlBatchPolicy ddlPolicy, String runner, Duration verifyInterval,
    MonitorOptions monitor) {

  /** Options without metrics or slot-WAL limits. */
  public MigrateOptions(Path planFile, SourceConfig source, SpannerTarget target, int workers, boolean resume,
      long maxBadRows, Path runDirectory, Path deadLetterFile, boolean createDatabase, boolean verify,
      boolean interactive, Duration progressInterval, boolean live, String publication, boolean acceptFilteredCopy,
      boolean skipUnplannedTables, DdlBatchPolicy ddlPolicy, String runner, Duration verifyInterval) {
    this(planFile, source, target, workers, resume, maxBadRows, runDirectory, deadLetterFile, createDatabase, verify,
        interactive, progressInterval, live, publication, acceptFilteredCopy, skipUnplannedTables, ddlPolicy, runner,
        verifyInterval, MonitorOptions.NONE);
  }

  public MigrateOptions {
    monitor = monitor == null ? MonitorOptions.NONE : monitor;
    Objects.requireNonNull(planFile, "planFile");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(runDirectory, "runDirectory");
    Objects.requireNonNull(deadLetterFile, "deadLetterFile");
    Objects.requireNonNull(runner, "runner");
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1");
    }
  }

  /** How this run's load runs ({@link dev.pg2spanner.load.Loader.Inputs#options()}). */
  public dev.pg2spanner.load.LoadOptions loadOptions() {
    return new dev.pg2spanner.load.LoadOptions(workers, maxBadRows, runDirectory, deadLetterFile, true,
        progressInterval, interactive);
  }

  /** These options with another worker count. */
  public MigrateOptions withWorkers(int n) {
    return new MigrateOptions(planFile, source, target, n, resume, maxBadRows, runDirectory, deadLetterFile,
        createDatabase, verify, interactive, progressInterval, live, publication, acceptFilteredCopy,
        skipUnplannedTables, ddlPolicy, runner, verifyInterval, monitor);
  }

  /** The batching of post-load DDL: the one asked for, else the target's default. */
  public DdlBatchPolicy ddlBatchPolicy() {
    return ddlPolicy != null ? ddlPolicy : DdlBatchPolicy.forTarget(target.isEmulator());
  }

  /** What a live run takes of these options ({@code --runner} is repeated on resume unless the load is in-process). */
  public LiveOptions liveOptions() {
    return new LiveOptions(planFile, source, target, runDirectory, deadLetterFile, maxBadRows, progressInterval, resume,
        publication, verifyInterval, monitor, MigrateRun.IN_PROCESS_RUNNER.equals(runner) ? null : runner);
  }
}
