package dev.pg2spanner.beam;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.LoadOptions;
import dev.pg2spanner.load.LoadResult;
import dev.pg2spanner.load.Loader;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.SourceConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apache.beam.runners.dataflow.DataflowPipelineJob;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * Step 2/4 of {@code migrate} as a Beam job: the run ({@code migrate.MigrateRun}) does V1, the snapshot, the pieces,
 * the post-load phases and verify exactly as for the in-process runner; this runs the pieces through
 * {@link LoadPipeline} on the runner of the given options and waits for it (the snapshot must stay open while the
 * job reads).
 *
 * <p>On the DirectRunner the job runs while this thread polls its metrics (attempted values, which the runner updates
 * as each bundle, here about one piece, finishes): a progress line every {@code --progress-interval}, and when more
 * rows than {@code --max-bad-rows} are dead-lettered the job is cancelled and the load fails at once, as the
 * in-process runner does. A cancelled job writes no dead-letter file. On Flink (the classic runner, batch) the
 * runner's {@code run} returns only when the job is done, and on Dataflow this process only waits for the job
 * (polling Dataflow's metrics is untested here): both check the count after the job.
 *
 * <p>Not supported here (the in-process runner has them): checkpoints and {@code --resume} (a failed job is rerun
 * into an empty database), the progress bar and {@code progress.jsonl}. The dead-letter file is replaced, not
 * appended to.
 *
 * <p>After the job it prints the rows and a time split from the job's metrics ({@link LoadPipeline.Counts#timeSplit}):
 * read, batch and write from {@link LoadPiece}, which commits each piece's rows where it read them.
 */
public final class BeamLoader implements Loader {

  /** How often the DirectRunner's metrics are checked against {@code --max-bad-rows} (progress prints less often). */
  static final Duration CHECK_EVERY = Duration.ofMillis(100);

  private final PipelineOptions runnerOptions;
  private final String workerPasswordFile;
  private final int localThreads;

  /**
   * A loader whose workers run in this JVM when the runner is the DirectRunner (its target parallelism is the thread
   * count), elsewhere otherwise.
   *
   * @param runnerOptions the runner and its options (DirectRunner or DataflowRunner)
   * @param workerPasswordFile the password file the workers read (gs:// for Dataflow), or null: then the launcher's
   *     password, when there is one, is handed to same-JVM workers through a private temporary file
   */
  public BeamLoader(PipelineOptions runnerOptions, String workerPasswordFile) {
    this(runnerOptions, workerPasswordFile, runnerOptions.getRunner() == DirectRunner.class
        ? runnerOptions.as(DirectOptions.class).getTargetParallelism() : 0);
  }

  /**
   * @param runnerOptions the runner and its options
   * @param workerPasswordFile as above
   * @param localThreads how many threads run the job's workers in this JVM (the DirectRunner's target parallelism,
   *     the slots of Flink's embedded cluster), or 0 when they run elsewhere (Dataflow, a remote Flink cluster): only
   *     same-JVM workers may be handed the launcher's password through a local file
   */
  public BeamLoader(PipelineOptions runnerOptions, String workerPasswordFile, int localThreads) {
    this.runnerOptions = runnerOptions;
    this.workerPasswordFile = workerPasswordFile;
    this.localThreads = localThreads;
  }

  /**
   * DirectRunner options with immutability and encodability enforcement off: with them on, a 200k-row load wrote
   * nothing for 14 minutes here (BENCHMARKS.md); they check user DoFns for bugs this pipeline's DoFns cannot have
   * (they never mutate their inputs) at the price of re-encoding every element.
   */
  public static DirectOptions directOptions(int parallelism) {
    return directOptions(parallelism, false);
  }

  /**
   * DirectRunner options; with {@code checks}, Beam's immutability and encodability enforcement is on: every element
   * is encoded and decoded with its coder and every input checked for mutation, as crossing machines would (slow;
   * the integration tests run a small load this way to prove the coders and DoFns are sound).
   */
  public static DirectOptions directOptions(int parallelism, boolean checks) {
    DirectOptions options = PipelineOptionsFactory.create().as(DirectOptions.class);
    options.setRunner(DirectRunner.class);
    options.setEnforceImmutability(checks);
    options.setEnforceEncodability(checks);
    options.setTargetParallelism(parallelism);
    options.setBlockOnRun(false);
    return options;
  }

  @Override
  public LoadResult load(Loader.Inputs in) throws Exception {
    LoadOptions o = in.options();
    PrintWriter out = in.out();
    boolean sameJvm = localThreads > 0;
    Loader.step(out, "2/4 load: " + in.pieces().size() + " pieces on the "
        + runnerOptions.getRunner().getSimpleName() + ", snapshot " + in.snapshot().snapshotId());
    long started = System.nanoTime();
    Path temporaryPassword = null;
    try {
      check(in.source());
      String passwordFile = workerPasswordFile;
      SourceConfig source = in.source();
      if (passwordFile == null && source.password() != null && !source.urlHasPassword()) {
        temporaryPassword = privateFile(source.password().reveal());
        passwordFile = temporaryPassword.toString();
      }
      String planYaml = PlanFiles.toYaml(in.plan());
      Pipeline pipeline = Pipeline.create(runnerOptions);
      LoadPipeline.build(pipeline, LoadPipeline.byLevel(in.pieces()), new JdbcPieceSources(planYaml,
          source.jdbcUrl(), passwordFile, in.snapshot().snapshotId(), in.reader()), in.plan(), in.target(),
          location(o.deadLetterFile()));
      PipelineResult result;
      try {
        result = pipeline.run();
      } catch (RuntimeException e) {
        // The classic FlinkRunner runs the job inside run() and throws "Pipeline execution failed" when it fails;
        // from a remote cluster the workers' exception arrives as Flink's SerializedThrowable, whose message is the
        // original one. Without this the user got "internal error: Pipeline execution failed" (exit 1).
        LoadPipeline.rethrowOwn(e);
        throw new Pg2SpannerException(ExitCode.DATA_REJECTED, NextStep.STATED, "the load job failed on the "
            + runnerOptions.getRunner().getSimpleName() + "'s workers: " + deepestMessage(e) + "; see the runner's "
            + "log (on a Flink cluster: its TaskManagers' logs), then run migrate again into an empty database", e);
      }
      if (result instanceof DataflowPipelineJob job) {
        out.println("submitted Dataflow job " + job.getJobId() + ": https://console.cloud.google.com/dataflow/jobs/"
            + job.getRegion() + "/" + job.getJobId() + "?project=" + job.getProjectId());
        out.println("waiting for it (this process holds the source snapshot the workers read)");
        out.flush();
      }
      LoadPipeline.Counts counts = sameJvm ? watch(result, in, started) : LoadPipeline.finish(result);
      Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
      out.printf("loaded %d rows (%d read, %d dead-lettered) in %.1f s%n", counts.rowsWritten(), counts.rowsRead(),
          counts.deadLetters(), elapsed.toMillis() / 1000.0);
      out.println(counts.timeSplit(elapsed, localThreads));
      out.flush();
      if (o.badRowLimit().exceededBy(counts.deadLetters())) {
        throw o.badRowLimit().failure(counts.deadLetters(), "rows", "; see " + o.deadLetterFile());
      }
      return new LoadResult(List.of(), counts.rowsWritten(), counts.deadLetters(), 0, elapsed, Duration.ZERO,
          Duration.ZERO);
    } finally {
      if (temporaryPassword != null) {
        Files.deleteIfExists(temporaryPassword);
      }
    }
  }

  /**
   * Refuses, before the run changes anything, a source password the workers could not get: workers elsewhere can
   * neither read this machine's password nor be handed one inside the job graph.
   */
  @Override
  public void check(SourceConfig source) {
    if (localThreads > 0) {
      return;
    }
    if (workerPasswordFile == null && source.password() != null && !source.urlHasPassword()) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "the source needs a password and the "
          + runnerOptions.getRunner().getSimpleName() + "'s workers cannot read this machine's: stage it in a "
          + "private file they can read (a gs:// object for Dataflow) and pass --worker-password-file PATH");
    }
    if (source.urlHasPassword()) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "--source " + source.redactedUrl() + " carries "
          + "a password, which would be stored in the " + runnerOptions.getRunner().getSimpleName() + " job "
          + "graph; remove it from the URL and pass --worker-password-file PATH (gs:// for Dataflow)");
    }
  }

  /**
   * Waits for a DirectRunner job (started with {@code blockOnRun=false}), printing progress every interval and
   * cancelling it once more rows than {@code --max-bad-rows} were dead-lettered.
   */
  private static LoadPipeline.Counts watch(PipelineResult result, Loader.Inputs in, long started) {
    LoadOptions o = in.options();
    PrintWriter out = in.out();
    long estimate = in.pieces().stream().mapToLong(p -> Math.max(0, p.estimatedRows())).sum();
    long interval = o.progressInterval().toNanos();
    long nextProgress = started + interval;
    while (true) {
      PipelineResult.State state = LoadPipeline.waitFor(result, CHECK_EVERY);
      if (state != null) {
        return LoadPipeline.finished(result, state);
      }
      LoadPipeline.Counts soFar = LoadPipeline.counts(result);
      if (o.badRowLimit().exceededBy(soFar.deadLetters())) {
        try {
          result.cancel();
          LoadPipeline.waitFor(result, Duration.ofSeconds(30));
        } catch (IOException | RuntimeException e) {
          // The load fails either way; the message below is the one the user needs.
          org.slf4j.LoggerFactory.getLogger(BeamLoader.class).warn("Cancelling the load job: {}", e.toString());
        }
        LoadPipeline.Counts last = LoadPipeline.counts(result);
        LoadPipeline.Counts shown = last.deadLetters() >= soFar.deadLetters() ? last : soFar;
        out.println(progressLine(shown, estimate, System.nanoTime() - started));
        out.flush();
        throw o.badRowLimit().failure(shown.deadLetters(), "rows", ": stopped early, after reading "
            + String.format(Locale.ROOT, "%,d", rowsRead(shown))
            + (estimate > 0 ? String.format(Locale.ROOT, " of ~%,d", estimate) : "")
            + " rows; the job was cancelled, so it did not write " + o.deadLetterFile() + ": run again with a "
            + "higher --max-bad-rows (or --runner in-process) to list the rejected rows");
      }
      long now = System.nanoTime();
      if (now - nextProgress >= 0) {
        out.println(progressLine(soFar, estimate, now - started));
        out.flush();
        nextProgress = now + interval;
      }
    }
  }

  /**
   * "load: 12,345 of ~30,000 rows read (41%), 10,000 written, 0 dead-lettered, 2,000 rows/s written, 0:00:05": the
   * job's attempted metrics so far; the runner updates them as bundles (here about one piece each) finish.
   */
  static String progressLine(LoadPipeline.Counts soFar, long estimatedRows, long elapsedNanos) {
    double seconds = Math.max(1e-3, elapsedNanos / 1e9);
    long read = rowsRead(soFar);
    StringBuilder b = new StringBuilder("load: ").append(String.format(Locale.ROOT, "%,d", read));
    if (estimatedRows > 0) {
      b.append(String.format(Locale.ROOT, " of ~%,d rows read (%d%%)", estimatedRows,
          Math.min(99, read * 100 / estimatedRows)));
    } else {
      b.append(" rows read");
    }
    long total = (long) seconds;
    return b.append(String.format(Locale.ROOT, ", %,d written, %,d dead-lettered, %,d rows/s written, %d:%02d:%02d",
        soFar.rowsCommitted(), soFar.deadLetters(), Math.round(soFar.rowsCommitted() / seconds), total / 3600,
        total / 60 % 60, total % 60)).toString();
  }

  /**
   * Rows read so far: {@link LoadPiece} counts a piece's rows read when the piece is done, but its converted and
   * rejected rows one by one, so the latter can be ahead (after a cancel they were, here); the larger is shown.
   */
  private static long rowsRead(LoadPipeline.Counts soFar) {
    return Math.max(soFar.rowsRead(), soFar.rowsConverted() + soFar.rowsRejected());
  }

  /**
   * The dead-letter location as Beam's file systems take it: a {@code gs://} path (which {@link Path} folds to
   * {@code gs:/}) restored, a local path made absolute.
   */
  public static String location(Path deadLetter) {
    String text = deadLetter.toString();
    if (text.startsWith("gs:/")) {
      return "gs://" + text.substring("gs:/".length()).replaceFirst("^/+", "");
    }
    return deadLetter.toAbsolutePath().toString();
  }

  /** The message of the innermost cause that has one (the workers' own failure), else the exception's. */
  static String deepestMessage(Throwable e) {
    String message = e.toString();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        message = t.getMessage();
      }
    }
    return message;
  }

  /** A file only this user can read, holding the password for same-JVM workers. */
  private static Path privateFile(String password) throws IOException {
    Path file = Files.createTempFile("pg2spanner-source-", ".secret",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, password + "\n", StandardCharsets.UTF_8);
    return file;
  }
}
