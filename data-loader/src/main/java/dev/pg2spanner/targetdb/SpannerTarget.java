package dev.pg2spanner.targetdb;

import dev.pg2spanner.error.InvalidValueException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Spanner database to write to. Serializable: a Beam job carries it to its workers (references only, no
 * credential).
 *
 * @param project the Google Cloud project id
 * @param instance the instance id (2–64 characters)
 * @param database the database id (2–30 characters)
 * @param emulatorHost {@code host:port} of an emulator's gRPC endpoint, or null for real Spanner
 */
public record SpannerTarget(String project, String instance, String database, String emulatorHost)
    implements java.io.Serializable {

  private static final Pattern PATH =
      Pattern.compile("^projects/([^/]+)/instances/([^/]+)/databases/([^/]+)$");
  private static final Pattern INSTANCE_ID = Pattern.compile("^[a-z][-a-z0-9]{0,62}[a-z0-9]$");
  private static final Pattern DATABASE_ID = Pattern.compile("^[a-z][a-z0-9_\\-]{0,28}[a-z0-9]$");

  private static final Pattern HOST_PORT = Pattern.compile("^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9][-A-Za-z0-9.]*):(\\d{1,5})$");

  public SpannerTarget {
    if (emulatorHost != null) {
      Matcher hp = HOST_PORT.matcher(emulatorHost);
      if (!hp.matches() || Integer.parseInt(hp.group(2)) < 1 || Integer.parseInt(hp.group(2)) > 65535) {
        throw invalid("emulator address '" + emulatorHost + "' (from --emulator or SPANNER_EMULATOR_HOST) is not "
            + "HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:9010");
      }
    }
    if (!INSTANCE_ID.matcher(instance).matches()) {
      throw invalid("instance id '" + instance + "' is not valid: 2–64 characters, lower-case letters, digits and "
          + "hyphens, starting with a letter");
    }
    if (!DATABASE_ID.matcher(database).matches()) {
      throw invalid("database id '" + database + "' is not valid: 2–30 characters, lower-case letters, digits, "
          + "'_' and '-', starting with a letter");
    }
  }

  /**
   * Parses {@code projects/P/instances/I/databases/D}.
   *
   * @param emulatorHost the emulator to use, or null for real Spanner
   */
  public static SpannerTarget parse(String path, String emulatorHost) {
    Matcher m = PATH.matcher(path == null ? "" : path.trim());
    if (!m.matches()) {
      throw invalid("--target '" + path + "' is not a database path: use projects/PROJECT/instances/INSTANCE/"
          + "databases/DATABASE");
    }
    return new SpannerTarget(m.group(1), m.group(2), m.group(3), blankToNull(emulatorHost));
  }

  public boolean isEmulator() {
    return emulatorHost != null;
  }

  /** {@code projects/P/instances/I/databases/D}. */
  public String path() {
    return "projects/" + project + "/instances/" + instance + "/databases/" + database;
  }

  /** How messages name the target, e.g. "projects/p/instances/i/databases/d on the emulator at 127.0.0.1:9010". */
  public String describe() {
    return path() + (isEmulator() ? " on the emulator at " + emulatorHost : "");
  }

  private static InvalidValueException invalid(String message) {
    return new InvalidValueException(message);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
