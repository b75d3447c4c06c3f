package dev.pg2spanner.report;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The findings of a plan in the one order every report uses, and the totals every summary shows. */
final class ReportFindings {

  /** Severity (errors first), then table (database-wide first), then code, then column, index and message. */
  static final Comparator<Finding> ORDER = Comparator
      .comparing(Finding::severity)
      .thenComparing(Finding::table, Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(f -> f.code().name())
      .thenComparing(Finding::column, Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(Finding::index, Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(Finding::message);

  private ReportFindings() {}

  /** The plan's database-wide findings and every table's, sorted by {@link #ORDER}. */
  static List<Finding> all(Plan plan) {
    List<Finding> all = new ArrayList<>(plan.findings());
    for (TablePlan t : plan.tables()) {
      all.addAll(t.findings());
    }
    all.sort(ORDER);
    return all;
  }

  static List<Finding> sorted(List<Finding> findings) {
    List<Finding> out = new ArrayList<>(findings);
    out.sort(ORDER);
    return out;
  }

  /** Count per severity, every severity present (zero when none), in severity order. */
  static Map<Severity, Integer> counts(List<Finding> findings) {
    Map<Severity, Integer> counts = new EnumMap<>(Severity.class);
    for (Severity s : Severity.values()) {
      counts.put(s, 0);
    }
    for (Finding f : findings) {
      counts.merge(f.severity(), 1, Integer::sum);
    }
    return counts;
  }

  /**
   * The codes that occur in {@code findings}, in name order (the reports' lookup order), each with its number of
   * findings: the reports render each code's title and remedy once, however many findings it has.
   */
  /** The sentence that opens the finding-codes section of report.md and report.html. */
  static final String CODES_INTRO = "What each kind of finding in this plan is and what to do about it, once per "
      + "code; the findings themselves, with their facts, are listed above.";

  static Map<FindingCode, Integer> codes(List<Finding> findings) {
    Map<FindingCode, Integer> codes = new TreeMap<>(Comparator.comparing(FindingCode::name));
    for (Finding f : findings) {
      codes.merge(f.code(), 1, Integer::sum);
    }
    return codes;
  }

  /** The plan's size, summed once for every report's summary. */
  record Totals(long rows, int tablesWithoutRows, long bytes) {
    /** "1,234" or "1,234 (+ 2 unknown)": the estimated rows as the reports print them. */
    String rowsText() {
      return MarkdownReport.count(rows) + (tablesWithoutRows == 0 ? "" : " (+ " + tablesWithoutRows + " unknown)");
    }
  }

  /** Estimated rows (tables without an estimate counted apart) and bytes over the plan's tables. */
  static Totals totals(Plan plan) {
    long rows = 0;
    int unknown = 0;
    long bytes = 0;
    for (TablePlan t : plan.tables()) {
      Long r = rows(t);
      if (r == null) {
        unknown++;
      } else {
        rows += r;
      }
      bytes += t.bytesEstimate();
    }
    return new Totals(rows, unknown, bytes);
  }

  /** Rows are estimates (reltuples): reports show whole rows. Null when unknown. */
  static Long rows(TablePlan t) {
    return t.rowsEstimate() == null ? null : Math.round(t.rowsEstimate());
  }
}
