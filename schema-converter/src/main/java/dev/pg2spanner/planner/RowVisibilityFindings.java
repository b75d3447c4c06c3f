package dev.pg2spanner.planner;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.preflight.RowVisibility;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@link FindingCode#ROWS_NOT_VISIBLE}: one error finding per planned table whose rows the planning role cannot all
 * read. A fact about the role, not the catalog, so it is added to the plan after planning rather than by the
 * {@link Planner}; {@code migrate} checks its own role again before it touches the target.
 */
public final class RowVisibilityFindings {

  private RowVisibilityFindings() {}

  /** The plan with a finding on each table {@code visibility} restricts; the plan itself when none. */
  public static Plan attach(Plan plan, RowVisibility.Report visibility) {
    if (visibility.restrictions().isEmpty()) {
      return plan;
    }
    List<TablePlan> tables = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      List<RowVisibility.Restriction> restrictions = visibility.of(t.source());
      if (restrictions.isEmpty()) {
        tables.add(t);
        continue;
      }
      List<Finding> findings = new ArrayList<>(t.findings());
      findings.add(finding(t.source(), restrictions, visibility));
      tables.add(new TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(), t.bytesEstimate(),
          t.columns(), t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(), t.foreignKeys(), t.checks(),
          findings, t.splitPoints(), t.rowHash()));
    }
    return new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(), plan.target(),
        tables, plan.sequences(), plan.findings());
  }

  static Finding finding(String table, List<RowVisibility.Restriction> restrictions,
      RowVisibility.Report visibility) {
    String role = visibility.role().name();
    // The advice for this table alone: the owner helps only where its policies are not forced.
    RowVisibility.Report own = new RowVisibility.Report(visibility.role(), restrictions);
    boolean filters = restrictions.stream().anyMatch(r -> r.problem().filters());
    String what = restrictions.stream().map(r -> r.partition() ? r.describe() : r.detail())
        .collect(Collectors.joining("; "));
    String message;
    if (filters) {
      boolean planFiltered = restrictions.stream().anyMatch(r -> r.problem().filters() && !r.partition());
      message = "Role " + role + " cannot see every row of " + table + " (" + what + "), and PostgreSQL returns the "
          + "rows it can see without an error. migrate refuses this table before touching the target. To copy every "
          + "row, " + own.advice() + ". Or pass migrate --accept-filtered-copy to copy and verify only the rows the "
          + "migrating role can see."
          + (planFiltered ? " The values this plan examined (types, key samples, key ranges) came from the visible "
              + "rows too: plan again as the role that will migrate." : "");
    } else {
      message = "Role " + role + " cannot read " + table + " as migrate does (" + what + "): migrate reads each "
          + "partition directly, and refuses the plan before touching the target. GRANT SELECT on the named "
          + "relations (and USAGE on their schemas) to the migrating role, or leave the table out with "
          + "--exclude-tables.";
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("role", role);
    evidence.put("problems", restrictions.stream().map(r -> r.problem().name()).distinct().toList());
    evidence.put("relations", restrictions.stream().map(RowVisibility.Restriction::relation).distinct().toList());
    List<String> policies = restrictions.stream().flatMap(r -> r.policies().stream()
        .map(p -> (r.partition() ? r.relation() + ": " : "") + p.describe())).distinct().toList();
    if (!policies.isEmpty()) {
      evidence.put("policies", policies);
    }
    return Finding.of(FindingCode.ROWS_NOT_VISIBLE, table, null, null, message, evidence);
  }
}
