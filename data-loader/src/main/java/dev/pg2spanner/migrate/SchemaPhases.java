package dev.pg2spanner.migrate;

import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.ddl.Migration;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.schema.AppliedMigration;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The schema phases. V1 (tables) runs through Flyway on the still-empty database. V2 (indexes) and V3 (foreign keys)
 * run after the load through the Spanner admin API, one long-running operation per statement with progress, and are
 * then recorded in Flyway's history exactly as Flyway would — because Flyway Community refuses Spanner databases
 * over 10 GB, and a loaded database is usually larger. {@code flyway info}/{@code validate} agree afterwards.
 */
final class SchemaPhases {

  /** One index build or foreign-key validation may take long on real data; the admin operation keeps running. */
  private static final long STATEMENT_TIMEOUT_HOURS = 12;

  private SchemaPhases() {}

  static boolean isApplied(FlywayMigrator flyway, int version) {
    return flyway.applied().stream().anyMatch(a -> a.version() == version && a.success());
  }

  static void applyPostLoad(DatabaseAdminClient admin, SpannerTarget target, FlywayMigrator flyway,
      Migration migration, PrintWriter out) {
    if (isApplied(flyway, migration.version())) {
      out.println("  " + migration.fileName() + ": already applied");
      out.flush();
      return;
    }
    long started = System.nanoTime();
    List<String> statements = migration.statements();
    int n = 0;
    for (String statement : statements) {
      n++;
      long t0 = System.nanoTime();
      String what = summarise(statement);
      out.printf(Locale.ROOT, "  %s (%d/%d) %s ...", migration.fileName(), n, statements.size(), what);
      out.flush();
      try {
        admin.updateDatabaseDdl(target.instance(), target.database(), List.of(statement), null)
            .get(STATEMENT_TIMEOUT_HOURS, TimeUnit.HOURS);
        out.printf(Locale.ROOT, " done in %.1f s%n", (System.nanoTime() - t0) / 1e9);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (alreadyExists(cause)) {
          // A resumed run whose previous attempt created this object before stopping.
          out.println(" already present");
          continue;
        }
        out.println(" failed");
        out.flush();
        throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONFLICT, migration.fileName() + ": "
            + what + " failed on " + target.describe() + " (" + firstLine(cause.getMessage()) + "). The data is "
            + "loaded; fix the cause (e.g. edit the plan), then rerun migrate with --resume to apply the rest.", cause);
      } catch (TimeoutException e) {
        throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION, migration.fileName() + ": "
            + what + " did not finish within " + STATEMENT_TIMEOUT_HOURS + " h; it continues on Spanner. Rerun "
            + "migrate with --resume once it has finished.", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION, "interrupted while "
            + "applying " + migration.fileName() + "; rerun migrate with --resume", e);
      }
      out.flush();
    }
    flyway.recordApplied(migration, (System.nanoTime() - started) / 1_000_000);
  }

  private static boolean alreadyExists(Throwable e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    boolean code = e instanceof SpannerException s
        && (s.getErrorCode() == ErrorCode.ALREADY_EXISTS || s.getErrorCode() == ErrorCode.FAILED_PRECONDITION);
    return code && (message.contains("Duplicate name") || message.contains("already exists"));
  }

  /** "CREATE INDEX x ON t (...)" → "CREATE INDEX x", "ALTER TABLE t ADD CONSTRAINT c ..." → "constraint c on t". */
  static String summarise(String statement) {
    String s = statement.strip().replaceAll("\\s+", " ");
    int paren = s.indexOf('(');
    if (s.startsWith("ALTER TABLE")) {
      String[] parts = s.split(" ");
      if (parts.length > 6) {
        String kind = parts[6].startsWith("CHECK") ? "check " : "foreign key ";
        return kind + parts[5] + " on " + parts[2];
      }
      return s;
    }
    return paren > 0 ? s.substring(0, paren).strip() : s;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
