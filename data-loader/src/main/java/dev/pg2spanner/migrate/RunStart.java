package dev.pg2spanner.migrate;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanChanges;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.rundir.RunRecord;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.schema.SchemaHistory;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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

  /** What this run is started with, for the run directory's record (written once the run begins). */
  static RunRecord record(MigrateOptions o, Plan plan) {
    return new RunRecord(RunRecord.FORMAT_VERSION, PlanChanges.contentHash(plan),
        o.planFile().toAbsolutePath().toString(), o.source().endpoint(), o.source().urlWithoutPassword(),
        o.source().user().orElse(null), o.target().path(), o.target().isEmulator(), plan.target().dialect(),
        o.runner(), o.live(), Instant.now().toString());
  }

  /**
   * {@code --resume} continues only the run that was started in the run directory: with the same plan (by content),
   * source, target, dialect, runner and {@code --live}. Checked before anything reaches the source or the target.
   *
   * @throws Pg2SpannerException RUN_STATE when the directory holds no run to resume, or naming what differs from
   *     the run it holds, with the command that resumes that run and the ones that start over
   */
  static void requireSameRun(MigrateOptions o, Plan plan, RunRecord now) {
    if (!o.resume()) {
      return;
    }
    Path dir = o.runDirectory();
    Optional<RunRecord> recorded = RunRecord.read(dir);
    boolean anyRun = recorded.isPresent() || Files.exists(dir.resolve(RunFiles.PIECES))
        || Files.exists(dir.resolve(RunFiles.LIVE_STATE));
    if (!anyRun) {
      throw new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.STATED, "--resume: the run directory " + dir
          + " holds no run to resume (no " + RunFiles.RECORD + ", " + RunFiles.PIECES + " or " + RunFiles.LIVE_STATE
          + "): no run was started there, or it was refused before it began: run migrate without --resume (or name "
          + "the --run-dir of the run to continue). Nothing was changed on the source or the target");
    }
    if (recorded.isEmpty()) {
      return; // written by a pg2spanner that kept no record: nothing to compare
    }
    Optional<Plan> started;
    try {
      started = RunRecord.planAtStart(dir);
    } catch (Pg2SpannerException e) {
      started = Optional.empty();
    }
    RunRecord then = recorded.get();
    List<String> differences = then.differences(now, started, plan);
    if (differences.isEmpty()) {
      return;
    }
    SpannerTarget recordedTarget = SpannerTarget.parse(then.target(), then.emulator()
        ? (o.target().isEmulator() ? o.target().emulatorHost() : "HOST:PORT") : null);
    throw new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.STATED, "--resume: the run in " + dir + " (started "
        + then.startedAt() + ") was started with a different " + String.join("; a different ", differences)
        + ". Continuing "
        + "it so would mix two migrations in one target, so nothing was changed on the source or the target. Either "
        + "resume the run as it was started: " + resumeCommand(then, recordedTarget, dir) + "; or start a new run: "
        + startOver(recordedTarget, dir));
  }

  /**
   * A resumed run whose source no longer matches its plan cannot go on: its plan reads columns that changed, and a
   * new plan would not match the rows already loaded (nor the tables V1 created). Says so, with the commands that
   * start over; any other failure is returned as it is.
   */
  static Pg2SpannerException whenResuming(MigrateOptions o, Pg2SpannerException e) {
    if (!o.resume() || !(e instanceof SourceDrift.Changed changed)) {
      return e;
    }
    return new Pg2SpannerException(e.code(), NextStep.STATED,
        "--resume: the source changed since the run in " + o.runDirectory()
        + " was planned (" + String.join("; ", changed.problems()) + "), so that run cannot continue: its plan no "
        + "longer matches the source, and a new plan would not match the rows and tables it already loaded. Start "
        + "over: " + planAgain(o) + ", then " + startOver(o.target(), o.runDirectory()).replace("run migrate",
        "run migrate with the new plan") + ". Nothing was changed on the source or the target", e);
  }

  /** The plan command that plans {@code o}'s source again beside its plan file. */
  static String planAgain(MigrateOptions o) {
    Path planDir = o.planFile().toAbsolutePath().getParent();
    return "pg2spanner plan --source '" + o.source().urlWithoutPassword() + "' --out " + planDir + " --replace "
        + "(review the new plan.yaml)";
  }

  private static String resumeCommand(RunRecord then, SpannerTarget target, Path dir) {
    return "pg2spanner migrate --resume --plan " + dir.resolve(RunFiles.PLAN_AT_START) + " --source '"
        + then.sourceUrl() + "' --target " + target.path() + (target.isEmulator() ? " --emulator "
        + target.emulatorHost() : "") + ("in-process".equals(then.runner()) ? "" : " --runner " + then.runner())
        + (then.live() ? " --live" : "") + " --run-dir " + dir;
  }

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
      throw new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.RESUME, "run directory "
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
        throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED, "--resume: the run directory "
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
        throw new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.STATED, "--resume: run directory "
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
      throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.RESUME, target.describe()
          + " already holds this migration's tables, with rows in " + loaded.get() + " (Flyway history records V1). "
          + "Continue that run with --resume and its --run-dir, or start over: " + startOver(o));
    }
    if (!resumable) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED, "--resume: "
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
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write the dead-letter file "
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
    return startOver(o.target(), o.runDirectory());
  }

  /** The commands that discard the half-made {@code t} and the run directory, for messages. */
  static String startOver(SpannerTarget t, Path runDirectory) {
    String drop = t.isEmulator()
        ? "drop " + t.path() + " (restart the emulator, which keeps nothing, or choose another --target database)"
        : "gcloud spanner databases delete " + t.database() + " --instance=" + t.instance() + " --project="
            + t.project() + " (this deletes every row in it)";
    return drop + ", remove " + runDirectory + " (rm -r " + runDirectory + "), then run migrate without --resume";
  }

  private static boolean exists(Spanner spanner, SpannerTarget target) {
    try {
      spanner.getDatabaseAdminClient().getDatabase(target.instance(), target.database());
      return true;
    } catch (SpannerException e) {
      if (e.getErrorCode() == ErrorCode.NOT_FOUND) {
        return false;
      }
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot read "
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
      String sql = "SELECT 1 FROM " + SpannerNames.qualified(plan.target().spannerDialect(), t.targetSchema(),
          t.targetName()) + " LIMIT 1";
      try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
        boolean row = rs.next(); // the query runs here: a missing table throws now
        count++;
        if (row && withRows.isEmpty()) {
          withRows = Optional.of(t.target());
        }
      } catch (SpannerException e) {
        if (e.getErrorCode() != ErrorCode.NOT_FOUND && e.getErrorCode() != ErrorCode.INVALID_ARGUMENT) {
          throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot read "
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
      String sql = "SELECT 1 FROM " + SpannerNames.qualified(plan.target().spannerDialect(), t.targetSchema(),
          t.targetName()) + " LIMIT 1";
      try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
        if (rs.next()) {
          return Optional.of(t.target());
        }
      } catch (SpannerException e) {
        if (e.getErrorCode() == ErrorCode.NOT_FOUND || e.getErrorCode() == ErrorCode.INVALID_ARGUMENT) {
          // Flyway's history records V1, but not of this plan: the database holds another migration.
          throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED, target.describe()
              + " records a V1 in Flyway's history, but has no table " + t.target() + " of this plan: it holds "
              + "another migration (or the plan was edited since). Choose another --target database, or start over: "
              + startOver(o), e);
        }
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot read "
            + t.target() + " on " + target.describe() + " (" + e.getMessage() + ")", e);
      }
    }
    return Optional.empty();
  }
}
