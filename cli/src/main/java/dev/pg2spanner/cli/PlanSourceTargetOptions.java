package dev.pg2spanner.cli;

import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The plan and the two databases it moves between: the option block of every command that carries out or checks a
 * plan ({@code migrate}, {@code verify}); a mixin.
 */
final class PlanSourceTargetOptions {

  @Option(names = "--plan", required = true, paramLabel = "FILE", description = "The plan.yaml written by plan.")
  Path plan;

  @Mixin
  SourceOptions source;

  @Mixin
  TargetOptions target;
}
