package dev.pg2spanner.cli;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.migrate.VerifyRun;
import dev.pg2spanner.verify.TableVerification;
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

  @Override
  public Integer call() throws Exception {
    if (threads < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--threads must be at least 1");
    }
    dev.pg2spanner.plan.PlanFiles.read(inputs.plan);
    try (TargetOptions.Resolved resolved = inputs.target.resolve(root.env())) {
      VerifyRun.Result result = VerifyRun.execute(inputs.plan, inputs.source.toConfig(root.env()),
          resolved.target(), threads, spec.commandLine().getOut());
      List<TableVerification> results = result.tables();
      long differing = results.stream().filter(r -> !r.matches()).count();
      if (differing > 0) {
        spec.commandLine().getErr().println("pg2spanner: " + differing + " of " + results.size()
            + " table(s) differ between source and target (see above)");
        return ErrorCode.VERIFY_MISMATCH.exitCode();
      }
      if (!result.unplanned().isEmpty() && !skipUnplannedTables) {
        spec.commandLine().getErr().println("pg2spanner: the " + results.size() + " planned table(s) match, but "
            + result.unplanned().size() + " source table(s) are not in the plan and were not migrated: "
            + String.join(", ", result.unplanned()) + ". Run plan again to include them, or pass "
            + "--skip-unplanned-tables if they are left out on purpose");
        return ErrorCode.VERIFY_MISMATCH.exitCode();
      }
      spec.commandLine().getOut().println("All " + results.size() + " table(s) match.");
      return 0;
    }
  }
}
