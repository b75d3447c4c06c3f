package dev.pg2spanner.live;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.ddl.Migration;
import dev.pg2spanner.ddl.MigrationFiles;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.schema.DdlBatchPolicy;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.schema.PostgresDialectHistory;
import dev.pg2spanner.schema.SchemaHistory;
import dev.pg2spanner.targetdb.SpannerFailures;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Applies the Spanner DDL of a schema change followed while streaming: statement by statement (so one already applied
 * before a crash is recognised and skipped), recorded as the next version in the target's Flyway history exactly as
 * Flyway would, and kept as a Flyway script in the run directory's migrations/ for the team's Flyway project.
 */
final class LiveDdl {

  private static final long DDL_TIMEOUT_MINUTES = 30;

  private LiveDdl() {}

  /** @return the version it was recorded as, e.g. "V5" */
  static String apply(LiveSession.Context ctx, SchemaFollower.Revision revision, TablePlan table) {
    long started = System.nanoTime();
    for (String statement : revision.ddl()) {
      try {
        update(ctx, List.of(statement));
      } catch (ExecutionException e) {
        String message = String.valueOf(e.getCause().getMessage());
        if (!alreadyApplied(statement, message)) {
          throw new Pg2SpannerException(ExitCode.DDL_REJECTED, NextStep.RESUME,
              "Spanner refused `" + statement + "`, which follows "
              + "the source's change of " + table.source() + " (" + String.join("; ", revision.changes()) + "): "
              + message + ". Streaming stopped before the change (nothing was lost: the slot keeps it); fix the "
              + "cause on the target, then rerun migrate --live --resume", e.getCause());
        }
      } catch (TimeoutException e) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
            "`" + statement + "` did not finish on "
            + ctx.target().describe() + " within " + DDL_TIMEOUT_MINUTES + " minutes; rerun migrate --live --resume",
            e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
            "interrupted while changing " + table.target()
            + "; rerun migrate --live --resume", e);
      }
    }
    return record(ctx, table.target(), revision.ddl(), (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * Records {@code statements}, applied, as the next version of the target's Flyway history, its script kept in the
   * run directory's migrations/.
   *
   * @param about a few words for the script's name ("items", "catalog")
   * @return the version it was recorded as, e.g. "V5 (path)"
   */
  static String record(LiveSession.Context ctx, String about, List<String> statements, long millis) {
    int version = Math.max(Migration.PHASES, highestVersion(ctx)) + 1;
    String words = about.replaceAll("[^A-Za-z0-9]+", " ").trim();
    Migration migration = new Migration(version, ("live " + words).trim(), statements);
    Path scripts = ctx.runDirectory().resolve(RunFiles.MIGRATIONS);
    MigrationFiles.write(List.of(migration), scripts);
    // A PostgreSQL-dialect database keeps the same history table, written by pg2spanner (Flyway's Spanner support
    // speaks GoogleSQL only).
    SchemaHistory history = ctx.dialect().isPostgres()
        ? new PostgresDialectHistory(ctx.admin(), ctx.client(), ctx.target())
        : new FlywayMigrator(ctx.target(), scripts);
    history.recordApplied(migration, millis);
    return "V" + version + " (" + scripts.resolve(migration.fileName()) + ")";
  }

  /** What a statement creates or drops, so one a crash left applied is recognised before it is sent again. */
  enum Kind { TABLE, INDEX, CONSTRAINT, SEQUENCE }

  /**
   * One statement of a catalog change (a table or an index created or dropped on the source).
   *
   * @param name the object's Spanner name ("schema.name" in a named schema)
   * @param creates true for CREATE / ADD, false for DROP
   */
  record Step(String statement, Kind kind, String name, boolean creates) {}

  /**
   * Applies the steps the target still needs (a created object already there, or a dropped one already gone, is a step
   * a crash left applied), grouped into requests as migrate groups its own schema phases (each schema-change request
   * costs the emulator memory for good; Spanner wants at most about ten validating statements per request), one
   * request after the other.
   *
   * @return the statements sent
   */
  static List<String> applySteps(LiveSession.Context ctx, List<Step> steps, String why) {
    List<String> statements = new java.util.ArrayList<>();
    for (Step step : steps) {
      if (exists(ctx, step) != step.creates()) {
        statements.add(step.statement());
      }
    }
    if (statements.isEmpty()) {
      return statements;
    }
    DdlBatchPolicy policy = DdlBatchPolicy.forTarget(ctx.target().emulatorHost() != null);
    for (List<String> request : policy.group(statements)) {
      try {
        update(ctx, request);
      } catch (ExecutionException e) {
        throw new Pg2SpannerException(ExitCode.DDL_REJECTED, NextStep.RESUME,
            "Spanner refused a statement of `" + String.join("; ",
            request) + "`, which follows the source's catalog (" + why + "): " + e.getCause().getMessage()
            + ". Streaming stopped before the change (nothing was lost: the slot keeps it); fix the cause on the "
            + "target, then rerun migrate --live --resume", e.getCause());
      } catch (TimeoutException e) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
            "`" + String.join("; ", request) + "` did not "
            + "finish on " + ctx.target().describe() + " within " + DDL_TIMEOUT_MINUTES + " minutes; rerun migrate "
            + "--live --resume", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
            "interrupted while changing the target's schema ("
            + why + "); rerun migrate --live --resume", e);
      }
    }
    return statements;
  }

  /** Whether the step's object is in the target's schema now. */
  static boolean exists(LiveSession.Context ctx, Step step) {
    int dot = step.name().indexOf('.');
    boolean postgres = ctx.dialect().isPostgres();
    // The default schema is '' in GoogleSQL and 'public' in the PostgreSQL dialect, whose catalog is lower-case with
    // positional parameters.
    String schema = dot < 0 ? (postgres ? "public" : "") : step.name().substring(0, dot);
    String name = step.name().substring(dot + 1);
    String sql = postgres ? switch (step.kind()) {
      case TABLE -> "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2";
      case INDEX -> "SELECT COUNT(*) FROM information_schema.indexes WHERE table_schema = $1 AND index_name = $2";
      case CONSTRAINT -> "SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_schema = $1 "
          + "AND constraint_name = $2";
      case SEQUENCE -> "SELECT COUNT(*) FROM information_schema.sequences WHERE sequence_schema = $1 "
          + "AND sequence_name = $2";
    } : switch (step.kind()) {
      case TABLE -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = @s AND TABLE_NAME = @n";
      case INDEX -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = @s AND INDEX_NAME = @n";
      case CONSTRAINT -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = @s "
          + "AND CONSTRAINT_NAME = @n";
      case SEQUENCE -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SEQUENCES WHERE SCHEMA = @s AND NAME = @n";
    };
    Statement query = Statement.newBuilder(sql).bind(postgres ? "p1" : "s").to(schema).bind(postgres ? "p2" : "n")
        .to(name).build();
    try (ResultSet rs = ctx.client().singleUse().executeQuery(query)) {
      rs.next();
      return rs.getLong(0) > 0;
    } catch (SpannerException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "cannot read the schema of "
          + ctx.target().describe() + " (" + e.getMessage() + "); rerun migrate --live --resume", e);
    }
  }

  /** How long a request waits for another schema change (or transaction) in progress on the target to end. */
  private static final long BUSY_WAIT_NANOS = TimeUnit.MINUTES.toNanos(10);

  /**
   * One schema-change request, sent again while Spanner refuses it because another is in progress: after a
   * {@code kill -9} the operation the killed run started goes on without it (and the emulator also refuses while a
   * transaction the killed run left open lasts), so a resumed run waits for it rather than stop.
   */
  private static void update(LiveSession.Context ctx, List<String> request)
      throws ExecutionException, TimeoutException, InterruptedException {
    long deadline = System.nanoTime() + BUSY_WAIT_NANOS;
    while (true) {
      try {
        ctx.admin().updateDatabaseDdl(ctx.target().instance(), ctx.target().database(), request, null)
            .get(DDL_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        return;
      } catch (ExecutionException e) {
        if (!SpannerFailures.isConcurrentSchemaChange(e.getCause().getMessage()) || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(1_000);
      }
    }
  }

  /** A statement replayed after a crash that had applied it: the column is there already, or gone already. */
  private static boolean alreadyApplied(String statement, String message) {
    String m = message.toLowerCase(Locale.ROOT);
    String s = statement.toUpperCase(Locale.ROOT);
    return (s.contains(" ADD COLUMN ") && m.contains("duplicate"))
        || ((s.contains(" DROP COLUMN ") || s.startsWith("DROP INDEX") || s.contains(" DROP CONSTRAINT "))
            && (m.contains("not found") || m.contains("does not exist") || m.contains("doesn't exist")));
  }

  private static int highestVersion(LiveSession.Context ctx) {
    try (ResultSet rs = ctx.client().singleUse().executeQuery(Statement.of("SELECT version FROM "
        + FlywayMigrator.HISTORY_TABLE + " WHERE version IS NOT NULL"))) {
      int highest = 0;
      while (rs.next()) {
        try {
          highest = Math.max(highest, Integer.parseInt(rs.getString(0)));
        } catch (NumberFormatException e) {
          // a version of another shape (the team's own "2.1"): not ours to count
        }
      }
      return highest;
    } catch (SpannerException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "cannot read Flyway's history on "
          + ctx.target().describe() + " (" + e.getMessage() + "); rerun migrate --live --resume", e);
    }
  }
}
