package dev.pg2spanner.cli;

import dev.pg2spanner.beam.BeamLoader;
import dev.pg2spanner.beam.JdbcPieceSources;
import dev.pg2spanner.beam.LoadPipeline;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.Loader;
import dev.pg2spanner.metrics.ByteSize;
import dev.pg2spanner.metrics.MonitorOptions;
import dev.pg2spanner.migrate.MigrateOptions;
import dev.pg2spanner.migrate.MigrateRun;
import dev.pg2spanner.rundir.RunDirectoryLock;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.schema.DdlBatchPolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.beam.runners.dataflow.options.DataflowPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code pg2spanner migrate}: carry out a plan. */
@Command(name = "migrate", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Carries out a plan: tables (Flyway V1); a consistent, partitioned load in non-key order; then "
        + "indexes (V2), foreign keys (V3) and CHECK constraints (V4) after the data; then verify. Resumable after a "
        + "crash with --resume."})
final class MigrateCommand implements Callable<Integer> {

  @ParentCommand
  Pg2Spanner root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  PlanSourceTargetOptions inputs;

  @Option(names = "--workers", paramLabel = "N",
      description = "Parallel readers/writers (default: 2 on the emulator, which serialises commits; else twice the "
          + "cores, at least 4).")
  Integer workers;

  @Option(names = "--resume", description = "Continue an interrupted run with the pieces not yet done.")
  boolean resume;

  @Option(names = "--max-bad-rows", paramLabel = "N", defaultValue = "0",
      description = "Fail once more rows than this are rejected (default: ${DEFAULT-VALUE}).")
  long maxBadRows;

  @Option(names = "--run-dir", paramLabel = "DIR",
      description = "Checkpoint, pieces and progress log (default: run/ beside the plan).")
  Path runDir;

  @Option(names = "--dead-letter", paramLabel = "PATH",
      description = "Where rejected rows are written as JSON lines (default: dead-letter.jsonl in the run directory).")
  Path deadLetter;

  @Option(names = "--create-database", description = "Create the Spanner database if missing (real Spanner).")
  boolean createDatabase;

  @Option(names = "--no-verify", negatable = false, description = "Skip verify after the load.")
  boolean noVerify;

  @Option(names = "--progress-interval", paramLabel = "SECONDS", defaultValue = "5",
      description = "Seconds between progress lines (default: ${DEFAULT-VALUE}).")
  int progressSeconds;

  @Option(names = "--live", description = {"Keep the target in step with a source that keeps taking writes: the "
      + "load reads the snapshot of a new logical replication slot, then the changes since are streamed until "
      + "`pg2spanner cutover`. Needs wal_level = logical and a role with REPLICATION (pg2spanner check lists what "
      + "is missing). With a Beam --runner the job's workers import the snapshot, which this process holds open "
      + "until the job ends; it then streams itself."})
  boolean live;

  @Option(names = "--verify-interval", paramLabel = "SECONDS", defaultValue = "10",
      description = {"With --live: how often the rows the stream changed are compared with the source at a "
          + "consistent cut while streaming (default: ${DEFAULT-VALUE}); cutover then compares only what changed "
          + "after the last cut. 0 turns it off: cutover compares every row changed since the load."})
  int verifyIntervalSeconds;

  @Option(names = "--publication", paramLabel = "NAME",
      description = "With --live: stream this existing publication instead of creating one (when this role does not "
          + "own the tables).")
  String publication;

  @Option(names = "--accept-filtered-copy", description = {"Copy tables whose rows row-level security partly hides "
      + "from this role anyway: only the rows it can see are copied and verified, and the output says so. Without "
      + "it migrate refuses them before touching the target (exit 4). Not with --live (logical replication streams "
      + "every row) nor the Beam runners."})
  boolean acceptFilteredCopy;

  @Option(names = "--skip-unplanned-tables", description = "Migrate even though the planned schemas hold tables that "
      + "are not in the plan (created after plan ran, or removed from plan.yaml); they are named and left out. "
      + "Without it migrate refuses before touching the target (exit 6).")
  boolean skipUnplannedTables;

  @Option(names = "--ddl-batch-size", paramLabel = "N", description = {"Post-load DDL (indexes, foreign keys, "
      + "checks): at most N statements per schema-change request (default: 10 that backfill or validate, per Google's "
      + "schema-update guidance, on Spanner; 500 on the emulator)."})
  Integer ddlBatchSize;

