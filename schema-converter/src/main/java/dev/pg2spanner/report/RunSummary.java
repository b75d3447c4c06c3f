package dev.pg2spanner.report;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What one {@code migrate} run did, for {@code run-summary.html} ({@link RunSummaryHtml}): plain figures, so that this
 * module renders them without knowing the loader.
 *
 * @param source the source, "host:port/database"
 * @param target the target database path
 * @param planFile the plan the run carried out
 * @param started when the run started
 * @param elapsed the whole run's wall time
 * @param status "completed", or what stopped the run (e.g. "failed: ...")
 * @param phases the phases that ran, in order, each with its wall time
 * @param tables per table loaded in this run
 * @param deadLetters rows rejected in this run
 * @param deadLetterFile where rejected rows are listed
 * @param verification per table, empty when verify did not run
 * @param nextStep what to do next (resume, verify later, nothing), or null
 * @param live a live run's progress reports while it streamed (from progress.jsonl), oldest first; empty otherwise
 */
public record RunSummary(String source, String target, String planFile, Instant started, Duration elapsed,
    String status, List<Phase> phases, List<TableLoad> tables, long deadLetters, String deadLetterFile,
    List<TableCheck> verification, String nextStep, List<LivePoint> live) {

  /** The summary of a run that did not stream. */
  public RunSummary(String source, String target, String planFile, Instant started, Duration elapsed,
      String status, List<Phase> phases, List<TableLoad> tables, long deadLetters, String deadLetterFile,
      List<TableCheck> verification, String nextStep) {
    this(source, target, planFile, started, elapsed, status, phases, tables, deadLetters, deadLetterFile,
        verification, nextStep, List.of());
  }

  public RunSummary {
    Objects.requireNonNull(status, "status");
    live = live == null ? List.of() : List.copyOf(live);
    phases = List.copyOf(phases);
    tables = List.copyOf(tables);
    verification = List.copyOf(verification);
  }

  /** One phase: "tables", "load", "indexes, foreign keys, checks", "verify". */
  public record Phase(String name, Duration elapsed) {}

  /**
   * @param busy worker time spent on the table's pieces (rows/s is rows over this)
   */
  public record TableLoad(String table, long rows, long bytes, long rejected, Duration busy) {
    public double rowsPerSecond() {
      double s = busy.toNanos() / 1e9;
      return s <= 0 ? 0 : rows / s;
    }
  }

  public record TableCheck(String table, long sourceRows, long targetRows, boolean matches) {}

  /**
   * One progress report of a live run.
   *
   * @param lagSeconds now minus the commit time of the last source transaction applied (0 caught up)
   * @param lagBytes WAL not yet applied
   * @param changesPerSecond changes applied per second since the previous report
   * @param slotRetainedBytes WAL the slot held, or -1 when unknown
   */
  public record LivePoint(Instant at, double lagSeconds, long lagBytes, double changesPerSecond,
      long slotRetainedBytes) {
    public LivePoint {
      Objects.requireNonNull(at, "at");
    }
  }

  public long rowsWritten() {
    return tables.stream().mapToLong(TableLoad::rows).sum();
  }

  /** Verify ran and every table matched. */
  public boolean verified() {
    return !verification.isEmpty() && verification.stream().allMatch(TableCheck::matches);
  }
}
