package dev.pg2spanner.migrate;

import dev.pg2spanner.catalog.CatalogFilter;
import dev.pg2spanner.catalog.CatalogFingerprint;
import dev.pg2spanner.catalog.CatalogReader;
import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Has the source schema changed since {@code plan}? A table dropped, a column added, removed or retyped would make
 * the load silently wrong, so migrate and verify stop with a sentence naming the object.
 */
final class SourceDrift {

  private SourceDrift() {}

  /**
   * Checks the source against the plan.
   *
   * @param skipUnplanned leave out tables that are in the planned schemas but not in the plan, instead of refusing
   * @return those tables ("schema.name"), for the run to report
   * @throws Pg2SpannerException PLAN_INVALID naming what changed
   */
  static List<String> check(Connection c, Plan plan, boolean skipUnplanned) throws SQLException {
    PgCatalog catalog = new CatalogReader(new CatalogFilter(plan.source().schemas(), null)).read(c);
    List<String> unplanned = unplanned(catalog, plan);
    if (!unplanned.isEmpty() && !skipUnplanned) {
      throw new Pg2SpannerException(ExitCode.PLAN_INVALID, (unplanned.size() == 1 ? "table " + unplanned.get(0)
          + " is" : unplanned.size() + " tables are") + " in the source but not in the plan"
          + (unplanned.size() == 1 ? "" : " (" + String.join(", ", unplanned.subList(0, Math.min(5, unplanned.size())))
              + (unplanned.size() > 5 ? ", ..." : "") + ")")
          + ": created after plan ran, or removed from plan.yaml. Run pg2spanner plan again to include "
          + (unplanned.size() == 1 ? "it" : "them") + ", or pass --skip-unplanned-tables to leave "
          + (unplanned.size() == 1 ? "it" : "them") + " out knowingly");
    }
    List<String> problems = new ArrayList<>();
    List<PgTable> planned = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      int dot = t.source().indexOf('.');
      PgTable live = catalog.table(t.source().substring(0, dot), t.source().substring(dot + 1)).orElse(null);
      if (live == null) {
        problems.add("table " + t.source() + " no longer exists");
        continue;
      }
      planned.add(live);
      Set<String> plannedColumns = t.columns().stream().map(ColumnPlan::source).filter(s -> s != null)
          .collect(Collectors.toSet());
      for (ColumnPlan column : t.columns()) {
        if (column.source() == null) {
          continue;
        }
        PgColumn liveColumn = live.column(column.source()).orElse(null);
        if (liveColumn == null) {
          problems.add("column " + t.source() + "." + column.source() + " no longer exists");
        } else if (!liveColumn.type().display().equals(column.sourceType())) {
          problems.add("column " + t.source() + "." + column.source() + " changed type from " + column.sourceType()
              + " to " + liveColumn.type().display());
        }
      }
      for (PgColumn liveColumn : live.columns()) {
        if (!plannedColumns.contains(liveColumn.name())) {
          problems.add("column " + t.source() + "." + liveColumn.name() + " was added");
        }
      }
    }
    if (problems.isEmpty() && !CatalogFingerprint.of(planned).equals(plan.source().fingerprint())) {
      // A table block removed from plan.yaml leaves the fingerprint covering it: compare with it put back.
      List<PgTable> withRemoved = new ArrayList<>(planned);
      unplanned.forEach(name -> withRemoved.add(table(catalog, name)));
      if (unplanned.isEmpty() || !CatalogFingerprint.of(withRemoved).equals(plan.source().fingerprint())) {
        problems.add("a primary key, nullability or generated column changed");
      }
    }
    if (!problems.isEmpty()) {
      throw new Changed(problems);
    }
    return unplanned;
  }

  /** The planned tables changed in the source since plan: PLAN_INVALID naming each change. */
  static final class Changed extends Pg2SpannerException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    Changed(List<String> problems) {
      super(ExitCode.PLAN_INVALID, "the source changed since plan ran: "
          + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
          + (problems.size() > 5 ? " and " + (problems.size() - 5) + " more" : "")
          + ". Run pg2spanner plan again and review the new plan.");
      this.problems = List.copyOf(problems);
    }

    /** What changed, one phrase each ("column public.t.note was added"). */
    List<String> problems() {
      return problems;
    }
  }

  /** Tables of the planned schemas that are neither in the plan nor matched by its --exclude-tables. */
  static List<String> unplanned(PgCatalog catalog, Plan plan) {
    Set<String> inPlan = plan.tables().stream().map(TablePlan::source).collect(Collectors.toSet());
    Pattern excluded = plan.source().excludeTables() == null ? null : Pattern.compile(plan.source().excludeTables());
    return catalog.tables().stream()
        .map(PgTable::qualifiedName)
        .filter(name -> !inPlan.contains(name))
        .filter(name -> excluded == null || !excluded.matcher(name).find())
        .sorted()
        .toList();
  }

  private static PgTable table(PgCatalog catalog, String qualified) {
    int dot = qualified.indexOf('.');
    return catalog.table(qualified.substring(0, dot), qualified.substring(dot + 1)).orElseThrow();
  }
}
