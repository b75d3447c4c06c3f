package dev.pg2spanner.testing;

import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when a real component cannot be provided: in CI ({@code CI} set) it fails, so a
 * misconfigured machine can never pass by skipping; elsewhere it skips with the same message.
 */
public final class TestEnvironment {

  private TestEnvironment() {}

  /** True when running in CI, where a missing component is an error. */
  public static boolean inCi(Map<String, String> env) {
    String ci = env.get("CI");
    return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
  }

  /**
   * Stops the current test (class) because {@code what} is missing.
   *
   * @param what the component, e.g. "PostgreSQL"
   * @param howToProvide what the reader can do about it
   */
  public static RuntimeException unavailable(String what, String howToProvide) {
    String message = what + " is not available for this test: " + howToProvide;
    if (inCi(System.getenv())) {
      throw new IllegalStateException(message + " (CI is set, so this fails instead of skipping)");
    }
    Assumptions.abort(message + " (skipped because CI is not set)");
    throw new AssertionError("unreachable");
  }
}
