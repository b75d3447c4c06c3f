package dev.pg2spanner.cli;

import dev.pg2spanner.catalog.CatalogFilter;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.planner.KeyStrategyRequestException;
import dev.pg2spanner.planner.PlanRun;
import dev.pg2spanner.planner.PlannerOptions;
import dev.pg2spanner.report.TerminalSummary;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code pg2spanner plan}: read the source, propose, and write a reviewable plan. */
@Command(name = "plan", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Reads the source catalog and statistics and writes into --out: plan.yaml (review and edit it), "
        + "report.md and report.json (findings), and migrations/ (Spanner DDL as Flyway migrations V1-V4)."})
final class PlanCommand implements Callable<Integer> {

  @ParentCommand
  Pg2Spanner root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  SourceOptions source;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where plan.yaml, report.md, "
      + "report.json and migrations/ are written.")
  Path out;

  @Option(names = "--replace", description = {"Replace a plan.yaml in --out that was edited since plan wrote it (the "
      + "edited file is kept beside it as plan.yaml.edited-TIMESTAMP). Without it plan refuses, keeping the edits; "
      + "a plan.yaml nobody edited is always replaced."})
  boolean replace;

  @Option(names = "--schemas", split = ",", paramLabel = "SCHEMA",
      description = "Only these schemas (default: every non-system schema).")
  List<String> schemas;

  @Option(names = "--exclude-tables", paramLabel = "REGEX",
      description = "Leave out tables whose schema.name matches this regular expression (e.g. '^audit\\.|_old$').")
  String excludeTables;

  @Option(names = "--nodes", paramLabel = "N", defaultValue = "3",
      description = "Expected Spanner nodes: sizes hash shards and the write-skew model (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--low-write-threshold", paramLabel = "INSERTS_PER_S", defaultValue = "1.0",
      description = "Keep a monotonic key when the table averages fewer inserts per second than this over at least a "
          + "day of statistics; 0 never keeps one. A key whose only evidence is rising values (nothing generates "
          + "them) is changed only when the table is known to average at least this (default: ${DEFAULT-VALUE}).")
  double lowWriteThreshold;

  @Option(names = "--key-strategy", paramLabel = "SCHEMA.TABLE=KIND",
      description = {"Use this key strategy for a top-level table instead of the policy's choice; repeatable.",
          "KIND: keep, bit-reversed, hash-shard, uuid (an integer key becomes UUIDs derived from the old ids, every "
              + "referencing column is remapped the same way, the old id is kept) or swap."})
  Map<String, String> keyStrategies;

  @Option(names = "--interleave", paramLabel = "POLICY", defaultValue = "all",
      description = {"all: interleave every child whose key extends its parent's, renaming its key columns to the "
          + "parent's names where they differ (Spanner requires it; each rename is a warning); no-renames: only "
          + "children that need no rename, so no query changes (default: ${DEFAULT-VALUE})."})
  String interleave;

  @Option(names = "--dialect", paramLabel = "DIALECT", defaultValue = "googlesql",
      description = {"The target database's dialect: googlesql or postgresql (a Spanner database in the PostgreSQL "
          + "dialect keeps PostgreSQL's type names, quoting and case rules, so more of the application's SQL runs "
          + "unchanged; default: ${DEFAULT-VALUE})."})
  String dialect;

  @Option(names = "--no-named-schemas", negatable = false,
      description = "Prefix table names with their schema (billing_invoices) instead of Spanner named schemas.")
  boolean noNamedSchemas;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be at least 1, was " + nodes);
    }
    if (lowWriteThreshold < 0 || Double.isNaN(lowWriteThreshold)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--low-write-threshold must be 0 or more");
    }
    SourceConfig config = source.toConfig(root.env());
    keepEdits(out.resolve("plan.yaml"));
    Pattern exclude = null;
    if (excludeTables != null) {
      try {
        exclude = Pattern.compile(excludeTables);
      } catch (PatternSyntaxException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--exclude-tables '" + excludeTables
            + "' is not a valid regular expression: " + e.getDescription());
      }
    }
    List<String> chosen = schemas == null ? List.of() : List.copyOf(schemas);
    Map<String, KeyStrategy.Kind> requested = new java.util.TreeMap<>();
    if (keyStrategies != null) {
      for (Map.Entry<String, String> e : keyStrategies.entrySet()) {
        String table = e.getKey().contains(".") ? e.getKey() : "public." + e.getKey();
        KeyStrategy.Kind kind;
        try {
          kind = KeyStrategy.Kind.fromJson(e.getValue());
        } catch (IllegalArgumentException bad) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--key-strategy " + e.getKey() + "="
              + e.getValue() + ": " + bad.getMessage().replace(", synthetic", ""));
        }
        if (kind == KeyStrategy.Kind.SYNTHETIC) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--key-strategy " + e.getKey()
              + "=synthetic: the plan chooses synthetic keys itself for tables without a primary key; use one of "
              + "keep, bit-reversed, hash-shard, uuid, swap");
        }
        KeyStrategy.Kind before = requested.put(table, kind);
        if (before != null) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--key-strategy names " + table + " twice ("
              + before.json() + " and " + kind.json() + "); give one strategy per table");
        }
      }
    }
    if (!interleave.equals("all") && !interleave.equals("no-renames")) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--interleave must be all or no-renames, was "
          + interleave);
    }
    dev.pg2spanner.spanner.SpannerDialect targetDialect;
    try {
      targetDialect = dev.pg2spanner.spanner.SpannerDialect.named(dialect);
    } catch (IllegalArgumentException bad) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--dialect " + bad.getMessage());
    }
    PlannerOptions options = new PlannerOptions(nodes, !noNamedSchemas, new Pg2Spanner.Version().getVersion()[0],
        config.endpoint(), chosen, Instant.now().truncatedTo(ChronoUnit.SECONDS), lowWriteThreshold, requested,
        interleave.equals("no-renames"), targetDialect);
    PlanRun.Output output;
    try {
      // The load's own converter tries the values at plan time, so plan predicts what migrate would refuse.
      output = PlanRun.execute(new SourceConnector(config), new CatalogFilter(chosen, exclude), options, out,
          new dev.pg2spanner.load.convert.ConversionProbe());
    } catch (KeyStrategyRequestException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    print(spec.commandLine().getOut(), output);
    long errors = allFindings(output.plan()).filter(f -> f.severity() == Severity.ERROR).count();
    return errors > 0 ? ExitCode.PLAN_HAS_ERRORS.exitCode() : 0;
  }

  /** Refuses to overwrite a hand-edited plan.yaml unless --replace, which first keeps a copy of it. */
  private void keepEdits(Path planFile) throws java.io.IOException {
    if (!java.nio.file.Files.exists(planFile) || PlanFiles.isUntouched(planFile)) {
      return;
    }
    if (!replace) {
      throw new dev.pg2spanner.error.InvalidValueException(planFile + " was edited since plan wrote it (or was not "
          + "written by plan); it was left as it is. Pass --replace to write a new plan (the edited one is kept "
          + "beside it), or choose another --out");
    }
    Path kept = planFile.resolveSibling("plan.yaml.edited-" + java.time.format.DateTimeFormatter
        .ofPattern("yyyyMMdd-HHmmss").format(java.time.LocalDateTime.now()));
    java.nio.file.Files.copy(planFile, kept);
    spec.commandLine().getOut().println("kept the edited plan as " + kept);
  }

  private static void print(PrintWriter w, PlanRun.Output output) {
    Plan plan = output.plan();
    Map<Severity, Long> counts = new EnumMap<>(Severity.class);
    allFindings(plan).forEach(f -> counts.merge(f.severity(), 1L, Long::sum));
    w.printf("Planned %d table(s) from %s in %.1f s: %d error(s), %d warning(s), %d note(s).%n",
        plan.tables().size(), plan.source().endpoint(), output.elapsed().toMillis() / 1000.0,
        counts.getOrDefault(Severity.ERROR, 0L), counts.getOrDefault(Severity.WARNING, 0L),
        counts.getOrDefault(Severity.INFO, 0L));
    int width = plan.tables().stream().mapToInt(t -> t.source().length()).max().orElse(10);
    for (TablePlan t : plan.tables()) {
      w.printf("  %-" + width + "s -> %-30s key: %s%s%n", t.source(), t.target(), t.keyStrategy().kind().json(),
          t.interleave() == null ? "" : ", interleaved in " + t.interleave().parent());
    }
    w.println();
    List<String> toDo = TerminalSummary.findingCodes(plan);
    if (!toDo.isEmpty()) {
      toDo.forEach(w::println);
      w.println();
    }
    w.println("Review:  " + output.markdownReport());
    w.println("Edit:    " + output.planFile());
    w.println("Also:    " + output.htmlReport() + ", " + output.jsonReport() + ", "
        + output.directory().resolve("migrations") + "/");
    // A table left out is an error the plan already acted on: migrate runs without it (said below).
    if (allFindings(plan).anyMatch(f -> f.severity() == Severity.ERROR && f.code() != FindingCode.TABLE_LEFT_OUT)) {
      w.println("Errors must be resolved (edit plan.yaml) before migrate: see report.md.");
    }
    List<String> leftOut = allFindings(plan).filter(f -> f.code() == FindingCode.TABLE_LEFT_OUT)
        .map(Finding::table).distinct().toList();
    if (!leftOut.isEmpty()) {
      w.println("Left out of the plan, because Spanner cannot hold " + (leftOut.size() == 1 ? "it" : "them")
          + " as " + (leftOut.size() == 1 ? "it stands" : "they stand") + ": " + String.join(", ", leftOut)
          + ". Every other table migrates; TABLE_LEFT_OUT in report.md says why and how to bring "
          + (leftOut.size() == 1 ? "it" : "them") + " back.");
    }
    List<String> hidden = allFindings(plan).filter(f -> f.code() == FindingCode.ROWS_NOT_VISIBLE)
        .map(Finding::table).distinct().toList();
    if (!hidden.isEmpty()) {
      w.println("This role cannot read every row of " + hidden.size() + " table(s): " + String.join(", ", hidden)
          + ". migrate refuses them unless --accept-filtered-copy (ROWS_NOT_VISIBLE in report.md says why and what "
          + "to do).");
    }
    w.flush();
  }

  private static Stream<Finding> allFindings(Plan plan) {
    return Stream.concat(plan.findings().stream(), plan.tables().stream().flatMap(t -> t.findings().stream()));
  }
}
