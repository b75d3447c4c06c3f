package dev.pg2spanner.cli;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pg2spanner plan}: the options are final; the implementation lands with the plan issue. */
@Command(name = "plan", sortOptions = false,
    description = "Reads the source catalog and statistics and writes a reviewable plan, a report and Spanner DDL "
        + "as Flyway migrations.")
final class PlanCommand implements Callable<Integer> {

  @Mixin
  SourceOptions source;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where plan.yaml, report.md, "
      + "report.json and migrations/ are written.")
  Path out;

  @Option(names = "--schemas", split = ",", paramLabel = "SCHEMA",
      description = "Only these schemas (default: every non-system schema).")
  List<String> schemas;

  @Option(names = "--exclude-tables", paramLabel = "PATTERN",
      description = "Leave out tables whose schema.name matches this regular expression.")
  String excludeTables;

  @Option(names = "--nodes", paramLabel = "N", defaultValue = "3",
      description = "Expected Spanner nodes: sizes hash shards and the write-skew model (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Override
  public Integer call() {
    throw new Pg2SpannerException(ErrorCode.NOT_IMPLEMENTED,
        "'plan' is not implemented yet in this build; 'check' is available today.");
  }
}
