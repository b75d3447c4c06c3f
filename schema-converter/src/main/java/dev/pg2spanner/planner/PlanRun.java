package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.CatalogFilter;
import dev.pg2spanner.catalog.CatalogReader;
import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.ddl.MigrationFiles;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.hotspot.KeySampler;
import dev.pg2spanner.mapping.ColumnEvidence;
import dev.pg2spanner.mapping.EvidenceCollector;
import dev.pg2spanner.mapping.EvidenceNeed;
import dev.pg2spanner.mapping.ProbedValues;
import dev.pg2spanner.mapping.TypeMapper;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.PlanValidator;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.preflight.RowVisibility;
import dev.pg2spanner.report.HtmlReport;
import dev.pg2spanner.report.JsonReport;
import dev.pg2spanner.report.MarkdownReport;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole {@code plan} job: read the catalog, examine the values the mapping needs, plan, and write plan.yaml,
 * report.md, report.html, report.json and the Flyway migrations into one directory.
 */
public final class PlanRun {

  private static final Logger LOG = LoggerFactory.getLogger(PlanRun.class);
  private static final Pattern TABLE_PATH = Pattern.compile("^tables\\[(\\d+)]");

  /**
   * The planner's output must pass the same validator migrate runs: a plan that migrate would refuse is never written.
   * The planner designs around every Spanner limit it knows (a key over 16 columns gets a synthetic key, an index over
   * 16 columns or a hierarchy over 7 levels is left out with a finding, a column an index repeats is listed once), and
   * a table it cannot design around is left out of the plan with a {@link FindingCode#TABLE_LEFT_OUT} error
   * ({@link #leaveOutWhatSpannerCannotHold}). What is left after that is a bug: plan stops before writing anything.
   */
  static void requireValid(Plan plan) {
    List<String> problems = PlanValidator.problems(plan);
    if (problems.isEmpty()) {
      return;
    }
    throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "plan stopped before writing anything: Spanner would refuse "
        + "its design:\n  - " + problems.stream().map(p -> readable(plan, p)).collect(Collectors.joining("\n  - "))
        + "\nPlease report this as a pg2spanner bug, with the tables' DDL.");
  }

  /**
   * A table of the plan, with its problems as a person who has no plan.yaml yet reads them, and the source's columns.
   */
  private record LeftOut(String table, List<String> problems, TablePlan plan) {}

  /**
   * The plan without the tables Spanner cannot hold as designed, planned again without them (so nothing refers to them:
   * foreign keys to them are reported, children are not interleaved in them), with one TABLE_LEFT_OUT error per table
   * saying why and how to bring it back. Plan always writes a plan: one table never costs the rest of the database
   * theirs.
   *
   * @return the plan, and the tables left out ("schema.name")
   */
  static Map.Entry<Plan, List<String>> leaveOutWhatSpannerCannotHold(Plan plan, PlanInputs inputs, Planner planner) {
    Map<String, LeftOut> leftOut = new LinkedHashMap<>();
    for (int round = 0; round < MAX_LEAVE_OUT_ROUNDS; round++) {
      List<String> problems = PlanValidator.problems(plan);
      Map<String, LeftOut> now = new LinkedHashMap<>();
      for (String problem : problems) {
        Matcher m = TABLE_PATH.matcher(problem);
        if (!m.find()) {
          return Map.entry(plan, List.copyOf(leftOut.keySet())); // not a table's: requireValid reports it as a bug
        }
        TablePlan t = plan.tables().get(Integer.parseInt(m.group(1)));
        String name = t.source() == null ? t.target() : t.source();
        String within = withinTable(plan, problem);
        now.computeIfAbsent(name, k -> new LeftOut(k, new ArrayList<>(), t)).problems()
            .add(within.startsWith(": ") ? "it " + within.substring(2) : within);
      }
      if (now.isEmpty()) {
        break;
      }
      leftOut.putAll(now);
      Set<String> names = leftOut.keySet();
      PgCatalog catalog = inputs.catalog();
      PgCatalog without = new PgCatalog(catalog.serverVersion(), catalog.serverVersionNum(), catalog.database(),
          catalog.tables().stream().filter(t -> !names.contains(t.qualifiedName())).toList(), catalog.sequences(),
          catalog.enums(), catalog.domains(), catalog.otherObjects());
      plan = planner.plan(inputs.withCatalog(without));
    }
    if (leftOut.isEmpty()) {
      return Map.entry(plan, List.of());
    }
    List<Finding> findings = new ArrayList<>(plan.findings());
    for (LeftOut l : leftOut.values()) {
      findings.add(leftOutFinding(l, plan.target().spannerDialect().limits()));
    }
    return Map.entry(new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(),
        plan.target(), plan.tables(), plan.sequences(), findings), List.copyOf(leftOut.keySet()));
  }

  /** Each round leaves out the tables that fail; a table whose neighbour was left out may then fail in turn. */
  private static final int MAX_LEAVE_OUT_ROUNDS = 4;

  private static Finding leftOutFinding(LeftOut l, SpannerLimits limits) {
    boolean wide = l.plan().columns().size() > limits.maxColumnsPerTable();
    String howBack;
    if (wide) {
      boolean keyed = l.plan().keyStrategy().kind() != dev.pg2spanner.plan.KeyStrategy.Kind.SYNTHETIC;
      howBack = "Spanner's way to hold so many columns is two tables that share the primary key: the key and up to "
          + limits.maxColumnsPerTable() + " columns in one, the rest in a child table with the same key, INTERLEAVE "
          + "IN PARENT the first (a row's two parts are stored together and read with a join on the key). "
          + (keyed ? "Split " + l.table() + " that way in the source" : "Give " + l.table() + " a primary key and "
              + "split it that way in the source")
          + " (or drop columns nobody reads), then plan again.";
    } else {
      howBack = "Change " + l.table() + " in the source so that Spanner can hold it, then plan again.";
    }
    return Finding.of(FindingCode.TABLE_LEFT_OUT, l.table(), null, null, l.table() + " is left out of the plan: "
        + String.join("; ", l.problems()) + ". " + howBack + " Until then migrate and verify leave it out, and "
        + "every other table migrates.", Map.of("kind", "TABLE", "object", l.table(), "problems", l.problems()));
  }

  /**
   * A validator problem ("tables[3].indexes[0].columns[2].column: 'f1' appears twice ...") as a person reads it
   * without a plan: "public.t, index t_f1: 'f1' appears twice ...", the path's table, index, foreign key, check or
   * column named instead of numbered.
   */
  static String readable(Plan plan, String problem) {
    Matcher m = TABLE_PATH.matcher(problem);
    if (!m.find()) {
      return problem;
    }
    TablePlan t = plan.tables().get(Integer.parseInt(m.group(1)));
    String within = withinTable(plan, problem);
    return (t.source() == null ? t.target() : t.source()) + (within.startsWith(":") ? "" : ", ") + within;
  }

  /** {@link #readable} without the table: "index t_f1: 'f1' appears ...", or ": has 1025 columns ..." for the table. */
  private static String withinTable(Plan plan, String problem) {
    int colon = problem.indexOf(": ");
    Matcher m = TABLE_PATH.matcher(problem);
    if (colon < 0 || !m.find()) {
      return ": " + problem;
    }
    TablePlan t = plan.tables().get(Integer.parseInt(m.group(1)));
    Matcher part = PATH_PART.matcher(problem.substring(m.end(), colon));
    String subject = "";
    if (part.find()) {
      int i = Integer.parseInt(part.group(2));
      subject = switch (part.group(1)) {
        case "indexes" -> i < t.indexes().size() ? "index " + t.indexes().get(i).source() : "";
        case "foreignKeys" -> i < t.foreignKeys().size() ? "foreign key " + t.foreignKeys().get(i).source() : "";
        case "checks" -> i < t.checks().size() ? "check " + t.checks().get(i).source() : "";
        case "columns" -> i < t.columns().size() ? "column " + (t.columns().get(i).source() == null
            ? t.columns().get(i).target() : t.columns().get(i).source()) : "";
        default -> "";
      };
    }
    return subject + ": " + problem.substring(colon + 2);
  }

  private static final Pattern PATH_PART = Pattern.compile("^\\.(indexes|foreignKeys|checks|columns)\\[(\\d+)]");

  /** Tables up to this many estimated rows are scanned fully for evidence; larger ones are sampled. */
  public static final long EVIDENCE_FULL_SCAN_ROWS = 2_000_000;

  /** Rows sampled per table for hotspot evidence and the write-skew figure. */
  public static final int KEY_SAMPLE_ROWS = 10_000;

  /**
   * What was written.
   *
   * @param plan the plan
   * @param directory the output directory
   * @param planFile plan.yaml
   * @param markdownReport report.md
   * @param jsonReport report.json
   * @param htmlReport report.html
   * @param migrations the migration files, in version order
   * @param elapsed how long it took
   */
  public record Output(Plan plan, Path directory, Path planFile, Path markdownReport, Path jsonReport,
      Path htmlReport, List<Path> migrations, Duration elapsed) {}

  private PlanRun() {}

  /**
   * Runs plan without probing values with the load's converter ({@link ValueProbe#NONE}): the aggregate evidence
   * alone decides.
   */
  public static Output execute(SourceConnector source, CatalogFilter filter, PlannerOptions options, Path out) {
    return execute(source, filter, options, out, ValueProbe.NONE);
  }

  /**
   * Reads the source, plans, and writes every file into {@code out}.
   *
   * @param probe runs the load's own converter over the values of the columns that could refuse one
   *     ({@link ValueProbe}); the {@code plan} command passes data-loader's
   */
  public static Output execute(SourceConnector source, CatalogFilter filter, PlannerOptions options, Path out,
      ValueProbe probe) {
    Instant start = Instant.now();
    prepareDirectory(out);
    PgCatalog catalog;
    Plan probed;
    List<String> leftOut;
    Map<String, Map<String, ColumnEvidence>> evidence = new HashMap<>();
    Map<String, KeySample> samples = new HashMap<>();
    Map<String, PlanInputs.KeyRange> keyRanges = new HashMap<>();
    Map<String, Map<String, Long>> keyBytes = new HashMap<>();
    RowVisibility.Report visibility;
    try (Connection c = source.open()) {
      catalog = new CatalogReader(filter).read(c);
      LOG.info("read the catalog of {}: {} tables in {} ms", source.config().endpoint(), catalog.tables().size(),
          Duration.between(start, Instant.now()).toMillis());
      if (catalog.tables().isEmpty()) {
        throw new Pg2SpannerException(ExitCode.EMPTY_SOURCE, "database " + catalog.database() + " on "
            + source.config().endpoint() + " has no tables to migrate"
            + (filter.schemas().isEmpty() ? "" : " in schemas " + String.join(", ", filter.schemas()))
            + (filter.exclude() == null ? "" : " after --exclude-tables " + filter.exclude().pattern())
            + "; check --source, --schemas and --exclude-tables");
      }
      visibility = RowVisibility.read(c, catalog.tables().stream().map(PgTable::qualifiedName).toList());
      KeySampler sampler = new KeySampler(KEY_SAMPLE_ROWS);
      for (PgTable table : catalog.tables()) {
        List<String> columns = sampledColumns(table);
        try {
          Map<String, ColumnEvidence> examined = evidence(c, table, options.dialect());
          if (!examined.isEmpty()) {
            evidence.put(table.qualifiedName(), examined);
          }
          if (!columns.isEmpty()) {
            samples.put(table.qualifiedName(), sampler.sample(c, table, columns));
          }
          keyRange(c, table).ifPresent(r -> keyRanges.put(table.qualifiedName(), r));
          Map<String, Long> bytes = KeyBytes.measure(c, table, EVIDENCE_FULL_SCAN_ROWS);
          if (!bytes.isEmpty()) {
            keyBytes.put(table.qualifiedName(), bytes);
          }
        } catch (SQLException e) {
          if ("42501".equals(e.getSQLState())) {
            throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "this role cannot SELECT "
                + table.qualifiedName() + ", whose values plan examines for type fit and hotspot evidence; GRANT "
                + "SELECT ON " + table.qualifiedName() + " TO the role, or leave the table out with --exclude-tables",
                e);
          }
          throw e;
        }
      }
      Planner planner = new Planner(options);
      Map.Entry<Plan, PlanInputs> planned = planProbing(c, planner,
          new PlanInputs(catalog, evidence, samples, keyRanges, Map.of(), keyBytes), probe);
      Map.Entry<Plan, List<String>> held = leaveOutWhatSpannerCannotHold(planned.getKey(), planned.getValue(), planner);
      probed = held.getKey();
      leftOut = held.getValue();
    } catch (SQLException e) {
      if ("42501".equals(e.getSQLState())) {
        throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "this role may not read part of the catalog of "
            + source.config().endpoint() + " (" + e.getMessage() + "); run `pg2spanner check` for the full list", e);
      }
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "reading the catalog of " + source.config().endpoint()
          + " failed (" + e.getMessage() + "); run `pg2spanner check` to see what is missing", e);
    }
    Plan planned = RowVisibilityFindings.attach(probed, visibility);
    // Recorded so that migrate and verify can tell a table left out on purpose from one created since: by
    // --exclude-tables, or because Spanner cannot hold it (a TABLE_LEFT_OUT finding).
    String excluded = excluded(filter.exclude() == null ? null : filter.exclude().pattern(), leftOut);
    Plan plan = excluded == null ? planned : new Plan(planned.formatVersion(), planned.generatedBy(),
        planned.generatedAt(), planned.source().excluding(excluded), planned.target(),
        planned.tables(), planned.sequences(), planned.findings());
    requireValid(plan);
    Path planFile = out.resolve("plan.yaml");
    Path markdown = out.resolve("report.md");
    Path json = out.resolve("report.json");
    Path html = out.resolve("report.html");
    PlanFiles.write(plan, planFile);
    MarkdownReport.write(plan, markdown);
    JsonReport.write(plan, json);
    HtmlReport.write(plan, html);
    List<Path> migrations = MigrationFiles.write(DdlPrinter.migrations(plan), out.resolve("migrations"));
    return new Output(plan, out, planFile, markdown, json, html, migrations,
        Duration.between(start, Instant.now()));
  }

  /**
   * The values {@code plan} examines in one table's columns (type fit) for a database in {@code dialect}, as
   * {@link #execute} examines them.
   */
  static Map<String, ColumnEvidence> evidence(Connection c, PgTable table, SpannerDialect dialect)
      throws SQLException {
    Map<String, Set<EvidenceNeed>> needs = new LinkedHashMap<>();
    for (PgColumn column : table.columns()) {
      Set<EvidenceNeed> need = EnumSet.noneOf(EvidenceNeed.class);
      need.addAll(TypeMapper.map(column.type(), dialect).evidence());
      need.remove(EvidenceNeed.NONE);
      if (!need.isEmpty()) {
        needs.put(column.name(), need);
      }
    }
    return needs.isEmpty() ? Map.of() : new EvidenceCollector(EVIDENCE_FULL_SCAN_ROWS).collect(c, table, needs);
  }

  /** Plans, then plans again while the load's converter refuses values of a type the plan chose: native, fallback. */
  private static final int MAX_PROBE_ROUNDS = 3;

  /**
   * The plan, with every column whose conversion could refuse a value tried by the load's own converter
   * ({@link ValueProbe}): a first plan from the catalog and the aggregate evidence; then each such column's values
   * are converted as that plan would load them, and where some are refused the planner plans again knowing it (it
   * chooses the type that keeps them: {@code TypeMapper.afterProbe}); a column moved to a fallback is tried in its new
   * type the same way.
   */
  static Map.Entry<Plan, PlanInputs> planProbing(Connection c, Planner planner, PlanInputs inputs, ValueProbe probe)
      throws SQLException {
    Map<String, Map<String, List<ProbedValues>>> probes = new HashMap<>();
    Plan plan = planner.plan(inputs);
    SpannerDialect dialect = plan.target().spannerDialect();
    Set<String> untried = new java.util.HashSet<>();
    for (int round = 0; round < MAX_PROBE_ROUNDS; round++) {
      boolean refused = false;
      for (TablePlan t : plan.tables()) {
        if (untried.contains(t.source())) {
          continue;
        }
        Map<String, List<ProbedValues>> tried = probes.getOrDefault(t.source(), Map.of());
        List<String> columns = t.columns().stream()
            .filter(col -> col.isLoaded() && shouldProbe(col, dialect, tried.get(col.source())))
            .map(ColumnPlan::source).toList();
        if (columns.isEmpty()) {
          continue;
        }
        int dot = t.source().indexOf('.');
        PgTable table = inputs.catalog().table(t.source().substring(0, dot), t.source().substring(dot + 1))
            .orElseThrow();
        try {
          for (ProbedValues result : probe.probe(c, table, t, dialect, columns, ValueProbe.MAX_ROWS).values()) {
            probes.computeIfAbsent(t.source(), k -> new HashMap<>())
                .computeIfAbsent(result.column(), k -> new ArrayList<>()).add(result);
            refused |= result.refused() > 0;
          }
        } catch (SQLException e) {
          if ("42501".equals(e.getSQLState())) {
            throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "this role cannot SELECT " + t.source()
                + ", whose values plan converts as migrate would; GRANT SELECT ON " + t.source() + " TO the role, or "
                + "leave the table out with --exclude-tables", e);
          }
          // One table's values that cannot be tried never cost the database its plan: the aggregate evidence
          // decided its types, and the loader still refuses a value it cannot convert, row by row.
          LOG.warn("could not try the values of {} with the loader's converter ({}); its types rest on the "
              + "aggregate evidence", t.source(), e.getMessage());
          untried.add(t.source());
        } catch (RuntimeException e) {
          LOG.warn("could not try the values of {} with the loader's converter ({}); its types rest on the "
              + "aggregate evidence", t.source(), e.toString());
          untried.add(t.source());
        }
      }
      if (!refused) {
        break; // a probe that refused nothing changes no decision
      }
      plan = planner.plan(inputs.withProbes(probes));
    }
    return Map.entry(plan, inputs.withProbes(probes));
  }

  /**
   * The tables plan leaves out, as one regular expression: the user's {@code --exclude-tables}, or-ed with the exact
   * names of the tables Spanner cannot hold; null when neither.
   */
  static String excluded(String userPattern, List<String> leftOut) {
    // Metacharacters escaped one by one, so that the expression reads like the names it matches.
    String names = leftOut.isEmpty() ? null : leftOut.stream()
        .map(t -> t.replaceAll("([\\\\.\\[\\]{}()*+?^$|])", "\\\\$1"))
        .collect(Collectors.joining("|", "^(?:", ")$"));
    if (userPattern == null) {
      return names;
    }
    return names == null ? userPattern : "(?:" + userPattern + ")|" + names;
  }

  /**
   * Whether the converter should try this column as the plan now loads it: not when it did already; a column moved to
   * a fallback after an earlier try, whenever the fallback could refuse a value; else as {@link ValueProbe#mayRefuse}.
   */
  private static boolean shouldProbe(ColumnPlan column, SpannerDialect dialect, List<ProbedValues> tried) {
    if (!column.isLoaded()) {
      return false;
    }
    boolean array = SpannerType.parse(dialect, column.targetType()).isArray();
    if (tried == null || tried.isEmpty()) {
      return ValueProbe.mayRefuse(column, dialect);
    }
    return tried.stream().noneMatch(p -> p.conversion() == column.conversion() && p.array() == array)
        && !ValueProbe.NEVER_REFUSE.contains(column.conversion());
  }

  /** The key's columns and the leading column of each index: what hotspot detection and write skew look at. */
  private static List<String> sampledColumns(PgTable table) {
    java.util.LinkedHashSet<String> columns = new java.util.LinkedHashSet<>();
    if (table.primaryKey() != null) {
      columns.addAll(table.primaryKey().columns());
    }
    for (PgIndex index : table.indexes()) {
      if (!index.elements().isEmpty() && !index.elements().get(0).isExpression()) {
        columns.add(index.elements().get(0).column());
      }
    }
    return List.copyOf(columns);
  }

  /** min and max of an integer key fed by a sequence (an index-only lookup on the primary key). */
  private static java.util.Optional<PlanInputs.KeyRange> keyRange(Connection c, PgTable table) throws SQLException {
    if (table.primaryKey() == null) {
      return java.util.Optional.empty();
    }
    PgColumn lead = table.column(table.primaryKey().columns().get(0)).orElseThrow();
    if (lead.sequence() == null || !Set.of("int2", "int4", "int8").contains(lead.type().name())
        || lead.type().array()) {
      return java.util.Optional.empty();
    }
    String column = PgNames.quote(lead.name());
    String sql = "SELECT min(" + column + ")::bigint AS lo, max(" + column + ")::bigint AS hi FROM "
        + (table.hasInheritanceChildren() ? "ONLY " : "") + PgNames.qualified(table.schema(), table.name());
    try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      long lo = rs.getLong("lo");
      return rs.wasNull() ? java.util.Optional.empty()
          : java.util.Optional.of(new PlanInputs.KeyRange(lo, rs.getLong("hi")));
    }
  }

  private static void prepareDirectory(Path out) {
    try {
      Files.createDirectories(out);
      if (!Files.isWritable(out)) {
        throw new IOException("not writable");
      }
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write to --out " + out + " (" + e.getMessage()
          + "); choose a directory this user can write", e);
    }
  }
}
