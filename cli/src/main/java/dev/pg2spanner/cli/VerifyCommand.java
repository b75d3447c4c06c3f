package dev.pg2spanner.cli;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.migrate.VerifyRun;
import dev.pg2spanner.verify.TableVerification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code pg2spanner verify}: are source and target the same, row for row? */
@Command(name = "verify", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Compares row counts and order-independent checksums of every planned table, source (one "
        + "snapshot) against target (one timestamp); prints the first differing keys. Exit 0 only when all match."})
final class VerifyCommand implements Callable<Integer> {

  @ParentCommand
  Pg2Spanner root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  PlanSourceTargetOptions inputs;

  @Option(names = "--threads", paramLabel = "N", defaultValue = "2",
      description = "Tables verified in parallel (default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--skip-unplanned-tables", description = "Tables of the planned schemas that are not in the plan "
      + "are still listed, but do not make verify fail.")
  boolean skipUnplannedTables;

  @Option(names = "--dead-letter", paramLabel = "FILE", description = "The dead-letter file of the migrate run "
      + "that loaded the target: source rows it lists are left out of the comparison and counted. Without it (or "
      + "--run-dir), a source row that cannot be converted makes its table differ.")
  Path deadLetter;

  @Option(names = "--run-dir", paramLabel = "DIR", description = "The run directory of the migrate run that loaded "
      + "the target: its dead-letter file is used as with --dead-letter.")
  Path runDir;

  @Override
  public Integer call() throws Exception {
    if (threads < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--threads must be at least 1");
    }
    if (deadLetter != null && runDir != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "give --dead-letter or --run-dir, not both");
    }
    Path deadLetterFile = deadLetterFile();
    dev.pg2spanner.plan.Plan plan = dev.pg2spanner.plan.PlanFiles.read(inputs.plan);
    try (TargetOptions.Resolved resolved = inputs.target.resolve(root.env())) {
      VerifyRun.Result result = VerifyRun.execute(inputs.plan, plan, inputs.source.toConfig(root.env()),
          resolved.target(), threads, deadLetterFile, spec.commandLine().getOut());
      List<TableVerification> results = result.tables();
      long differing = results.stream().filter(r -> !r.matches()).count();
      if (differing > 0) {
        spec.commandLine().getErr().println("pg2spanner: " + differing + " of " + results.size()
            + " table(s) differ between source and target (see above)");
        return ExitCode.VERIFY_MISMATCH.exitCode();
      }
      if (!result.unplanned().isEmpty() && !skipUnplannedTables) {
        spec.commandLine().getErr().println("pg2spanner: the " + results.size() + " planned table(s) match, but "
            + result.unplanned().size() + " source table(s) are not in the plan and were not migrated: "
            + String.join(", ", result.unplanned()) + ". Run plan again to include them, or pass "
            + "--skip-unplanned-tables if they are left out on purpose");
        return ExitCode.VERIFY_MISMATCH.exitCode();
      }
      spec.commandLine().getOut().println("All " + results.size() + " table(s) match.");
      return 0;
    }
  }

  /** The dead-letter file to account rows with, or null; a named file or run directory must exist. */
  private Path deadLetterFile() {
    if (deadLetter != null) {
      if (!Files.isRegularFile(deadLetter)) {
        throw new Pg2SpannerException(ExitCode.LOCAL_IO, "the dead-letter file " + deadLetter + " does not exist; "
            + "name the file migrate wrote (its --dead-letter, or dead-letter.jsonl in its run directory)");
      }
      return deadLetter;
    }
    if (runDir == null) {
      return null;
    }
    if (!Files.isDirectory(runDir)) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "the run directory " + runDir + " does not exist; name "
          + "the --run-dir of the migrate run that loaded the target");
    }
    Path file = LiveState.read(runDir).map(s -> Path.of(s.deadLetterFile()))
        .orElse(runDir.resolve(dev.pg2spanner.rundir.RunFiles.DEAD_LETTER));
    // A run that rejected nothing writes no file: then there is nothing to leave out.
    return Files.exists(file) ? file : null;
  }
}
