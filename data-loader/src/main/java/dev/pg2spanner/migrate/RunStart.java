package dev.pg2spanner.migrate;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.schema.SchemaHistory;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.util.List;
import java.util.Optional;

/**
 * Decides, before the first change to the target, whether this run may start: the run directory and the
 * dead-letter file can be written, the checkpoint agrees with {@code --resume}, and the target's state agrees
 * with both. Every refusal says how to continue, or how to start over, so that no failure leaves the user
 * between "use --resume" and "run without --resume".
 *
 * <p>A target whose tables exist but are all empty (an earlier run stopped after V1 and before any row was
 * written) is reused by a plain run and by {@code --resume} alike.
 */
final class RunStart {

  /**
   * What the run begins with.
   *
   * @param tablesExist V1 is applied on the target
   * @param fresh the load starts from the first piece (no checkpoint is resumed)
   * @param note a sentence to print before the run, or null
   * @param completeTables V1 is not recorded but some of its tables exist, all empty (an earlier run stopped while
   *     applying it): keep them and apply the rest
   */
  record Decision(boolean tablesExist, boolean fresh, String note, boolean completeTables) {
    Decision(boolean tablesExist, boolean fresh, String note) {
      this(tablesExist, fresh, note, false);
    }
  }

  private RunStart() {}

