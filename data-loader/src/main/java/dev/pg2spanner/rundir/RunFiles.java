package dev.pg2spanner.rundir;

/**
 * The names of the files in a run directory ({@code migrate --run-dir}, default {@code run/} beside the plan), in one
 * place. Every command that writes one of them holds the directory's {@link RunDirectoryLock} while it does.
 */
public final class RunFiles {

  /** The lock every writing command holds for its whole life ({@link RunDirectoryLock}); names its holder. */
  public static final String LOCK = "run.lock";
  /** What the run was started with: plan hash, source, target, dialect, runner ({@link RunRecord}). */
  public static final String RECORD = "run.json";
  /** The plan the run was started with, as it was then: what {@code --resume} must be given again. */
  public static final String PLAN_AT_START = "plan-at-start.yaml";
  /** The load's cut of pieces, written once ({@code load/Checkpoint}). */
  public static final String PIECES = "pieces.json";
  /** One line per finished piece ({@code load/Checkpoint}). */
  public static final String DONE = "done.jsonl";
  /** Progress lines of the load, verify and the live stream. */
  public static final String PROGRESS = "progress.jsonl";
  /** Rejected rows, unless {@code --dead-letter} names another file. */
  public static final String DEAD_LETTER = "dead-letter.jsonl";
  /** The run's summary page, written when a migrate ends. */
  public static final String SUMMARY = "run-summary.html";
  /** What a live run set up on the source and how far it got ({@code live/LiveState}). */
  public static final String LIVE_STATE = "live.json";
  /** {@code cutover} asks a running {@code migrate --live} to cut over by writing this file. */
  public static final String CUTOVER_REQUEST = "cutover.request";
  /** The running {@code migrate --live} answers a cutover request here. */
  public static final String CUTOVER_RESULT = "cutover.result";

  /** The change stream cutover created for fallback, where it starts, and how far fallback got ({@code fallback/FallbackState}). */
  public static final String FALLBACK_STATE = "fallback.json";
  /** {@code cutover --back} asks a running {@code fallback} to stop by writing this file. */
  public static final String FALLBACK_STOP = "fallback.stop";

  /** What continuous verification has verified of a live run, saved when it stops ({@code live/VerificationLedger}). */
  public static final String VERIFICATION = "verification.json";
  /** The plan as revised by the n-th schema change a live run followed: {@code plan-live-<n>.yaml}. */
  public static final String PLAN_REVISION_PREFIX = "plan-live-";
  /**
   * Where a live run copies a table created on the source while streaming: one folder per table and copy, each with
   * that copy's checkpoint and {@link #DEAD_LETTER} ({@code live/CatalogReconcile}).
   */
  public static final String TABLES_ADDED = "tables-added";
  /** The Flyway scripts of the schema changes a live run applied to the target (V5 and up). */
  public static final String MIGRATIONS = "migrations";

  private RunFiles() {}
}
