package dev.pg2spanner.cli;

import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.fallback.FallbackRun;
import dev.pg2spanner.live.LiveRun;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.preflight.CheckResult;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.targetdb.TargetPreflight;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code pg2spanner cutover}: the end of a live run, once the application's writes are stopped. */
@Command(name = "cutover", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Ends a live migration (migrate --live) once the application's writes to the source are stopped: "
        + "applies every remaining change, verifies the source's final state against the target — the rows changed "
        + "since each table was last verified while streaming, or every row with --full (exit 0 only when every "
        + "table matches) — moves Spanner's sequences past every id the source handed out, and drops the "
        + "replication slot and publication. Asks the running migrate --live to do it; cuts over itself when none runs."})
final class CutoverCommand implements Callable<Integer> {

  @ParentCommand
  Pg2Spanner root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--run-dir", required = true, paramLabel = "DIR", description = "The run directory of the migrate --live.")
  Path runDir;

  @Option(names = "--source", paramLabel = "JDBC_URL",
      description = "The source, when no migrate --live runs (default: the run's own URL; passwords as for migrate).")
  String sourceUrl;

  @Option(names = "--password-file", paramLabel = "FILE",
      description = "A file whose first line is the source password (else PGPASSWORD).")
  Path passwordFile;

  @Option(names = "--emulator", paramLabel = "HOST:PORT",
      description = "The emulator holding the target, when no migrate --live runs (default: the run's own).")
  String emulator;

  @Option(names = "--progress-interval", paramLabel = "SECONDS", defaultValue = "5",
      description = "Seconds between progress lines (default: ${DEFAULT-VALUE}).")
  int progressSeconds;

  @Option(names = "--full", description = {"Compare every row of every table with the writes stopped (a full "
      + "verify, as long as the database is large), instead of only the rows changed since each table was last "
      + "verified while streaming."})
  boolean full;

  @Option(names = "--no-fallback", description = {"Do not create the change stream that records every write to "
      + "Spanner after cutover (its storage is the cost): pg2spanner fallback then cannot bring those writes back "
      + "to the source."})
  boolean noFallback;

  @Option(names = "--back", description = {"The way back, after fallback: once the application's writes to Spanner "
      + "are stopped, apply the last of them to the source, verify the source equal to Spanner (every row), move the "
      + "source's sequences past every id Spanner handed out, and drop the change stream (exit 0 only when every "
      + "table matches). Stops a running fallback first."})
  boolean back;

  @Override
  public Integer call() throws Exception {
    if (progressSeconds < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--progress-interval must be at least 1");
    }
    LiveState state = LiveState.read(runDir).orElseThrow(() -> new Pg2SpannerException(ExitCode.RUN_STATE,
        runDir + " holds no live run; name the --run-dir of a migrate --live"));
    SourceOptions options = new SourceOptions();
    options.url = sourceUrl != null ? sourceUrl : state.sourceUrl();
    options.passwordFile = passwordFile;
    SourceConfig source = options.toConfig(root.env());
    String host = emulator != null ? emulator : state.emulatorHost();
    SpannerTarget target = SpannerTarget.parse(state.target(), host);
    Plan plan = PlanFiles.read(Path.of(state.planFile()));
    if (back) {
      state.requireCutOver(runDir);
      FallbackRun.requireState(runDir);
      try (LiveRun.SessionFactory.Opened opened = open(target)) {
        FallbackRun.Result result = FallbackRun.cutoverBack(new FallbackRun.Context(state.plan(runDir, plan),
            new SourceConnector(source), target, opened.client(), opened.admin(), runDir,
            Path.of(state.deadLetterFile()), Duration.ofSeconds(progressSeconds), spec.commandLine().getOut()));
        spec.commandLine().getOut().println(result.message());
        spec.commandLine().getOut().flush();
        return result.exitCode();
      }
    }
    int exit = LiveRun.cutover(runDir, source, target, plan, s -> open(target), Duration.ofSeconds(progressSeconds),
        full, !noFallback, spec.commandLine().getOut());
    if (exit != 0 && exit != ExitCode.VERIFY_MISMATCH.exitCode()) {
      spec.commandLine().getErr().println("pg2spanner: cutover did not finish (see above); nothing was removed "
          + "that is still needed. Fix the cause and run cutover again.");
    }
    return exit;
  }

  static LiveRun.SessionFactory.Opened open(SpannerTarget target) {
    // No migrate --live runs, so this process talks to the target itself: reachability first, with bounded waits
    // (the client alone retries an unreachable endpoint for minutes).
    TargetPreflight.run(target).stream()
        .filter(r -> r.status() == CheckResult.Status.FAIL)
        .findFirst()
        .ifPresent(r -> {
          throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "no migrate --live is running for this run, "
              + "and the target cannot be reached: " + r.detail() + (target.isEmulator() ? ". If migrate --live "
              + "started its own emulator (--emulator without a value), the target ended with that process; pass "
              + "--emulator HOST:PORT when the run's emulator lives elsewhere" : ""));
        });
    Spanner spanner = SpannerConnector.open(target);
    DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
        target.database()));
    return new LiveRun.SessionFactory.Opened() {
      @Override
      public DatabaseClient client() {
        return client;
      }

      @Override
      public DatabaseAdminClient admin() {
        return spanner.getDatabaseAdminClient();
      }

      @Override
      public void close() {
        spanner.close();
      }
    };
  }
}
