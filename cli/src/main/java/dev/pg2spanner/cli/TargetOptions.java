package dev.pg2spanner.cli;

import dev.pg2spanner.target.SpannerTarget;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options that name the target Spanner database; a mixin. */
public final class TargetOptions {

  @Option(names = "--target", paramLabel = "DB_PATH",
      description = "The Spanner database: projects/PROJECT/instances/INSTANCE/databases/DATABASE")
  String path;

  @Option(names = "--emulator", paramLabel = "HOST:PORT",
      description = "Use the Spanner emulator at HOST:PORT (default: SPANNER_EMULATOR_HOST when set).")
  String emulator;

  boolean given() {
    return path != null;
  }

  /** The target; the emulator from {@code --emulator}, else {@code SPANNER_EMULATOR_HOST}. */
  SpannerTarget toTarget(Map<String, String> env) {
    String host = emulator != null ? emulator : env.get("SPANNER_EMULATOR_HOST");
    return SpannerTarget.parse(path, host);
  }
}