  @Option(names = "--ddl-concurrency", paramLabel = "N", description = {"Post-load DDL: N schema-change requests at "
      + "once (default: 3 on Spanner; the emulator takes one at a time)."})
  Integer ddlConcurrency;

  @Option(names = "--metrics-port", paramLabel = "PORT", description = {"Serve the run's metrics at "
      + "http://HOST:PORT/metrics in the Prometheus text format while it runs (names pg2spanner_*; README lists them): "
      + "rows, bytes and pieces loaded, commits, and with --live the changes applied, lag, the WAL the slot holds and "
      + "what is verified. 0 picks a free port (printed)."})
  Integer metricsPort;

  @Option(names = "--metrics-host", paramLabel = "HOST", defaultValue = "127.0.0.1", description = "The address "
      + "--metrics-port listens on (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 for every interface).")
  String metricsHost;

  @Option(names = "--max-slot-wal", paramLabel = "SIZE", converter = SizeConverter.class, description = {"With "
      + "--live: warn loudly (output, log, pg2spanner_slot_wal_over_max, status) while the replication slot holds more "
      + "WAL than SIZE on the source (e.g. 20GB; 1 kB = 1024 bytes, as PostgreSQL counts)."})
  Long maxSlotWal;

  @Option(names = "--stop-slot-wal", paramLabel = "SIZE", converter = SizeConverter.class, description = {"With "
      + "--live: stop streaming (exit 17) once the slot holds more WAL than SIZE, and print the command that drops the "
      + "slot and the one that resumes, rather than fill the source's disk."})
  Long stopSlotWal;

  @Mixin
  RunnerOptions runner;

