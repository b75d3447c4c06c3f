package dev.pg2spanner.beam;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.LoadResult;
import dev.pg2spanner.migrate.MigrateOptions;
import dev.pg2spanner.migrate.MigrateRun;
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
import org.apache.beam.runners.dataflow.DataflowPipelineJob;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * Step 2/4 of {@code migrate} as a Beam job: {@link MigrateRun} does V1, the snapshot, the pieces, the post-load
 * phases and verify exactly as for the in-process runner; this runs the pieces through {@link LoadPipeline} on the
 * runner of the given options and waits for it (the snapshot must stay open while the job reads).
 *
 * <p>Not supported here (the in-process runner has them): checkpoints and {@code --resume} (a failed job is rerun
 * into an empty database), stopping early at {@code --max-bad-rows} (the job runs to the end, then the count is
 * checked), live progress lines. The dead-letter file is replaced, not appended to.
 *
 * <p>After the job it prints the rows and a time split from the job's metrics ({@link LoadPipeline.Counts#timeSplit}):
 * read and emit from {@link ReadPiece}, write from SpannerIO's own per-batch write latency.
 */
public final class BeamLoader implements MigrateRun.Loader {

  private final PipelineOptions runnerOptions;
  private final String workerPasswordFile;

  /**
   * @param runnerOptions the runner and its options (DirectRunner or DataflowRunner)
   * @param workerPasswordFile the password file the workers read (gs:// for Dataflow), or null: then the launcher's
   *     password, when there is one, is handed to same-JVM workers through a private temporary file
   */
  public BeamLoader(PipelineOptions runnerOptions, String workerPasswordFile) {
    this.runnerOptions = runnerOptions;
    this.workerPasswordFile = workerPasswordFile;
  }

  /**
   * DirectRunner options with immutability and encodability enforcement off: with them on, a 200k-row load wrote
   * nothing for 14 minutes here (DESIGN §6); they check user DoFns for bugs this pipeline's DoFns cannot have
   * (they never mutate their inputs) at the price of re-encoding every element.
   */
  public static DirectOptions directOptions(int parallelism) {
    DirectOptions options = PipelineOptionsFactory.create().as(DirectOptions.class);
    options.setRunner(DirectRunner.class);
    options.setEnforceImmutability(false);
    options.setEnforceEncodability(false);
    options.setTargetParallelism(parallelism);
    options.setBlockOnRun(false);
    return options;
  }

  @Override
  public LoadResult load(MigrateRun.LoadInputs in) throws Exception {
    MigrateOptions o = in.options();
    PrintWriter out = in.out();
    boolean sameJvm = runnerOptions.getRunner() == DirectRunner.class;
    MigrateRun.step(out, "2/4 load: " + in.pieces().size() + " pieces on the "
        + runnerOptions.getRunner().getSimpleName() + ", snapshot " + in.snapshot().snapshotId());
    long started = System.nanoTime();
    Path temporaryPassword = null;
    try {
      String passwordFile = workerPasswordFile;
      SourceConfig source = o.source();
      if (passwordFile == null && source.password() != null && !source.urlHasPassword()) {
        if (!sameJvm) {
          throw new Pg2SpannerException(ErrorCode.SOURCE_CONNECTION, "the source needs a password and Dataflow "
              + "workers cannot read this machine's: stage it in a private gs:// object and pass "
              + "--worker-password-file gs://BUCKET/OBJECT");
        }
        temporaryPassword = privateFile(source.password().reveal());
        passwordFile = temporaryPassword.toString();
      }
      if (!sameJvm && source.urlHasPassword()) {
        throw new Pg2SpannerException(ErrorCode.SOURCE_CONNECTION, "--source " + source.redactedUrl() + " carries "
            + "a password, which would be stored in the Dataflow job graph; remove it from the URL and pass "
            + "--worker-password-file gs://BUCKET/OBJECT");
      }
      String planYaml = PlanFiles.toYaml(in.plan());
      Pipeline pipeline = Pipeline.create(runnerOptions);
      LoadPipeline.build(pipeline, LoadPipeline.byLevel(in.pieces()), new JdbcPieceSources(planYaml,
          source.jdbcUrl(), passwordFile, in.snapshot().snapshotId()), planYaml, o.target(),
          location(o.deadLetterFile()));
      PipelineResult result = pipeline.run();
      if (result instanceof DataflowPipelineJob job) {
        out.println("submitted Dataflow job " + job.getJobId() + ": https://console.cloud.google.com/dataflow/jobs/"
            + job.getRegion() + "/" + job.getJobId() + "?project=" + job.getProjectId());
        out.println("waiting for it (this process holds the source snapshot the workers read)");
        out.flush();
      }
      LoadPipeline.Counts counts = LoadPipeline.finish(result);
      Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
      out.printf("loaded %d rows (%d read, %d dead-lettered) in %.1f s%n", counts.rowsWritten(), counts.rowsRead(),
          counts.deadLetters(), elapsed.toMillis() / 1000.0);
      out.println(counts.timeSplit(elapsed, sameJvm ? runnerOptions.as(DirectOptions.class).getTargetParallelism()
          : 0));
      out.flush();
      if (counts.deadLetters() > o.maxBadRows()) {
        throw new Pg2SpannerException(ErrorCode.DATA_REJECTED, counts.deadLetters() + " rows were rejected (limit "
            + "--max-bad-rows " + o.maxBadRows() + "); see " + o.deadLetterFile());
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

  /** A file only this user can read, holding the password for same-JVM workers. */
  private static Path privateFile(String password) throws IOException {
    Path file = Files.createTempFile("pg2spanner-source-", ".secret",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, password + "\n", StandardCharsets.UTF_8);
    return file;
  }
}
