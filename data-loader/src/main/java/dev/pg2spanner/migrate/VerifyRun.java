package dev.pg2spanner.migrate;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.preflight.RowVisibility;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.targetdb.TargetPreflight;
import dev.pg2spanner.verify.SnapshotVerify;
import dev.pg2spanner.verify.TableVerification;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;

/**
 * {@code pg2spanner verify}, any time after a migration: the source is read in one exported snapshot through the
 * plan's converters and compared table by table with the target read at one timestamp.
 */
public final class VerifyRun {

  private VerifyRun() {}

  /**
   * What verify found.
   *
   * @param tables the planned tables, compared
   * @param unplanned tables of the planned schemas that are not in the plan: neither copied nor compared
   */
  public record Result(List<TableVerification> tables, List<String> unplanned) {}

  /**
   * @param planFile where {@code plan} was read from (named in messages)
   * @param plan the plan, read once by the caller
   * @param deadLetterFile the dead-letter file of the run that loaded the target: the rows it lists are left out
   *     and counted; null when there is none (then every source row the converter refuses fails its table)
   */
  public static Result execute(Path planFile, Plan plan, SourceConfig sourceConfig, SpannerTarget target,
      int threads, Path deadLetterFile, PrintWriter out) throws Exception {
    SourceConnector source = new SourceConnector(sourceConfig);
    RowVisibility.Report visibility;
    List<String> unplanned;
    try (Connection c = source.open()) {
      List<String> tables = plan.tables().stream().map(dev.pg2spanner.plan.TablePlan::source).toList();
      SourceAccess.waitForLocks(c, tables, "verify");
      // Reported, never refused: verify says what the plan leaves out.
      try {
        unplanned = SourceDrift.check(c, plan, true);
      } catch (SourceDrift.Changed e) {
        throw new dev.pg2spanner.error.Pg2SpannerException(e.code(), "verify compares the source with the target "
            + "through this plan, and the source no longer matches it: " + String.join("; ", e.problems()) + ". A "
            + "target migrated with this plan holds the old shape, and a new plan would not match it either: plan "
            + "again (pg2spanner plan --source '" + sourceConfig.urlWithoutPassword() + "' --out "
            + planFile.toAbsolutePath().getParent() + " --replace), migrate into a new database, and verify that one",
            e);
      }
      visibility = RowVisibility.read(c, tables);
    }
    if (!visibility.unreadable().isEmpty()) {
      throw new dev.pg2spanner.error.Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "role "
          + visibility.role().name() + " cannot read " + visibility.unreadable().stream()
          .map(RowVisibility.Restriction::describe).collect(java.util.stream.Collectors.joining("; "))
          + "; verify reads each partition directly. GRANT SELECT on them (and USAGE on their schemas), or verify as "
          + "a role that may read them");
    }
    // Reachability first, with the preflight's bounded waits (the client alone retries UNAVAILABLE for minutes).
    TargetPreflight.require(target, "verify against", plan.target().dialect());
    try (Spanner spanner = SpannerConnector.open(target)) {
      try {
        spanner.getDatabaseAdminClient().getDatabase(target.instance(), target.database());
      } catch (com.google.cloud.spanner.SpannerException e) {
        if (e.getErrorCode() != com.google.cloud.spanner.ErrorCode.NOT_FOUND) {
          throw e;
        }
        throw new dev.pg2spanner.error.Pg2SpannerException(ExitCode.TARGET_CONNECTION,
            "cannot verify against " + target.describe() + ": the instance or database does not exist; name the "
                + "database migrate wrote to", e);
      }
      List<TableVerification> results = verify(plan, source, spanner, target, threads, out, visibility,
          deadLetterFile);
      if (!unplanned.isEmpty()) {
        out.println("NOT IN THE PLAN, so neither copied nor compared: " + String.join(", ", unplanned)
            + " (created after plan ran, or removed from plan.yaml)");
        out.flush();
      }
      return new Result(results, unplanned);
    }
  }

  private static List<TableVerification> verify(Plan plan, SourceConnector source, Spanner spanner,
      SpannerTarget target, int threads, PrintWriter out, RowVisibility.Report visibility, Path deadLetterFile)
      throws Exception {
    boolean filtered = !visibility.filtered().isEmpty();
    // Row-level security applies only when this role is filtered anyway: then verify compares what it can see, and
    // says so; otherwise a policy appearing mid-run makes the read fail rather than compare fewer rows.
    try (SnapshotSession snapshot = SnapshotSession.open(source, filtered)) {
      DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
          target.database()));
      List<TableVerification> results = SnapshotVerify.inSnapshot(plan, snapshot, null, client, deadLetterFile, threads, out,
          WayOn.stated("run verify again"));
      if (filtered) {
        out.println("Compared the FILTERED VIEW of " + String.join(", ", visibility.filteredTables()) + ": row-level "
            + "security lets role " + visibility.role().name() + " see only some of their rows, and the rows it cannot "
            + "see were not compared (where the target holds them, they show as extra in target). "
            + "To compare every row, " + visibility.advice() + ".");
        out.flush();
      }
      return results;
    }
  }
}