  /** Reads SIZE options ({@link ByteSize}). */
  static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return ByteSize.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    checkOptions();
    // The plan is read and validated first, so a bad edit is reported before anything connects or starts.
    dev.pg2spanner.plan.Plan parsedPlan = dev.pg2spanner.plan.PlanFiles.read(inputs.plan);
    int threads = workers != null ? workers : Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    Path run = runDir != null ? runDir : inputs.plan.toAbsolutePath().getParent().resolve("run");
    Path dead = deadLetter != null ? deadLetter : run.resolve(RunFiles.DEAD_LETTER);
    if (runner.runner == RunnerOptions.Runner.DATAFLOW && !runner.dryRun
        && !BeamLoader.location(dead).startsWith("gs://")) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--runner dataflow needs --dead-letter "
          + "gs://BUCKET/PATH: the workers cannot write to this machine");
    }
    PrintWriter out = spec.commandLine().getOut();
    if (runner.dryRun) {
      return dryRun(parsedPlan, dead, out);
    }
    // One command per run directory, for the whole run: taken before anything reaches the source, the target or
    // an emulator, so a second migrate (or a cutover) on the same directory is refused at once.
    try (RunDirectoryLock lock = RunDirectoryLock.acquire(run, live ? "migrate --live" : "migrate")) {
      boolean[] handedOver = {false};
      try {
        if (inputs.target.startsEmulator()) {
          refuseEarlierRunOnNewEmulator(run);
        }
        return migrate(parsedPlan, threads, run, dead, out, lock, handedOver);
      } catch (Exception | Error e) {
        if (!handedOver[0]) {
          // Refused before the run began (a bad target, an unreachable Flink master): leave no directory behind.
          lock.removeDirectoryOnClose();
        }
        throw e;
      }
    }
  }
  /**
   * Every check of the options alone and of how they combine, before the plan is read or anything connects: each
   * names the option and what it needs.
   */
  private void checkOptions() {
    if (workers != null && workers < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--workers must be at least 1, was " + workers);
    }
    if (maxBadRows < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--max-bad-rows must be 0 or more, was "
          + maxBadRows);
    }
    if (verifyIntervalSeconds < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--verify-interval must be 0 (off) or more "
          + "seconds, was " + verifyIntervalSeconds);
    }
    if (progressSeconds < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--progress-interval must be at least 1 "
          + "second, was " + progressSeconds);
    }
    if (ddlBatchSize != null && ddlBatchSize < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--ddl-batch-size must be at least 1, was "
          + ddlBatchSize);
    }
    if (ddlConcurrency != null && ddlConcurrency < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--ddl-concurrency must be at least 1, was "
          + ddlConcurrency);
    }
    if ((maxSlotWal != null || stopSlotWal != null) && !live) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--max-slot-wal and --stop-slot-wal go with "
          + "--live (only a live run holds a replication slot)");
    }
    if (maxSlotWal != null && stopSlotWal != null && stopSlotWal <= maxSlotWal) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--stop-slot-wal (" + ByteSize.format(stopSlotWal)
          + ") must be more than --max-slot-wal (" + ByteSize.format(maxSlotWal) + "): the warning comes first");
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65_535)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--metrics-port must be 0 to 65535, was "
          + metricsPort);
    }
    if (publication != null && !live) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--publication goes with --live");
    }
    if (acceptFilteredCopy && runner.runner != RunnerOptions.Runner.IN_PROCESS) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--accept-filtered-copy works with --runner "
          + "in-process only: the Beam runners' readers always refuse a read row-level security would filter");
    }
    // A live run resumed past its load only streams, in this process: the runner that loaded it is not used again
    // (LiveRun refuses a live run that stopped during its load, for every runner).
    if (runner.runner != RunnerOptions.Runner.IN_PROCESS && resume && !live) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--resume works with --runner in-process only: "
          + "a Beam job keeps no checkpoint; rerun it into an empty database");
    }
    if (runner.dryRun && runner.runner != RunnerOptions.Runner.DATAFLOW) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--dry-run goes with --runner dataflow");
    }
    if (runner.flinkMaster != null && runner.runner != RunnerOptions.Runner.FLINK) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--flink-master goes with --runner flink");
    }
    if (runner.runner == RunnerOptions.Runner.FLINK && !runner.flinkProblems().isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", runner.flinkProblems()));
    }
    if (runner.runner == RunnerOptions.Runner.DATAFLOW && !runner.dataflowProblems().isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", runner.dataflowProblems()));
    }
  }


  /** @param handedOver set once {@link MigrateRun#execute} owns the run (it cleans up after its own refusals) */
  private int migrate(dev.pg2spanner.plan.Plan parsedPlan, int threads, Path run, Path dead, PrintWriter out,
      RunDirectoryLock lock, boolean[] handedOver) throws Exception {
    // A resumed live run submits no job (its load is done), so the cluster that loaded it need not be up.
    if (runner.runner == RunnerOptions.Runner.FLINK && runner.flinkMaster != null && !(live && resume)) {
      String version = FlinkMaster.requireReachable(runner.flinkMaster);
      FlinkMaster.versionWarning(runner.flinkMaster, version).ifPresent(out::println);
    }
    try (TargetOptions.Resolved resolved = inputs.target.resolve(root.env())) {
      if (resolved.started() != null) {
        out.println("started the Spanner emulator at " + resolved.started().hostPort() + " for this run");
      }
      // The emulator serialises commits and did best with two writers in the benchmark sweep; real Spanner scales
      // with more. An explicit --workers always wins.
      if (workers == null && resolved.target().isEmulator()) {
        threads = 2;
      }
      if (ddlConcurrency != null && ddlConcurrency > 1 && resolved.target().isEmulator()) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--ddl-concurrency " + ddlConcurrency + ": the "
            + "Spanner emulator refuses a schema change while another runs; leave the option out for the emulator");
      }
      DdlBatchPolicy ddlPolicy = null;
      if (ddlBatchSize != null || ddlConcurrency != null) {
        ddlPolicy = DdlBatchPolicy.forTarget(resolved.target().isEmulator());
        ddlPolicy = ddlBatchSize == null ? ddlPolicy : ddlPolicy.withBatchSize(ddlBatchSize);
        ddlPolicy = ddlConcurrency == null ? ddlPolicy : ddlPolicy.withInFlight(ddlConcurrency);
      }
      MigrateOptions options = new MigrateOptions(inputs.plan, inputs.source.toConfig(root.env()), resolved.target(),
          threads, resume, maxBadRows, run, dead, createDatabase, !noVerify, System.console() != null,
          Duration.ofSeconds(progressSeconds), live, publication, acceptFilteredCopy, skipUnplannedTables, ddlPolicy,
          runner.name(), verifyIntervalSeconds == 0 ? null : Duration.ofSeconds(verifyIntervalSeconds),
          new MonitorOptions(metricsHost, metricsPort, maxSlotWal, stopSlotWal));
      // Ctrl-C (SIGINT/SIGTERM) ends the JVM through its shutdown hooks: say what was kept and how to go on.
      // A live run handles its own signals (it stops between transactions and says so).
      boolean ownEmulator = resolved.started() != null;
      String beamRunner = runner.runner == RunnerOptions.Runner.IN_PROCESS ? null : runner.name();
      String target = resolved.target().describe();
      Thread onStop = live ? null : new Thread(() -> interrupted(run, ownEmulator, beamRunner, target),
          "migrate-interrupted");
      if (onStop != null) {
        Runtime.getRuntime().addShutdownHook(onStop);
      }
      MigrateRun.Result result;
      try {
        Loader loader = loader(resolved.target(), threads);
        // A mistyped reader choice stops the run here, before anything is read or changed.
        dev.pg2spanner.load.read.SourceReader reader = dev.pg2spanner.load.read.SourceReader.from(root.env());
        handedOver[0] = true;
        result = MigrateRun.execute(options, parsedPlan, reader, lock, out, loader);
      } catch (Pg2SpannerException e) {
        throw ownEmulator ? withOwnEmulatorHint(e, run)
            : beamRunner != null && !live ? withBeamHint(e, run, beamRunner, target) : e;
      } finally {
        if (onStop != null) {
          try {
            Runtime.getRuntime().removeShutdownHook(onStop);
          } catch (IllegalStateException shuttingDown) {
            // the hook is running: it prints the message
          }
        }
      }
      if (result.liveExitCode() != null) {
        out.flush();
        return result.liveExitCode();
      }
      out.printf("Migrated %d rows in %.1f s.%n", result.load().rowsWritten(), result.elapsed().toMillis() / 1000.0);
      if (result.load().rowsRejected() > 0) {
        out.println(result.load().rowsRejected() + " row(s) rejected (within --max-bad-rows): see " + dead);
      }
      if (result.filteredCopy() != null) {
        out.println(result.filteredCopy());
      }
      if (result.laterWrites() != null) {
        spec.commandLine().getErr().println("pg2spanner: warning: the source took writes after the load's snapshot, "
            + "and the target does not hold them (see above): stop the writes and migrate again, or use --live");
      }
      if (!noVerify && !result.verified()) {
        long differing = result.verification().stream().filter(v -> !v.matches()).count();
        spec.commandLine().getErr().println("pg2spanner: verify found " + differing + " table(s) that differ "
            + "(see above)" + (result.load().rowsRejected() > 0 ? "; rejected rows are listed in " + dead : ""));
        out.flush();
        return ExitCode.VERIFY_MISMATCH.exitCode();
      }
      out.flush();
      return 0;
    }
  }

  /**
   * Refuses a run directory that holds an earlier run when this command starts its own emulator: that emulator is new
   * and empty, so the earlier run's rows are not there to continue (the emulator a run starts stops with it), and the
   * usual "continue it with --resume" would only lead to a second refusal.
   */
  static void refuseEarlierRunOnNewEmulator(Path run) {
    boolean earlier = java.nio.file.Files.exists(run.resolve(RunFiles.RECORD))
        || java.nio.file.Files.exists(run.resolve(RunFiles.PIECES))
        || java.nio.file.Files.exists(run.resolve(RunFiles.LIVE_STATE));
    if (!earlier) {
      return;
    }
    throw new Pg2SpannerException(ExitCode.RUN_STATE, "run directory " + run + " holds an earlier run, and "
        + "--emulator without HOST:PORT starts a new, empty emulator: that run's rows are not on it (an emulator "
        + "migrate starts stops with its run), so it cannot be continued here. Start again with the same migrate "
        + "command and a new --run-dir (or delete " + run + " first); to continue a run on an emulator that is still "
        + "running, pass --emulator HOST:PORT with --resume. Nothing was changed on the source or the target");
  }

  /**
   * A failure's "--resume" hint replaced when migrate started its own emulator: it stops with this process, the rows
   * loaded so far go with it, and a resume would be refused as a reset target.
   */
  static Pg2SpannerException withOwnEmulatorHint(Pg2SpannerException e, Path run) {
    if (e.next() != NextStep.RESUME) {
      return e;
    }
    String startAgain = "The Spanner emulator this run started stops with it, and the rows loaded so far go with it: "
        + "start again with the same migrate command and a new --run-dir (or delete " + run + " first).";
    return new Pg2SpannerException(e.code(), NextStep.STATED, withoutResumeHint(e, startAgain,
        " But --resume cannot continue this run: " + startAgain.substring(0, 1).toLowerCase(java.util.Locale.ROOT)
            + startAgain.substring(1)), e.getCause() != null ? e.getCause() : e);
  }

  /**
   * A failed run on a Beam runner cannot be continued with --resume (refused for Beam: no checkpoint), which the
   * phases around the load (schema, Flyway's history, verify) advise in the in-process words: the way on becomes a
   * new run into an empty database, as for the load's own failures.
   */
  static Pg2SpannerException withBeamHint(Pg2SpannerException e, Path run, String runnerName, String target) {
    if (e.next() != NextStep.RESUME) {
      return e;
    }
    String startOver = "A load on the " + runnerName + " runner keeps no checkpoint, so --resume cannot continue this "
        + "run: start over into an empty database (remove " + run + ", drop " + target + " or choose another --target "
        + "database, then run the same migrate command again).";
    return new Pg2SpannerException(e.code(), NextStep.STATED, withoutResumeHint(e, startOver,
        " But a" + startOver.substring(1)), e.getCause() != null ? e.getCause() : e);
  }

  /**
   * The failure's message with its way on replaced: the run's own {@link MigrateRun#resumeHint} becomes
   * {@code instead}; a way on a layer below wrote in its own words stays, and {@code but} (which says why it does not
   * hold) follows it.
   */
  private static String withoutResumeHint(Pg2SpannerException e, String instead, String but) {
    if (e instanceof MigrateRun.Resumable r) {
      return r.failure() + " " + instead;
    }
    String message = e.getMessage();
    return message + (message.endsWith(".") ? "" : ".") + but;
  }

  /**
   * Printed when the JVM is stopped during a run (Ctrl-C): what the run directory keeps, and the next command.
   *
   * @param ownEmulator the emulator was started for this run and stops with it, taking the loaded rows along
   * @param beamRunner the Beam runner's name, or null for the in-process loader
   * @param target the target database, described
   */
  private void interrupted(Path run, boolean ownEmulator, String beamRunner, String target) {
    PrintWriter err = spec.commandLine().getErr();
    if (beamRunner != null && !ownEmulator) {
      err.println();
      err.println(beamStopped(run, beamRunner, target));
      err.flush();
      return;
    }
    if (ownEmulator) {
      err.println();
      err.println("pg2spanner: migrate was stopped. The Spanner emulator it started for this run stops with it, and "
          + "the rows loaded so far are gone with it: start again with the same migrate command and a new --run-dir "
          + "(or delete " + run + " first).");
      err.flush();
      return;
    }
    long done = 0;
    long pieces = 0;
    try {
      dev.pg2spanner.load.Checkpoint.State state = dev.pg2spanner.load.Checkpoint.read(run);
      done = state.done();
      pieces = state.savedPieces().map(java.util.List::size).orElse(0);
    } catch (RuntimeException e) {
      // best effort: the message below still says how to go on
    }
    err.println();
    err.println("pg2spanner: migrate was stopped. " + (pieces > 0
        ? done + " of " + pieces + " pieces were loaded and checkpointed in " + run + "; rows of unfinished pieces are "
            + "written again (the same rows, not duplicates). Continue with the same migrate command plus --resume"
            + (runDir == null ? "" : " (same --run-dir)") + "."
        : "No rows were loaded yet (run directory " + run + "). Run the same migrate command again; if it says the "
            + "tables exist, add --resume."));
    err.flush();
  }

  /**
   * The way on after Ctrl-C during a run on a Beam runner: the job keeps no checkpoint (so no --resume), and its
   * workers may have committed rows already, so the run starts over. Before, the in-process message said "No rows were
   * loaded yet ... add --resume", which was wrong on both counts (found by hand: rows were in the table, and --resume
   * is refused for a Beam runner).
   */
  static String beamStopped(Path run, String runnerName, String target) {
    return "pg2spanner: migrate was stopped. A load on the " + runnerName + " runner keeps no checkpoint, so this run "
        + "cannot be continued (--resume is for --runner in-process), and its workers may have written rows already: "
        + "start over. Remove " + run + " (rm -r " + run + "); if the run had created the tables, drop " + target
        + " (on the emulator: restart it, which keeps nothing) or choose another --target database; then run the same "
        + "migrate command again.";
  }

  /** The loader of the chosen runner. */
  private Loader loader(dev.pg2spanner.targetdb.SpannerTarget target, int threads) {
    return switch (runner.runner) {
      case IN_PROCESS -> Loader.IN_PROCESS;
      // PG2SPANNER_BEAM_CHECKS=true: Beam's encodability and immutability checks on (slow; for testing the pipeline).
      case DIRECT -> new BeamLoader(BeamLoader.directOptions(threads,
          "true".equals(root.env().get("PG2SPANNER_BEAM_CHECKS"))), null);
      // Flink's embedded cluster runs the job in this JVM with one task slot per worker; a remote one elsewhere.
      case FLINK -> new BeamLoader(runner.flinkOptions(jobName(target), threads), runner.workerPasswordFile,
          runner.flinkLocal() ? threads : 0);
      case DATAFLOW -> new BeamLoader(runner.dataflowOptions(jobName(target)), runner.workerPasswordFile);
    };
  }

  /** Builds the Dataflow options and the pipeline, prints both; opens no connection (no source, no Google Cloud). */
  private int dryRun(dev.pg2spanner.plan.Plan parsedPlan, Path dead, PrintWriter out) {
    dev.pg2spanner.targetdb.SpannerTarget spannerTarget = inputs.target.toTarget(root.env());
    DataflowPipelineOptions options = runner.dataflowOptions(jobName(spannerTarget));
    String yaml = dev.pg2spanner.plan.PlanFiles.toYaml(parsedPlan);
    // The graph does not depend on the runner; it is drawn with plain options and a local dead-letter placeholder,
    // because Dataflow options and gs:// paths make Beam check the bucket (network) while the graph is built.
    Pipeline pipeline = Pipeline.create(org.apache.beam.sdk.options.PipelineOptionsFactory.create());
    String deadLetter = dead.toString().startsWith("gs:") ? "/dry-run/dead-letter.jsonl" : BeamLoader.location(dead);
    LoadPipeline.build(pipeline, LoadPipeline.outline(parsedPlan), new JdbcPieceSources(yaml,
        inputs.source.url, runner.workerPasswordFile, null), parsedPlan, spannerTarget, deadLetter);
    out.println("Dry run: nothing was contacted and no job was submitted.");
    out.println("Pipeline graph (pieces are cut from the source snapshot at launch; one placeholder per table here):");
    for (String line : LoadPipeline.graph(pipeline, 3)) {
      out.println("  " + line);
    }
    out.println("Dataflow options:");
    RunnerOptions.describe(options).forEach((k, v) -> out.println("  " + k + " = " + v));
    out.println("  deadLetter = " + BeamLoader.location(dead));
    out.println("  target = " + spannerTarget.describe());
    out.println("  source = " + dev.pg2spanner.source.SourceConfig.redact(inputs.source.url));
    out.println("  source password = " + (runner.workerPasswordFile == null ? "(none: the source needs no password)"
        : "read by the workers from " + runner.workerPasswordFile));
    if (live) {
      out.println("Live (--live): on submission this process creates the publication and the logical replication "
          + "slot on the source and holds the slot's exported snapshot open in its own transaction for the whole "
          + "job; every worker imports it (SET TRANSACTION SNAPSHOT) before it reads, so the workers must reach the "
          + "same PostgreSQL server (not a replica). After the job, this process runs the schema phases and verify, "
          + "releases the snapshot and streams the slot's changes itself until pg2spanner cutover: keep it "
          + "running, and its source connection alive, from submission to cutover.");
    }
    out.flush();
    return 0;
  }

  private static String jobName(dev.pg2spanner.targetdb.SpannerTarget target) {
    return ("pg2spanner-" + target.database() + "-" + System.currentTimeMillis()).toLowerCase(java.util.Locale.ROOT)
        .replaceAll("[^a-z0-9-]", "-");
  }
}
