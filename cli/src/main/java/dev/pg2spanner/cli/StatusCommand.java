package dev.pg2spanner.cli;

import dev.pg2spanner.live.LiveRun;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pg2spanner status}: how a live run is doing, from another terminal. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Shows a live migration's phase, whether a migrate --live process runs it, and its latest "
        + "progress: changes applied per second and the lag in bytes and seconds. Reads the run directory only."})
final class StatusCommand implements Callable<Integer> {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--run-dir", required = true, paramLabel = "DIR", description = "The run directory of the migrate --live.")
  Path runDir;

  @Override
  public Integer call() {
    return LiveRun.status(runDir, spec.commandLine().getOut());
  }
}
