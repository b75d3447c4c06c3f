package dev.pg2spanner.cli;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.fallback.FallbackRun;
import dev.pg2spanner.live.LiveRun;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code pg2spanner fallback}: the application's writes to Spanner after cutover, streamed back to the source. */
@Command(name = "fallback", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"After cutover: reads the change stream cutover created and applies every write the application "
        + "makes to Spanner to the source PostgreSQL, reversing the plan's mapping (table and column names, shard "
        + "columns, remapped UUID keys, value types), in commit order, idempotently, its position kept in the source "
        + "in the same transaction as the changes. Runs until Ctrl-C or cutover --back; run it again to continue. "
        + "A value the source cannot hold is dead-lettered, never written changed."})
final class FallbackCommand implements Callable<Integer> {

  @ParentCommand
  Pg2Spanner root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--run-dir", required = true, paramLabel = "DIR", description = "The run directory of the migrate --live that was cut over.")
  Path runDir;

  @Option(names = "--source", paramLabel = "JDBC_URL",
      description = "The source (default: the run's own URL; passwords as for migrate).")
  String sourceUrl;

  @Option(names = "--password-file", paramLabel = "FILE",
      description = "A file whose first line is the source password (else PGPASSWORD).")
  Path passwordFile;

  @Option(names = "--emulator", paramLabel = "HOST:PORT",
      description = "The emulator holding the target (default: the run's own).")
  String emulator;

  @Option(names = "--progress-interval", paramLabel = "SECONDS", defaultValue = "5",
      description = "Seconds between progress lines (default: ${DEFAULT-VALUE}).")
  int progressSeconds;

  @Override
  public Integer call() throws Exception {
    if (progressSeconds < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--progress-interval must be at least 1");
    }
    LiveState state = LiveState.read(runDir).orElseThrow(() -> new Pg2SpannerException(ExitCode.RUN_STATE,
        runDir + " holds no live run; name the --run-dir of the migrate --live that was cut over"));
    state.requireCutOver(runDir);
    FallbackRun.requireState(runDir);
    SourceOptions options = new SourceOptions();
    options.url = sourceUrl != null ? sourceUrl : state.sourceUrl();
    options.passwordFile = passwordFile;
    SourceConfig source = options.toConfig(root.env());
    SpannerTarget target = SpannerTarget.parse(state.target(), emulator != null ? emulator : state.emulatorHost());
    Plan plan = state.plan(runDir, PlanFiles.read(Path.of(state.planFile())));
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch finished = new CountDownLatch(1);
    // Ctrl-C: finish the window being applied (its changes and position commit together), then say where it stopped.
    Thread hook = new Thread(() -> {
      stop.set(true);
      try {
        finished.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "fallback-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try (LiveRun.SessionFactory.Opened opened = CutoverCommand.open(target)) {
      return FallbackRun.follow(new FallbackRun.Context(plan, new SourceConnector(source), target, opened.client(),
          opened.admin(), runDir, Path.of(state.deadLetterFile()), Duration.ofSeconds(progressSeconds),
          spec.commandLine().getOut()), stop::get);
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it waits for `finished`
      }
    }
  }
}
