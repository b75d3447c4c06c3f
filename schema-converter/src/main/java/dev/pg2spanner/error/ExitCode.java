package dev.pg2spanner.error;

/**
 * Every expected outcome other than success, each with the process exit code it owns. Exit codes 0, 1 and 2 are
 * reserved for success, internal errors (bugs) and usage errors; they are not listed here. README's exit-code table
 * lists exactly these and those three (a test compares them).
 */
public enum ExitCode {
  /**
   * PostgreSQL cannot be reached, refuses the login, or the database does not exist; or, once connected, the source
   * cannot be read for a reason of its own operation: a lock another session holds or waits for, a cancelled
   * statement, a lost connection, a server shutting down.
   */
  SOURCE_CONNECTION(3, "cannot connect to or read the source PostgreSQL database"),
  /** The source role lacks a privilege that plan or migrate needs, or cannot see every row (row-level security). */
  SOURCE_PRIVILEGES(4, "the source role lacks privileges"),
  /** Spanner (or the emulator) cannot be reached, or the instance/database is missing or not accessible. */
  TARGET_CONNECTION(5, "cannot connect to the target Spanner database"),
  /** The plan file is missing, malformed, fails validation, or no longer matches the source. */
  PLAN_INVALID(6, "the plan is invalid or stale"),
  /** The target already holds objects that conflict with the plan. */
  TARGET_CONFLICT(7, "the target database conflicts with the plan"),
  /** More rows were rejected than --max-bad-rows allows; they are in the dead-letter file. */
  DATA_REJECTED(8, "rows were rejected"),
  /** verify found tables whose rows differ between source and target. */
  VERIFY_MISMATCH(9, "source and target differ"),
  /** A local file or directory cannot be read or written (output directory, dead-letter file, disk full). */
  LOCAL_IO(10, "a local file could not be read or written"),
  /** A required local tool is missing (e.g. the Spanner emulator for --emulator). */
  ENVIRONMENT(11, "a required local component is missing"),
  /**
   * The source is not set up for a live migration: wal_level is not logical, no replication slot or WAL sender is
   * free, a table's updates cannot be identified (no primary key and no usable REPLICA IDENTITY), or a live run's
   * replication slot is missing or taken.
   */
  SOURCE_NOT_READY(12, "the source is not ready for a live migration"),
  /** The source has no table to migrate (empty database, or everything filtered out). */
  EMPTY_SOURCE(13, "the source has no tables to migrate"),
  /**
   * {@code plan} wrote all its files, but found ERROR findings (an unsupported type, a key over Spanner's limits, rows
   * the role cannot see) to resolve before migrate.
   */
  PLAN_HAS_ERRORS(14, "plan wrote its files but found errors to resolve (see report.md)"),
  /**
   * The run directory does not allow this command: another process holds it (its lock names the process),
   * {@code --resume} names a run directory with nothing to resume, or the run it records was started with another
   * plan, source, target, dialect or runner.
   */
  RUN_STATE(15, "the run directory does not allow this: another process is using it, it has nothing to resume, or "
      + "it records a run started with another plan, source, target, dialect or runner"),
  /**
   * Stopped by Ctrl-C (SIGINT) before it finished; what was done is kept (a live run streams again with
   * {@code --resume}). The JVM itself ends with this code on SIGINT, and with 143 on SIGTERM.
   */
  INTERRUPTED(130, "stopped by Ctrl-C before it finished; what was done is kept (continue with --resume)"),
  /**
   * Spanner refused one of the plan's schema statements (an index, foreign key or CHECK Spanner cannot create on the
   * loaded data, or a table definition): the message names that statement, its object and Spanner's reason; the
   * statements before it are applied, and {@code migrate --resume} applies the rest once the cause is fixed.
   */
  DDL_REJECTED(16, "Spanner rejected a schema statement of the plan (the message names it and why)"),
  /**
   * A live run stopped streaming because its replication slot held more WAL than {@code --stop-slot-wal}: the
   * message gives the command that drops the slot (freeing the source's disk, giving the run up) and the one that
   * resumes it.
   */
  SLOT_WAL_LIMIT(17, "a live run stopped streaming: its replication slot held more WAL than --stop-slot-wal (the "
      + "message gives the drop and resume commands)"),
  /**
   * {@code fallback} or {@code cutover --back} cannot go on: the run was not cut over, its cutover created no change
   * stream ({@code --no-fallback}), or the application kept writing to Spanner during {@code cutover --back}.
   */
  FALLBACK_NOT_READY(18, "fallback or cutover --back cannot go on: not cut over, no change stream (--no-fallback), "
      + "or writes to Spanner did not stop during cutover --back");

  private final int exitCode;
  private final String summary;

  ExitCode(int exitCode, String summary) {
    this.exitCode = exitCode;
    this.summary = summary;
  }

  public int exitCode() {
    return exitCode;
  }

  /** A short phrase for the exit-code list in {@code --help}. */
  public String summary() {
    return summary;
  }
}