  /** Opens (and so checks) the run directory's checkpoint and the dead-letter file; touches nothing remote. */
  static Checkpoint.State local(MigrateOptions o) {
    Checkpoint.State state;
    try (Checkpoint checkpoint = Checkpoint.open(o.runDirectory())) {
      state = checkpoint.state();
    } catch (Pg2SpannerException e) {
      throw new Pg2SpannerException(e.code(), "cannot use the run directory " + o.runDirectory() + " ("
          + rootCause(e) + "); choose a writable --run-dir. Nothing was changed on the target", e);
    }
    requireWritable(o.deadLetterFile());
    // A live run's directory is judged by LiveRun from its live.json, with the live run's own next step.
    if (!o.resume() && !o.live() && state.savedPieces().isPresent()) {
      throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONFLICT, "run directory "
          + o.runDirectory() + " holds an earlier run (" + state.done() + " of " + state.savedPieces().get().size()
          + " pieces done); continue it with --resume, or choose another --run-dir. Nothing was changed on the "
          + "target");
    }
    return state;
  }

  /** Reads the target (without changing it) and decides; throws what refuses the run. */
  static Decision decide(Spanner spanner, MigrateOptions o, Plan plan, Checkpoint.State state,
      SchemaHistory flyway) {
    SpannerTarget target = o.target();
    boolean tablesExist = exists(spanner, target) && SchemaPhases.isApplied(flyway, 1);
    if (o.live() && o.resume()) {
      return new Decision(tablesExist, false, null); // LiveRun decided from its own state file
    }
    boolean resumable = state.savedPieces().isPresent();
    if (!tablesExist) {
      if (o.resume() && state.done() > 0) {
        // The checkpoint would skip pieces whose rows are gone (e.g. an emulator restarted mid-load keeps nothing).
        throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONFLICT, "--resume: the run directory "
            + o.runDirectory() + " records " + state.done() + " finished pieces, but " + target.describe()
            + " has no tables from this migration (was it recreated?); start again without --resume and with a new "
            + "--run-dir. Nothing was changed on the target");
      }
      Tables present = exists(spanner, target) ? present(spanner, o, plan) : new Tables(0, Optional.empty());
      if (present.count() > 0 && present.withRows().isEmpty() && !resumable) {
        return new Decision(false, true, "an earlier run stopped while creating the tables (" + present.count()
            + " of " + plan.tables().size() + " exist, all empty): this run creates the rest and loads from the "
            + "start", true);
      }
      if (o.resume() && !resumable) {
        throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.PLAN_INVALID, "--resume: run directory "
            + o.runDirectory() + " holds no earlier run and " + target.describe() + " has none of this "
            + "migration's tables; run migrate without --resume. Nothing was changed on the target");
      }
      return new Decision(false, !resumable, null);
    }
    Optional<String> loaded = firstTableWithRows(spanner, o, plan);
    if (loaded.isEmpty() && !(o.resume() && resumable)) {
      return new Decision(true, true, "the tables exist from an earlier run that stopped before loading any "
          + "row; they are empty, so this run loads into them from the start");
    }
    if (!o.resume()) {
      throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONFLICT, target.describe()
          + " already holds this migration's tables, with rows in " + loaded.get() + " (Flyway history records V1). "
          + "Continue that run with --resume and its --run-dir, or start over: " + startOver(o));
    }
    if (!resumable) {
      throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONFLICT, "--resume: "
          + target.describe() + " holds rows (in " + loaded.get() + ") but run directory " + o.runDirectory()
          + " holds no checkpoint of the run that wrote them; pass that run's --run-dir, or start over: "
          + startOver(o));
    }
    return new Decision(true, false, null);
  }

  /**
   * The dead-letter file can be created or appended to. Checked without creating it: a Beam run writes it only when
   * rows are rejected, and a Dataflow run's gs:// path is the workers' to write.
   */
  private static void requireWritable(java.nio.file.Path file) {
    if (file.toString().startsWith("gs:")) {
      return;
    }
    java.nio.file.Path parent = file.toAbsolutePath().getParent();
    String problem = null;
    try {
      java.nio.file.Files.createDirectories(parent);
      if (java.nio.file.Files.isDirectory(file)) {
        problem = "it is a directory";
      } else if (java.nio.file.Files.exists(file) ? !java.nio.file.Files.isWritable(file)
          : !java.nio.file.Files.isWritable(parent)) {
        problem = "not writable by this user";
      }
    } catch (java.io.IOException | RuntimeException e) {
      problem = e.getClass().getSimpleName() + ": " + e.getMessage();
    }
    if (problem != null) {
      throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.LOCAL_IO, "cannot write the dead-letter file "
          + file + " (" + problem + "); choose a writable --dead-letter path. Nothing was changed on the target");
    }
  }

  private static String rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t == e ? e.getMessage() : t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  /** The commands that discard a half-made target, for messages. */
  static String startOver(MigrateOptions o) {
    SpannerTarget t = o.target();
    String drop = t.isEmulator()
        ? "restart the emulator (it keeps nothing) or choose another --target database"
        : "gcloud spanner databases delete " + t.database() + " --instance=" + t.instance() + " --project="
            + t.project() + " (this deletes every row in it)";
    return drop + ", remove " + o.runDirectory() + ", then run migrate without --resume";
  }

  private static boolean exists(Spanner spanner, SpannerTarget target) {
    try {
      spanner.getDatabaseAdminClient().getDatabase(target.instance(), target.database());
      return true;
    } catch (SpannerException e) {
      if (e.getErrorCode() == ErrorCode.NOT_FOUND) {
        return false;
      }
      throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION, "cannot read "
          + target.describe() + " (" + e.getMessage() + "); check credentials and permissions", e);
    }
  }

  /** How many planned tables exist on the target (V1 not recorded), and the first that holds a row. */
  private record Tables(int count, Optional<String> withRows) {}

  private static Tables present(Spanner spanner, MigrateOptions o, Plan plan) {
    DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(o.target().project(), o.target().instance(),
        o.target().database()));
    int count = 0;
    Optional<String> withRows = Optional.empty();
    for (TablePlan t : plan.tables()) {
      String sql = "SELECT 1 FROM " + SpannerNames.qualified(dev.pg2spanner.spanner.SpannerLimits.forDialect(plan.target().dialect()), t.targetSchema(),
          t.targetName()) + " LIMIT 1";
      try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
        boolean row = rs.next(); // the query runs here: a missing table throws now
        count++;
        if (row && withRows.isEmpty()) {
          withRows = Optional.of(t.target());
        }
      } catch (SpannerException e) {
        if (e.getErrorCode() != ErrorCode.NOT_FOUND && e.getErrorCode() != ErrorCode.INVALID_ARGUMENT) {
          throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION, "cannot read "
              + t.target() + " on " + o.target().describe() + " (" + e.getMessage() + ")", e);
        }
      }
    }
    return new Tables(count, withRows);
  }

  /** The first planned table that holds a row, if any. */
  private static Optional<String> firstTableWithRows(Spanner spanner, MigrateOptions o, Plan plan) {
    SpannerTarget target = o.target();
    DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
        target.database()));
    List<TablePlan> tables = plan.tables();
    for (TablePlan t : tables) {
      String sql = "SELECT 1 FROM " + SpannerNames.qualified(dev.pg2spanner.spanner.SpannerLimits.forDialect(plan.target().dialect()), t.targetSchema(),
          t.targetName()) + " LIMIT 1";
      try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
        if (rs.next()) {
          return Optional.of(t.target());
        }
      } catch (SpannerException e) {
        if (e.getErrorCode() == ErrorCode.NOT_FOUND || e.getErrorCode() == ErrorCode.INVALID_ARGUMENT) {
          // Flyway's history records V1, but not of this plan: the database holds another migration.
          throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONFLICT, target.describe()
              + " records a V1 in Flyway's history, but has no table " + t.target() + " of this plan: it holds "
              + "another migration (or the plan was edited since). Choose another --target database, or start over: "
              + startOver(o), e);
        }
        throw new Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION, "cannot read "
            + t.target() + " on " + target.describe() + " (" + e.getMessage() + ")", e);
      }
    }
    return Optional.empty();
  }
}
