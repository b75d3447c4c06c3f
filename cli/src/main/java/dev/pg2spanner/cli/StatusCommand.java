package dev.pg2spanner.cli;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.migrate.RunStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pg2spanner status}: how a run is doing, from another terminal. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Shows how a migrate run is doing: whether a process runs it now (the run directory's lock names "
        + "it), pieces done and rows copied, how it ended; for a live migration its phase and latest progress "
        + "(changes applied per second, the lag in bytes and seconds, the WAL the slot holds and a warning past "
        + "--max-slot-wal). Reads the run directory only."})
final class StatusCommand implements Callable<Integer> {

  /** Clears the terminal and puts the cursor home: plain ANSI, which every terminal emulator in use understands. */
  static final String CLEAR = "\033[H\033[2J";

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--run-dir", required = true, paramLabel = "DIR", description = "The run directory of the migrate (--run-dir; default run/ beside the plan).")
  Path runDir;

  @Option(names = "--watch", description = "Show the status again every --interval seconds, on a cleared screen, "
      + "until Ctrl-C.")
  boolean watch;

  @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "2",
      description = "With --watch: seconds between refreshes (default: ${DEFAULT-VALUE}).")
  int intervalSeconds;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (intervalSeconds < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--interval must be at least 1 second, was "
          + intervalSeconds);
    }
    if (!watch) {
      return RunStatus.print(runDir, out);
    }
    try {
      while (true) {
        // Rendered whole before the screen is cleared, so the terminal never shows half a status.
        StringWriter page = new StringWriter();
        try (PrintWriter p = new PrintWriter(page)) {
          RunStatus.print(runDir, p);
        }
        out.print(CLEAR);
        out.print(page);
        out.println();
        out.println("Every " + intervalSeconds + " s, at " + Instant.now().truncatedTo(ChronoUnit.SECONDS)
            + "; Ctrl-C to stop watching (the run goes on).");
        out.flush();
        Thread.sleep(intervalSeconds * 1000L);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCode.INTERRUPTED.exitCode();
    }
  }
}
