package dev.pg2spanner.cli;

import dev.pg2spanner.migrate.RunStatus;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pg2spanner status}: how a run is doing, from another terminal. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Shows how a migrate run is doing: whether a process runs it now (the run directory's lock names "
        + "it), pieces done and rows copied, how it ended; for a live migration its phase and latest progress "
        + "(changes applied per second, the lag in bytes and seconds). Reads the run directory only."})
final class StatusCommand implements Callable<Integer> {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--run-dir", required = true, paramLabel = "DIR", description = "The run directory of the migrate (--run-dir; default run/ beside the plan).")
  Path runDir;

  @Override
  public Integer call() {
    return RunStatus.print(runDir, spec.commandLine().getOut());
  }
}
