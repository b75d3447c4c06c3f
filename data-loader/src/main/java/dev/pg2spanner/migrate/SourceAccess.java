package dev.pg2spanner.migrate;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.preflight.RowVisibility;
import dev.pg2spanner.preflight.TableLocks;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Before {@code migrate} touches the target: can the migrating role read every row the plan copies, now? Rows it
 * cannot see would be lost without an error (row-level security), and relations it cannot read (a partition without
 * SELECT) or that another session holds locked would stop the load half-way, so each is refused here, naming the
 * relation and what to do. Locks come first: the drift check's catalog reads (relation sizes) would otherwise wait
 * behind another session's ACCESS EXCLUSIVE lock for as long as it is held.
 *
 * <p>A copy filtered by row-level security runs only when the user accepts it ({@code --accept-filtered-copy}); it
 * is then announced at the start, recorded in the run's progress log and repeated in the final summary. A live run
 * never accepts one: logical replication streams the changes to every row whatever the policies, so the stream
 * would not match a filtered load.
 */
public final class SourceAccess {

  /** How long migrate waits for another session's ACCESS EXCLUSIVE lock on a planned table before refusing. */
  static final Duration LOCK_WAIT = Duration.ofSeconds(5);

  private static final Duration LOCK_POLL = Duration.ofMillis(250);
  private static final int NAMES_SHOWN = 10;

  /**
   * What the check found and the run accepted.
   *
   * @param visibility what the migrating role reads; only filtered restrictions remain when the run goes on
   */
  public record Outcome(RowVisibility.Report visibility) {
    public Outcome {
      Objects.requireNonNull(visibility, "visibility");
    }

    /** True when the copy is filtered by row-level security (accepted with --accept-filtered-copy). */
    public boolean filtered() {
      return !visibility.filtered().isEmpty();
    }

    /** The planned tables ("schema.name") copied filtered, sorted. */
    public List<String> filteredTables() {
      return visibility.filteredTables();
    }

    /** One sentence for the end of a run, or null when nothing is filtered. */
    public String summary() {
      if (!filtered()) {
        return null;
      }
      List<String> tables = filteredTables();
      return "FILTERED COPY (--accept-filtered-copy): " + String.join(", ", tables)
          + (tables.size() == 1 ? " holds" : " hold") + " only the rows "
          + "row-level security lets " + visibility.role().name() + " see; rows it cannot see were neither copied "
          + "nor verified.";
    }
  }

  private SourceAccess() {}

