package dev.pg2spanner.cli;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.preflight.CheckResult;
import dev.pg2spanner.preflight.LiveReadiness;
import dev.pg2spanner.preflight.SourcePreflight;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.targetdb.TargetPreflight;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code pg2spanner check}: can plan and migrate run with these databases and this role? */
@Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Reports whether plan and migrate can run: source version, catalog and statistics access, "
        + "SELECT on every table and partition, rows row-level security hides from the role, snapshot export, "
        + "tables locked by other sessions, settings that would cut a long read short; with --target, the "
        + "Spanner instance, database, dialect and contents."})
final class CheckCommand implements Callable<Integer> {

  @ParentCommand
  Pg2Spanner root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  SourceOptions source;

  @Mixin
  TargetOptions target;

  @Option(names = "--plan", paramLabel = "FILE", description = "The plan.yaml migrate will carry out: with "
      + "--target, an existing database of the other dialect (GoogleSQL or PostgreSQL) than the plan's is refused; "
      + "with --live, the planned tables are the ones checked, and a key a live run cannot compute is refused.")
  java.nio.file.Path plan;

  @Option(names = "--live", description = "Also require what migrate --live needs (logical decoding, a replication "
      + "role, a free slot, identifiable rows); without it those are reported as warnings.")
  boolean live;

  @Override
  public Integer call() throws SQLException {
    // --emulator with no value starts the installed emulator for the check, as it does for migrate.
    try (TargetOptions.Resolved resolved = target.given() ? target.resolve(root.env()) : null) {
      return check(resolved == null ? null : resolved.target());
    }
  }

  private int check(SpannerTarget spannerTarget) throws SQLException {
    SourceConfig config = source.toConfig(root.env());
    PrintWriter out = spec.commandLine().getOut();
    List<CheckResult> all = new ArrayList<>();

    out.println("Source  " + config.redactedUrl());
    dev.pg2spanner.plan.Plan planned = plan == null ? null : dev.pg2spanner.plan.PlanFiles.read(plan);
    // With --plan, the live checks judge the planned tables (and their partitions); else what plan would plan.
    List<String> tables = planned == null ? null
        : planned.tables().stream().map(dev.pg2spanner.plan.TablePlan::source).toList();
    List<CheckResult> sourceResults;
    List<CheckResult> liveResults;
    try (Connection c = new SourceConnector(config).open()) {
      sourceResults = SourcePreflight.run(c);
      liveResults = LiveReadiness.run(c, tables, null).stream()
          .map(r -> live || r.status() != CheckResult.Status.FAIL ? r
              : CheckResult.warn(r.subject(), "migrate --live would refuse: " + r.detail()))
          .toList();
    }
    print(out, sourceResults);
    all.addAll(sourceResults);
    String planDialect = planned == null ? null : planned.target().dialect();
    if (planned != null) {
      // Streamed deletes name rows by their whole Spanner key, hash-shard columns included (in either dialect).
      try {
        dev.pg2spanner.live.LiveRun.requireComputableKeys(planned);
      } catch (dev.pg2spanner.error.Pg2SpannerException e) {
        CheckResult refused = CheckResult.fail("keys", e.getMessage(), e.code());
        liveResults = new ArrayList<>(liveResults);
        liveResults.add(live ? refused : CheckResult.warn(refused.subject(), "migrate --live would refuse: "
            + refused.detail()));
      }
    }
    out.println();
    out.println("Live migration (migrate --live)");
    print(out, liveResults);
    all.addAll(liveResults);

    if (spannerTarget != null) {
      out.println();
      out.println("Target  " + spannerTarget.describe());
      List<CheckResult> targetResults = TargetPreflight.run(spannerTarget, planDialect);
      print(out, targetResults);
      all.addAll(targetResults);
    }

    List<CheckResult> failures = all.stream().filter(r -> r.status() == CheckResult.Status.FAIL).toList();
    long warnings = all.stream().filter(r -> r.status() == CheckResult.Status.WARN).count();
    out.println();
    if (failures.isEmpty()) {
      out.println("Ready: nothing blocks plan" + (spannerTarget == null ? "" : " or migrate" + (live ? " --live" : ""))
          + (warnings > 0 ? " (" + warnings + " warning(s) above)" : "") + ".");
      out.flush();
      return 0;
    }
    out.println("Not ready: " + failures.size() + " problem(s) above must be fixed first.");
    out.flush();
    ExitCode first = failures.get(0).failure();
    return first.exitCode();
  }

  private static void print(PrintWriter out, List<CheckResult> results) {
    int width = results.stream().mapToInt(r -> r.subject().length()).max().orElse(10);
    for (CheckResult r : results) {
      out.printf("  %-4s  %-" + width + "s  %s%n", r.status(), r.subject(), r.detail());
    }
  }
}
