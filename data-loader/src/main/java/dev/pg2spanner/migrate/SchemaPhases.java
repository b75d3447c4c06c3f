package dev.pg2spanner.migrate;

import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.ddl.Migration;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.schema.DdlBatchPolicy;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.schema.SchemaHistory;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;

/**
 * The schema phases, applied through the Spanner admin API in batched requests ({@link DdlBatchPolicy},
 * {@link DdlApplier}) and recorded in Flyway's history exactly as Flyway would ({@link FlywayMigrator#recordApplied}):
 * one success row per version, written once the whole phase is applied. Flyway itself would send one request per
 * statement (flyway-gcp-spanner 12.4.0 runs DDL statement by statement, outside transactions), which on the emulator
 * costs about 20 MB per request, and Flyway Community refuses Spanner databases over 10 GB, which a loaded database
 * usually is. {@code flyway info}/{@code validate} agree afterwards.
 *
 * <p>Resume: a phase that stopped part-way (a rejected statement, a lost target) is continued by sending only the
 * statements whose object (table, index, constraint …) the database does not hold yet, read from its DDL.
 */
final class SchemaPhases {

  private SchemaPhases() {}

  static boolean isApplied(SchemaHistory flyway, int version) {
    return flyway.applied().stream().anyMatch(a -> a.version() == version && a.success());
  }

  /**
   * V1 (schemas, sequences, tables) on the still-empty database, one request at a time (a table needs its interleave
   * parent and its sequences first). Flyway's history table must exist ({@link FlywayMigrator#ensureHistoryTable}).
   *
   * @param resume whether objects of V1 left by an earlier, stopped run may be kept; without it they are a conflict
   */
  static void applyTables(DatabaseAdminClient admin, SpannerTarget target, SchemaHistory flyway, Migration tables,
      DdlBatchPolicy policy, boolean resume, PrintWriter out) {
    Set<String> existing = existing(admin, target);
    List<String> present = tables.statements().stream().filter(s -> DdlObjects.exists(s, existing)).toList();
    if (!present.isEmpty() && !resume) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.RESUME, target.describe() + " already holds "
          + present.size() + " of the " + tables.statements().size() + " objects of " + tables.fileName() + " (e.g. "
          + DdlObjects.describe(present.get(0)) + ") but Flyway's history does not record it; continue the "
          + "earlier run with --resume, or migrate into an empty database");
    }
    apply(admin, target, flyway, tables, policy.withInFlight(1), existing, false, out);
  }

  /** V2 (indexes), V3 (foreign keys), V4 (checks) after the load; a version already recorded is skipped. */
  static void applyPostLoad(DatabaseAdminClient admin, SpannerTarget target, SchemaHistory flyway,
      Migration migration, DdlBatchPolicy policy, PrintWriter out) {
    if (isApplied(flyway, migration.version())) {
      out.println("  " + migration.fileName() + ": already applied");
      out.flush();
      return;
    }
    apply(admin, target, flyway, migration, policy, existing(admin, target), true, out);
  }

  private static void apply(DatabaseAdminClient admin, SpannerTarget target, SchemaHistory flyway,
      Migration migration, DdlBatchPolicy policy, Set<String> existing, boolean loaded, PrintWriter out) {
    List<String> pending = migration.statements().stream().filter(s -> !DdlObjects.exists(s, existing)).toList();
    int present = migration.statements().size() - pending.size();
    DdlProgress progress = new DdlProgress(out, migration.fileName(), pending.size());
    List<List<String>> batches = policy.group(pending);
    if (!batches.isEmpty() && pending.size() > DdlProgress.PER_STATEMENT_MAX) {
      progress.note(pending.size() + " statements in " + batches.size() + " request(s), " + policy.inFlight()
          + " at a time");
    }
    List<DdlApplier.Failure> failures;
    try {
      failures = new DdlApplier(admin, target).apply(batches, policy.inFlight(), progress);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "interrupted while applying "
          + migration.fileName() + "; rerun migrate with --resume", e);
    }
    if (!failures.isEmpty()) {
      throw failure(admin, target, migration, failures, present + progress.done(), loaded, progress);
    }
    progress.finished(present);
    flyway.recordApplied(migration, progress.elapsedMillis());
  }

  /** One sentence: which statement stopped the phase, on which object, what is applied, what to do next. */
  private static Pg2SpannerException failure(DatabaseAdminClient admin, SpannerTarget target, Migration migration,
      List<DdlApplier.Failure> failures, int knownApplied, boolean loaded, DdlProgress progress) {
    DdlApplier.Failure f = failures.get(0);
    String failing = f.applied() < f.batch().size() ? f.batch().get(f.applied()) : f.batch().get(0);
    int appliedInPhase = -1;
    if (!f.connection()) {
      // The operation's metadata may be unavailable for a failed request, and a target may refuse a whole request for
      // one statement without applying any (the emulator does for a CHECK it cannot create): the statements the
      // schema does not hold yet are sent again one by one, so the one Spanner refuses is the one named, with its own
      // error, and those before it are applied as Spanner applies a request's statements up to the one it refuses.
      try {
        Set<String> now = existing(admin, target);
        List<String> unapplied = f.batch().stream().filter(s -> !DdlObjects.exists(s, now)).toList();
        failing = unapplied.isEmpty() ? failing : unapplied.get(0);
        for (String statement : unapplied) {
          List<DdlApplier.Failure> single = new DdlApplier(admin, target).apply(List.of(List.of(statement)), 1,
              progress);
          if (!single.isEmpty()) {
            f = single.get(0);
            failing = statement;
            break;
          }
        }
        Set<String> after = existing(admin, target);
        appliedInPhase = (int) migration.statements().stream().filter(s -> DdlObjects.exists(s, after)).count();
      } catch (Pg2SpannerException ignored) {
        // Keep what the metadata said.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    int position = migration.statements().indexOf(failing) + 1;
    int total = migration.statements().size();
    String applied = appliedInPhase >= 0 ? appliedInPhase + " of its " + total + " statements are applied"
        : knownApplied + " of its " + total + " statements are known to be applied";
    String state = loaded ? "the data is loaded" : "no rows are loaded yet";
    String more = failures.size() > 1 ? " (" + (failures.size() - 1) + " more request(s) failed too)" : "";
    if (f.connection()) {
      return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
          migration.fileName() + ": statement " + position
          + " of " + total + " (" + DdlObjects.describe(failing) + ") did not complete on " + target.describe() + ": "
          + f.detail() + more + "; " + applied + " and " + state + ", so once the target answers again rerun migrate "
          + "with --resume to apply the rest" + (target.isEmulator() ? " (a restarted emulator has lost the "
          + "database: then start again without --resume)" : "") + ".", f.cause());
    }
    return new Pg2SpannerException(ExitCode.DDL_REJECTED, NextStep.RESUME,
        migration.fileName() + ": Spanner rejected statement "
        + position + " of " + total + " (" + DdlObjects.describe(failing) + ") on " + target.describe() + ": "
        + f.detail() + more + "; " + applied + " and " + state + ", so fix the cause (e.g. edit the plan or the "
        + "data) and rerun migrate with --resume to apply the rest.", f.cause());
  }

  private static Set<String> existing(DatabaseAdminClient admin, SpannerTarget target) {
    try {
      return DdlObjects.existing(admin.getDatabaseDdl(target.instance(), target.database()));
    } catch (SpannerException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
          "cannot read the schema of " + target.describe()
          + " (" + e.getErrorCode() + ": " + DdlApplier.firstLine(e.getMessage()) + "); check the target and rerun "
          + "migrate with --resume.", e);
    }
  }
}