  /**
   * Waits briefly for other sessions' ACCESS EXCLUSIVE locks on the planned tables, checks that the source has not
   * changed since plan ({@link SourceDrift}), then checks the role's access to every planned table and refuses what
   * cannot be copied whole.
   *
   * @throws Pg2SpannerException SOURCE_PRIVILEGES for relations this role cannot read, and for row-level security
   *     unless accepted (never for a live run); SOURCE_CONNECTION when a table stays locked; PLAN_INVALID when the
   *     source changed
   */
  static Outcome check(Connection c, Plan plan, MigrateOptions o, PrintWriter out)
      throws SQLException, InterruptedException {
    List<String> tables = plan.tables().stream().map(TablePlan::source).toList();
    waitForLocks(c, tables, "migrate");
    // A resumed live run is past its load: what changed on the source since it was planned (columns, tables, indexes)
    // is followed by the stream and the catalog watch (or stops it, naming the change), not refused here.
    List<String> unplanned = o.live() && o.resume() ? List.of() : SourceDrift.check(c, plan, o.skipUnplannedTables());
    if (!unplanned.isEmpty()) {
      out.println("note: --skip-unplanned-tables: " + String.join(", ", unplanned) + (unplanned.size() == 1 ? " is"
          : " are") + " in the source but not in the plan, and " + (unplanned.size() == 1 ? "is" : "are")
          + " not migrated");
      out.flush();
    }
    RowVisibility.Report visibility = RowVisibility.read(c, tables);
    if (o.live() && o.resume()) {
      // A resumed live run is past its load (LiveRun refuses any other), and streaming is not filtered.
      return new Outcome(new RowVisibility.Report(visibility.role(), List.of()));
    }
    String role = visibility.role().name();
    List<RowVisibility.Restriction> unreadable = visibility.unreadable();
    if (!unreadable.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "role " + role + " cannot read "
          + unreadable.size() + " relation(s) the plan copies: " + list(unreadable) + ". The load reads each "
          + "partition directly, so it needs SELECT on every one (and USAGE on its schema); GRANT them (or GRANT "
          + "pg_read_all_data TO " + role + "), then run migrate again. Nothing was changed on the target");
    }
    List<RowVisibility.Restriction> filtered = visibility.filtered();
    if (!filtered.isEmpty()) {
      String hides = "row-level security hides rows of " + visibility.filteredTables().size() + " table(s) from "
          + "role " + role + ": " + list(filtered) + ". ";
      if (o.live()) {
        throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, hides + "A live migration cannot copy a filtered "
            + "view, not even with --accept-filtered-copy: logical replication streams the changes to every row "
            + "whatever the policies, so the stream would not match the filtered load. To migrate live, "
            + visibility.advice() + ". Nothing was changed on the source or the target");
      }
      if (!o.acceptFilteredCopy()) {
        throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, hides + "migrate would copy only the rows it "
            + "can see, so it stopped before touching the target. " + capitalise(visibility.advice()) + "; or pass "
            + "--accept-filtered-copy to copy (and verify) only the rows this role can see");
      }
      out.println("warning: filtered copy (--accept-filtered-copy): " + hides + "Only the rows this role can see are "
          + "copied and verified.");
      out.flush();
      record(o.runDirectory(), visibility);
    }
    notePlanFilteredView(plan, visibility, out);
    return new Outcome(visibility);
  }

  /** The plan's examined values may come from a filtered view even when this role reads everything. */
  private static void notePlanFilteredView(Plan plan, RowVisibility.Report visibility, PrintWriter out) {
    List<String> planned = plan.tables().stream()
        .filter(t -> visibility.of(t.source()).isEmpty())
        .filter(t -> t.findings().stream().map(Finding::code).anyMatch(FindingCode.ROWS_NOT_VISIBLE::equals))
        .map(TablePlan::source).toList();
    if (!planned.isEmpty()) {
      out.println("note: plan ran as a role that could not read every row of " + String.join(", ", planned)
          + "; this role can, but the values plan examined there (types, key samples, key ranges) came from the rows "
          + "that role could see. Run plan again as this role to base the plan on every row.");
      out.flush();
    }
  }

  /**
   * Waits up to {@link #LOCK_WAIT} for ACCESS EXCLUSIVE locks other sessions hold on the planned tables.
   *
   * @param command "migrate" or "verify", for the message
   * @throws Pg2SpannerException SOURCE_CONNECTION naming the holders when a lock is still held
   */
  static void waitForLocks(Connection c, List<String> tables, String command)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
    List<TableLocks.Holder> holders = TableLocks.exclusive(c, tables);
    while (!holders.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(LOCK_POLL.toMillis());
      holders = TableLocks.exclusive(c, tables);
    }
    if (!holders.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, holders.size() + " table(s) to copy are locked "
          + "ACCESS EXCLUSIVE by another session, which blocks reading them: " + holders.stream()
          .limit(NAMES_SHOWN).map(TableLocks.Holder::describe).collect(Collectors.joining("; ")) + ". Let it finish "
          + "(or end it with SELECT pg_cancel_backend(pid)) and run " + command + " again. Nothing was changed on the "
          + "target");
    }
  }

  /** A line in the run's progress log, so the run directory says the copy is filtered. */
  private static void record(Path runDirectory, RowVisibility.Report visibility) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("type", "filtered-copy");
    line.put("at", Instant.now().toString());
    line.put("role", visibility.role().name());
    line.put("tables", visibility.filteredTables());
    line.put("restrictions", visibility.filtered().stream().map(RowVisibility.Restriction::describe).toList());
    try (JsonLinesFile log = JsonLinesFile.open(runDirectory.resolve(dev.pg2spanner.rundir.RunFiles.PROGRESS), "the progress log", false,
        WayOn.stated("the filtered copy is announced on the output only"))) {
      log.append(line);
    }
  }

  private static String list(List<RowVisibility.Restriction> restrictions) {
    List<String> described = restrictions.stream().map(RowVisibility.Restriction::describe).toList();
    return String.join("; ", described.subList(0, Math.min(NAMES_SHOWN, described.size())))
        + (described.size() > NAMES_SHOWN ? " and " + (described.size() - NAMES_SHOWN) + " more" : "");
  }

  private static String capitalise(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
