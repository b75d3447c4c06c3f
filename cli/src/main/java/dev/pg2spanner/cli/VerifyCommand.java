package dev.pg2spanner.cli;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.PlanFiles;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pg2spanner verify}: the options are final; the implementation lands with the migrate issue. */
@Command(name = "verify", sortOptions = false,
    description = "Compares row counts and order-independent checksums of every planned table, source against target.")
final class VerifyCommand implements Callable<Integer> {

  @Option(names = "--plan", required = true, paramLabel = "FILE", description = "The plan.yaml written by plan.")
  Path plan;

  @Mixin
  SourceOptions source;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    // The plan is read and validated first, so a bad edit is reported before anything connects.
    PlanFiles.read(plan);
    throw new Pg2SpannerException(ErrorCode.NOT_IMPLEMENTED,
        "'verify' is not implemented yet in this build; 'check' is available today.");
  }
}
