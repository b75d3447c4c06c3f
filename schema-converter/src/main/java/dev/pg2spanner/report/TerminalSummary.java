package dev.pg2spanner.report;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.Plan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code pg2spanner plan} prints about the findings after its one-line counts: one line per code that has
 * errors or warnings, with their number and the code's remedy, once however many findings the code has. Info-only
 * codes are left to the reports, so the block stays short.
 */
public final class TerminalSummary {

  private TerminalSummary() {}

  /** The heading and one line per code with errors or warnings (errors' codes first, then by name); empty if none. */
  public static List<String> findingCodes(Plan plan) {
    Map<FindingCode, Map<Severity, Integer>> byCode = new LinkedHashMap<>();
    for (Finding f : ReportFindings.all(plan)) {
      if (f.severity() != Severity.INFO) {
        byCode.computeIfAbsent(f.code(), c -> new EnumMap<>(Severity.class)).merge(f.severity(), 1, Integer::sum);
      }
    }
    List<Map.Entry<FindingCode, Map<Severity, Integer>>> entries = new ArrayList<>(byCode.entrySet());
    entries.sort(Comparator.comparing((Map.Entry<FindingCode, Map<Severity, Integer>> e) ->
            e.getValue().containsKey(Severity.ERROR) ? 0 : 1)
        .thenComparing(e -> e.getKey().name()));
    List<String> lines = new ArrayList<>();
    if (entries.isEmpty()) {
      return lines;
    }
    lines.add("To do, once per finding code (report.md lists each finding):");
    for (Map.Entry<FindingCode, Map<Severity, Integer>> e : entries) {
      List<String> counts = new ArrayList<>();
      e.getValue().forEach((severity, n) -> counts.add(n + " " + severity.json() + (n == 1 ? "" : "s")));
      lines.add("  " + e.getKey().name() + " (" + String.join(", ", counts) + "): " + e.getKey().remedy());
    }
    return lines;
  }
}
