package dev.pg2spanner.cli;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.PlanFiles;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pg2spanner migrate}: the options are final; the implementation lands with the migrate issue. */
@Command(name = "migrate", sortOptions = false,
    description = "Carries out a plan: tables, a partitioned parallel load in non-key order, then indexes and "
        + "foreign keys, then verify.")
final class MigrateCommand implements Callable<Integer> {

  @Option(names = "--plan", required = true, paramLabel = "FILE", description = "The plan.yaml written by plan.")
  Path plan;

  @Mixin
  SourceOptions source;

  @Mixin
  TargetOptions target;

  @Option(names = "--workers", paramLabel = "N", description = "Parallel readers/writers (default: 2 x cores).")
  Integer workers;

  @Option(names = "--resume", description = "Continue an interrupted run with the pieces not yet done.")
  boolean resume;

  @Option(names = "--max-bad-rows", paramLabel = "N", defaultValue = "0",
      description = "Fail once more rows than this are rejected (default: ${DEFAULT-VALUE}).")
  long maxBadRows;

  @Option(names = "--dead-letter", paramLabel = "PATH", description = "Where rejected rows are written (JSON lines).")
  Path deadLetter;

  @Option(names = "--create-database", description = "Create the Spanner database if missing (real Spanner).")
  boolean createDatabase;

  @Override
  public Integer call() {
    // The plan is read and validated first, so a bad edit is reported before anything connects.
    PlanFiles.read(plan);
    throw new Pg2SpannerException(ErrorCode.NOT_IMPLEMENTED,
        "'migrate' is not implemented yet in this build; 'check' is available today.");
  }
}
