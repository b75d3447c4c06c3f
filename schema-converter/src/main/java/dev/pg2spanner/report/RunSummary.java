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
 */
public record RunSummary(String source, String target, String planFile, Instant started, Duration elapsed,
    String status, List<Phase> phases, List<TableLoad> tables, long deadLetters, String deadLetterFile,
    List<TableCheck> verification, String nextStep) {

  public RunSummary {
    Objects.requireNonNull(status, "status");
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

  public long rowsWritten() {
    return tables.stream().mapToLong(TableLoad::rows).sum();
  }

  /** Verify ran and every table matched. */
  public boolean verified() {
    return !verification.isEmpty() && verification.stream().allMatch(TableCheck::matches);
  }
}
