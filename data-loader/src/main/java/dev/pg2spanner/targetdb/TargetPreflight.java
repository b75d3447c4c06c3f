package dev.pg2spanner.targetdb;

import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.preflight.CheckResult;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What {@code pg2spanner check --target} verifies: the target answers, the instance and database exist (or
 * will be created), the database speaks GoogleSQL, and whether it already holds tables.
 */
public final class TargetPreflight {

  /** The client retries UNAVAILABLE for minutes; a check should answer in seconds. */
  private static final long CALL_TIMEOUT_SECONDS = 30;

  private TargetPreflight() {}

  /**
   * Runs the checks and throws the first that failed, so that a command that writes or reads the target learns
   * within about 30 s that it cannot (the client alone retries an unreachable endpoint for many minutes).
   *
   * @param doing what the command was about to do, e.g. "migrate into"
   */
  public static void require(SpannerTarget target, String doing) {
    require(target, doing, null);
  }

  /**
   * {@link #require(SpannerTarget, String)} for a plan written for {@code planDialect} ("GOOGLE_STANDARD_SQL",
   * "POSTGRESQL"): an existing database of the other dialect is refused.
   */
  public static void require(SpannerTarget target, String doing, String planDialect) {
    run(target, planDialect).stream()
        .filter(r -> r.status() == CheckResult.Status.FAIL)
        .findFirst()
        .ifPresent(r -> {
          throw new dev.pg2spanner.error.Pg2SpannerException(r.failure(), "cannot " + doing + " " + target.describe()
              + ": " + r.detail());
        });
  }

  public static List<CheckResult> run(SpannerTarget target) {
    return run(target, null);
  }

  /**
   * The checks, with the database's dialect compared to {@code planDialect} (null: reported, never refused).
   */
  public static List<CheckResult> run(SpannerTarget target, String planDialect) {
    List<CheckResult> results = new ArrayList<>();
    if (target.isEmulator() && !accepts(target.emulatorHost())) {
      results.add(CheckResult.fail("target reachable", "nothing listens at " + target.emulatorHost()
          + " (SPANNER_EMULATOR_HOST / --emulator). Start the emulator, or run `pg2spanner migrate --emulator` "
          + "which starts the installed one", ExitCode.TARGET_CONNECTION));
      return results;
    }
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "target-preflight");
      t.setDaemon(true);
      return t;
    });
    try (Spanner spanner = SpannerConnector.open(target)) {
      Future<List<CheckResult>> future = executor.submit(() -> checks(spanner, target, planDialect));
      results.addAll(future.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS));
    } catch (TimeoutException e) {
      results.add(CheckResult.fail("target reachable", "no answer from " + target.describe() + " within "
          + CALL_TIMEOUT_SECONDS + " s. Check network access to Spanner and your credentials "
          + "(gcloud auth application-default login)", ExitCode.TARGET_CONNECTION));
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      results.add(CheckResult.fail("target reachable", "cannot reach " + target.describe() + " ("
          + firstLine(cause.getMessage()) + ")", ExitCode.TARGET_CONNECTION));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      results.add(CheckResult.fail("target reachable", "interrupted", ExitCode.TARGET_CONNECTION));
    } finally {
      executor.shutdownNow();
    }
    return results;
  }

  private static List<CheckResult> checks(Spanner spanner, SpannerTarget target, String planDialect) {
    List<CheckResult> results = new ArrayList<>();
    try {
      spanner.getInstanceAdminClient().getInstance(target.instance());
      results.add(CheckResult.ok("instance", "projects/" + target.project() + "/instances/" + target.instance()
          + " exists"));
    } catch (SpannerException e) {
      if (e.getErrorCode() == ErrorCode.NOT_FOUND) {
        results.add(target.isEmulator()
            ? CheckResult.info("instance", "instance " + target.instance() + " does not exist yet; migrate creates it "
                + "on the emulator")
            : CheckResult.fail("instance", "instance " + target.instance() + " does not exist in project "
                + target.project() + "; create it (gcloud spanner instances create) or fix --target",
                ExitCode.TARGET_CONNECTION));
        return results;
      }
      results.add(CheckResult.fail("instance", "cannot read instance " + target.instance() + " ("
          + firstLine(e.getMessage()) + "); check credentials and the spanner.instances.get permission",
          ExitCode.TARGET_CONNECTION));
      return results;
    }
    try {
      // Only whether it exists: its dialect is asked of the database below.
      spanner.getDatabaseAdminClient().getDatabase(target.instance(), target.database());
    } catch (SpannerException e) {
      if (e.getErrorCode() == ErrorCode.NOT_FOUND) {
        results.add(CheckResult.info("database", "database " + target.database() + " does not exist yet; migrate "
            + (target.isEmulator() ? "creates it on the emulator" : "creates it only with --create-database")));
      } else {
        results.add(CheckResult.fail("database", "cannot read database " + target.database() + " ("
            + firstLine(e.getMessage()) + ")", ExitCode.TARGET_CONNECTION));
      }
      return results;
    }
    // Asked of the database itself: the emulator's GetDatabase leaves the dialect out (1.5.28).
    Dialect dialect = spanner.getDatabaseClient(com.google.cloud.spanner.DatabaseId.of(target.project(),
        target.instance(), target.database())).getDialect();
    String spoken = dialect == Dialect.POSTGRESQL ? "PostgreSQL" : "GoogleSQL";
    if (planDialect != null && !planDialect.equals(dialect.name())) {
      String planned = planDialect.equals(Dialect.POSTGRESQL.name()) ? "PostgreSQL" : "GoogleSQL";
      results.add(CheckResult.fail("dialect", "database " + target.database() + " uses the " + spoken + " dialect, "
          + "but the plan was written for the " + planned + " dialect. Target another (or a new) database, or plan "
          + "again with --dialect " + (dialect == Dialect.POSTGRESQL ? "postgresql" : "googlesql"),
          ExitCode.TARGET_CONFLICT));
      return results;
    }
    results.add(CheckResult.ok("dialect", spoken));
    long tables;
    try (ResultSet rs = spanner.getDatabaseClient(com.google.cloud.spanner.DatabaseId.of(
            target.project(), target.instance(), target.database()))
        .singleUse()
        .executeQuery(Statement.of("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema NOT IN "
            + "('INFORMATION_SCHEMA', 'SPANNER_SYS', 'information_schema', 'spanner_sys', 'pg_catalog')"))) {
      rs.next();
      tables = rs.getLong(0);
    }
    results.add(tables == 0
        ? CheckResult.ok("database contents", "database " + target.database() + " is empty")
        : CheckResult.warn("database contents", "database " + target.database() + " already holds " + tables
            + " table(s); migrate refuses conflicting tables unless --resume"));
    return results;
  }

  private static boolean accepts(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      return false;
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(hostPort.substring(0, colon),
          Integer.parseInt(hostPort.substring(colon + 1))), 2000);
      return true;
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
