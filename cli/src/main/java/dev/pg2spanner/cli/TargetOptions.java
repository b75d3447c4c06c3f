package dev.pg2spanner.cli;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.IOException;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options that name the target Spanner database; a mixin. */
public final class TargetOptions {

  /** The value picocli gives {@code --emulator} when it has none: start the installed emulator. */
  static final String START_LOCAL = "(start)";

  @Option(names = "--target", paramLabel = "DB_PATH",
      description = "The Spanner database: projects/PROJECT/instances/INSTANCE/databases/DATABASE")
  String path;

  @Option(names = "--emulator", paramLabel = "HOST:PORT", arity = "0..1", fallbackValue = START_LOCAL,
      description = {"Use the Spanner emulator at HOST:PORT (default: SPANNER_EMULATOR_HOST when set). Without a "
          + "value, start the installed emulator for this run (its data is gone when the run ends)."})
  String emulator;

  boolean given() {
    return path != null;
  }

  /** True when {@code --emulator} has no value: the command starts a new, empty emulator of its own. */
  boolean startsEmulator() {
    return START_LOCAL.equals(emulator);
  }

  /** A target, and the emulator started for it (null when none was started); close it to stop that emulator. */
  record Resolved(SpannerTarget target, LocalEmulator started) implements AutoCloseable {
    @Override
    public void close() {
      if (started != null) {
        started.close();
      }
    }
  }

  /** The target; the emulator from {@code --emulator}, else {@code SPANNER_EMULATOR_HOST}. */
  SpannerTarget toTarget(Map<String, String> env) {
    String host = emulator != null && !START_LOCAL.equals(emulator) ? emulator : env.get("SPANNER_EMULATOR_HOST");
    return SpannerTarget.parse(path, host);
  }

  /** Like {@link #toTarget}, but starts the installed emulator when {@code --emulator} has no value. */
  Resolved resolve(Map<String, String> env) {
    if (path == null) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "no target given: pass --target "
          + "projects/PROJECT/instances/INSTANCE/databases/DATABASE");
    }
    if (!startsEmulator()) {
      return new Resolved(toTarget(env), null);
    }
    EmulatorBinaries binaries = EmulatorBinaries.locate(env).orElseThrow(() -> new Pg2SpannerException(
        ExitCode.ENVIRONMENT, "--emulator needs the Spanner emulator and none is installed: "
            + EmulatorBinaries.installHint()));
    try {
      LocalEmulator started = LocalEmulator.start(binaries);
      return new Resolved(SpannerTarget.parse(path, started.hostPort()), started);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.ENVIRONMENT, "cannot start the Spanner emulator (" + e.getMessage()
          + ")", e);
    }
  }
}
