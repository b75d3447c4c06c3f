package dev.pg2spanner.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.targetdb.EmulatorProvisioner;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;

/**
 * The benchmark harness behind {@code bench/run.sh}: generates one data set, measures the source and target ceilings
 * and the loads on it side by side, and prints every load figure as a ratio of the lower ceiling. The migrate runs
 * go through child JVMs of the built CLI so that each one's heap is measured alone ({@code -Xlog:gc}) and each starts
 * its own emulator (which never returns memory, and is stopped with the run).
 */
public final class Bench {

  private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
  private static final String DB = "p2s_bench";
  private static final String TARGET = "projects/bench/instances/bench/databases/bench";
  /** The 4N heap run is skipped in favour of N/4 when it would take longer than this at the measured rate. */
  private static final double BIG_RUN_BUDGET_S = 180;

  private final long rows;
  private final Path repo;
  private final Path work;
  private final String classpath;
  private final Map<String, Object> results = new LinkedHashMap<>();
  private final List<String[]> table = new ArrayList<>();

  private Bench(long rows, Path repo, Path work, String classpath) {
    this.rows = rows;
    this.repo = repo;
    this.work = work;
    this.classpath = classpath;
  }

  /** Arguments: ROWS REPO_DIR. */
  public static void main(String[] args) throws Exception {
    long rows = Long.parseLong(args[0]);
    Path repo = Path.of(args[1]).toAbsolutePath();
    Path work = Files.createTempDirectory("p2s-bench-");
    Bench bench = new Bench(rows, repo, work, System.getProperty("java.class.path"));
    if (args.length > 2 && args[2].equals("live")) {
      bench.runLiveOnly();
    } else if (args.length > 2 && args[2].equals("loader")) {
      bench.runLoaderOnly();
    } else if (args.length > 2 && args[2].equals("beam")) {
      bench.runBeamOnly();
    } else if (args.length > 2 && args[2].equals("ceiling")) {
      bench.runCeilingOnly();
    } else if (args.length > 2 && args[2].equals("cluster")) {
      bench.runClusterOnly();
    } else if (args.length > 2 && args[2].equals("floor")) {
      bench.runFloorOnly();
    } else if (args.length > 2 && args[2].equals("fallback")) {
      Map<String, Object> fallback = new FallbackBench(bench.classpath, work).run();
      System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(
          Map.of("fallback", fallback)));
    } else if (args.length > 2 && args[2].equals("keyless")) {
      // Another build's CLI (e.g. the one before the row hash) when given; this one's otherwise.
      String cli = args.length > 4 && !args[4].isBlank() ? args[4] : bench.classpath;
      Map<String, Object> keyless = new KeylessBench(cli, work).run(rows);
      System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(
          Map.of("keyless", keyless)));
    } else if (args.length > 2 && args[2].equals("cutover")) {
      List<Long> sizes = new ArrayList<>();
      for (String size : (args.length > 3 && !args[3].isBlank() ? args[3] : "100000,1000000,3000000").split(",")) {
        sizes.add(Long.parseLong(size.trim()));
      }
      Map<String, Object> cutover = new CutoverBench(bench.classpath, work).run(sizes);
      System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(
          Map.of("cutover", cutover)));
    } else {
      bench.run();
    }
  }

  /** Only the live-migration figures (the emulator's raw write ceiling printed beside them). */
  private void runLiveOnly() throws Exception {
    log("target ceiling: raw insertOrUpdate writes on a fresh emulator (batch x threads sweep)");
    Map<String, Object> target = targetCeiling();
    log("live: migrate --live on a private PostgreSQL (wal_level = logical)");
    Map<String, Object> live = new LiveBench(classpath, work).run();
    System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(
        Map.of("targetCeiling", target, "live", live)));
  }

  /**
   * Only the target ceilings, side by side: the raw sweep's best on a plain table and the plan-shaped ceiling (the
   * loader's own commits for this plan replayed on a fresh emulator, 1 and 2 threads, and with the stored generated
   * columns made plain).
   */
  /** Trials of {@link #runFloorOnly}: ceiling and load alternate this many times. */
  private static final int FLOOR_TRIALS = 3;

  /**
   * Only the emulator-bound floor (issue 18: the in-process load against the emulator's ceiling), in trials that
   * alternate the plan-shaped ceiling (the loader's captured commits replayed at 1 thread on a fresh emulator) and
   * {@code migrate} in-process (on a fresh emulator), so both meet the emulator in the same state of the machine;
   * prints each trial's ratio and the medians. The emulator's rate varies about ±10% between single trials, which is
   * more than the floor's margin.
   */
  private void runFloorOnly() throws Exception {
    results.put("date", Instant.now().toString());
    results.put("rows", rows);
    try {
      log("1. generating " + rows + " rows in database " + DB);
      results.put("tables", generate(rows));
      log("plan (--low-write-threshold 0)");
      Path planDir = work.resolve("plan-n");
      plan(planDir);
      Path planFile = planDir.resolve("plan.yaml");
      dev.pg2spanner.plan.Plan plan = dev.pg2spanner.plan.PlanFiles.read(planFile);
      log("   capturing the loader's commits (" + CAPTURE_WORKERS + " workers into a target that keeps them)");
      List<dev.pg2spanner.load.DiscardLoad.Batch> batches = dev.pg2spanner.load.DiscardLoad.capture(planFile,
          SERVER + DB + "?user=postgres", CAPTURE_WORKERS, work);
      List<String> tables = dev.pg2spanner.ddl.DdlPrinter.migrations(plan).get(0).statements();
      List<Double> ceilings = new ArrayList<>();
      List<Double> loads = new ArrayList<>();
      List<Map<String, Object>> trials = new ArrayList<>();
      for (int trial = 1; trial <= FLOOR_TRIALS; trial++) {
        log("trial " + trial + ": plan-shaped ceiling (1 thread, fresh emulator)");
        Map<String, Object> ceiling = replay(plan, tables, batches, 1);
        log("trial " + trial + ": migrate in-process (fresh emulator)");
        Map<String, Object> load = migrate(planDir, "in-process", "floor-" + trial);
        ceilings.add(num(ceiling, "rowsPerS"));
        loads.add(num(load, "loadRowsPerS"));
        double ratio = num(load, "loadRowsPerS") / num(ceiling, "rowsPerS");
        trials.add(Map.of("ceilingRowsPerS", num(ceiling, "rowsPerS"), "loadRowsPerS", num(load, "loadRowsPerS"),
            "ratio", ratio));
        log(String.format(Locale.ROOT, "   trial %d: ceiling %,.0f rows/s, load %,.0f rows/s: %.2f", trial,
            num(ceiling, "rowsPerS"), num(load, "loadRowsPerS"), ratio));
        row("trial " + trial + ": migrate in-process, load phase (x this trial's plan-shaped ceiling at 1 thread, "
            + fmt(num(ceiling, "rowsPerS")) + " rows/s)", fmt(num(load, "loadRowsPerS")), "-",
            sec(num(load, "loadS")), "-", ratio(ratio));
      }
      double medianCeiling = median(ceilings);
      double medianLoad = median(loads);
      results.put("floorTrials", trials);
      results.put("floorMedian", Map.of("ceilingRowsPerS", medianCeiling, "loadRowsPerS", medianLoad,
          "ratio", medianLoad / medianCeiling));
      row("median of " + FLOOR_TRIALS + " trials: load / plan-shaped ceiling (" + fmt(medianCeiling) + " rows/s)",
          fmt(medianLoad), "-", "-", "-", ratio(medianLoad / medianCeiling));
    } finally {
      dropDatabase();
    }
    print();
    System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(results));
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private void runCeilingOnly() throws Exception {
    results.put("date", Instant.now().toString());
    results.put("rows", rows);
    try {
      log("1. generating " + rows + " rows in database " + DB);
      results.put("tables", generate(rows));
      log("2b. target ceiling: raw insertOrUpdate writes on a fresh emulator (batch x threads sweep)");
      Map<String, Object> target = targetCeiling();
      results.put("targetCeiling", target);
      log("plan (--low-write-threshold 0)");
      Path planDir = work.resolve("plan-n");
      plan(planDir);
      log("2b'. plan-shaped target ceiling: the loader's commits for this plan, replayed on a fresh emulator");
      Map<String, Object> planShaped = planShapedCeiling(planDir);
      results.put("planShapedCeiling", planShaped);
      targetRow(target);
      planShapedRows(planShaped, num(target, "rowsPerS"));
    } finally {
      dropDatabase();
    }
    print();
    System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(results));
  }

  /**
   * Only the loader's own ceiling (issue 18): the source ceiling at one and two connections, then the in-process
   * loader into a target that discards what it is given, at 1, 2 and 4 workers, and one worker's time split.
   */
  private void runLoaderOnly() throws Exception {
    try {
      Path planDir = generateCeilingsAndPlan();
      Map<String, Object> source = result("sourceCeiling");
      Map<String, Object> source2 = result("sourceCeiling2");
      Map<String, Object> discard = discard(planDir);
      results.put("discard", discard);
      Map<String, Object> beamDiscard = beamDiscard(planDir);
      results.put("beamDiscard", beamDiscard);
      row(String.format(java.util.Locale.ROOT, "source ceiling: COPY binary to null, 1 connection; CPU per row: "
          + "PostgreSQL %.2f us", num(source, "serverCpuUsPerRow")), fmt(num(source, "rowsPerS")),
          mb(num(source, "MBPerS")), sec(num(source, "seconds")), "-", "-");
      row("source ceiling: COPY binary to null, 2 connections", fmt(num(source2, "rowsPerS")),
          mb(num(source2, "MBPerS")), sec(num(source2, "seconds")), "-", "-");
      discardRows(discard, num(source, "rowsPerS"), num(source2, "rowsPerS"));
      beamDiscardRows(beamDiscard, num(source2, "rowsPerS"));
    } finally {
      dropDatabase();
    }
    print();
    System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(results));
  }

  /**
   * Only the Beam pipeline's own ceiling (issue 34): the source ceilings and the pipeline into a discard sink on the
   * DirectRunner and Flink's embedded cluster, as in {@code --only loader} without the in-process passes.
   */
  private void runBeamOnly() throws Exception {
    try {
      Path planDir = generateCeilingsAndPlan();
      Map<String, Object> source2 = result("sourceCeiling2");
      Map<String, Object> beamDiscard = beamDiscard(planDir);
      results.put("beamDiscard", beamDiscard);
      row("source ceiling: COPY binary to null, 2 connections", fmt(num(source2, "rowsPerS")),
          mb(num(source2, "MBPerS")), sec(num(source2, "seconds")), "-", "-");
      beamDiscardRows(beamDiscard, num(source2, "rowsPerS"));
    } finally {
      dropDatabase();
    }
    print();
    System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(results));
  }

  /**
   * Only the Flink session cluster's figures (issue 34) beside the in-process and embedded ones, on one data set:
   * the source ceilings; into a discard sink, the in-process loader (2 workers) and the Beam pipeline on Flink's
   * embedded cluster and on a session cluster of separate JVMs (2 TaskManagers, 1 slot each); onto the emulator,
   * migrate in-process and migrate --runner flink --flink-master (with verify). The cluster is stopped at the end,
   * also on failure. With {@code -Dbench.clusterDiscardOnly=true} (through {@code JDK_JAVA_OPTIONS}) the two runs
   * onto the emulator are left out, so that a larger {@code --rows} measures the discard rates in minutes.
   */
  private void runClusterOnly() throws Exception {
    boolean discardOnly = Boolean.getBoolean("bench.clusterDiscardOnly");
    results.put("machine", Map.of("cores", Runtime.getRuntime().availableProcessors()));
    String url = SERVER + DB + "?user=postgres";
    try {
      Path planDir = generateCeilingsAndPlan();
      Map<String, Object> source = result("sourceCeiling");
      Map<String, Object> source2 = result("sourceCeiling2");
      Path plan = planDir.resolve("plan.yaml");
      log("2h. loader into a discard target (no Spanner), 2 workers: warm-up pass, then the measured one");
      dev.pg2spanner.load.DiscardLoad.run(plan, url, 2, work, true, "copy");
      Map<String, Object> inProcess = dev.pg2spanner.load.DiscardLoad.run(plan, url, 2, work, false, "copy");
      results.put("discardInProcess", inProcess);
      log("2j. Beam pipeline into a discard sink: Flink embedded local cluster, parallelism " + BEAM_WORKERS
          + " (cluster start and stop included)");
      Map<String, Object> embedded = dev.pg2spanner.beam.BeamDiscardLoad.run(plan, url,
          dev.pg2spanner.beam.BeamDiscardLoad.flink(BEAM_WORKERS), BEAM_WORKERS, work);
      results.put("discardFlinkEmbedded", embedded);
      log("3. Flink session cluster: " + ClusterBench.TASK_MANAGERS + " TaskManagers, " + ClusterBench.SLOTS
          + " slot each, separate JVMs");
      long clusterStart = System.nanoTime();
      Map<String, Object> clusterDiscard;
      Map<String, Object> clusterMigrate;
      try (ClusterBench cluster = ClusterBench.start(work)) {
        results.put("clusterStartS", (System.nanoTime() - clusterStart) / 1e9);
        log("   JobManager at " + cluster.master() + "; 3a. Beam pipeline into a discard sink, submitted to it");
        int parallelism = ClusterBench.TASK_MANAGERS * ClusterBench.SLOTS;
        clusterDiscard = cluster.measure("rows", "seconds", () -> dev.pg2spanner.beam.BeamDiscardLoad.run(plan, url,
            dev.pg2spanner.beam.BeamDiscardLoad.flinkCluster(parallelism, cluster.master(),
                dev.pg2spanner.cli.BenchStaging.filesToStage()), parallelism, work));
        results.put("discardFlinkCluster", clusterDiscard);
        if (!discardOnly) {
          log("3b. migrate --runner flink --flink-master " + cluster.master() + " (fresh emulator, verify)");
          clusterMigrate = cluster.measure("loadRows", "loadS", () -> migrate(planDir, "flink", "flink-cluster",
              List.of("--flink-master", cluster.master(), "--workers", Integer.toString(parallelism))));
          results.put("migrateFlinkCluster", clusterMigrate);
        } else {
          clusterMigrate = null;
        }
      }
      Map<String, Object> migrateInProcess = null;
      if (!discardOnly) {
        log("3c. migrate --runner in-process (fresh emulator, verify)");
        migrateInProcess = migrate(planDir, "in-process", "n");
        results.put("migrateInProcess", migrateInProcess);
      }
      double c1 = num(source, "rowsPerS");
      double c2 = num(source2, "rowsPerS");
      row("source ceiling: COPY binary to null, 1 connection", fmt(c1), mb(num(source, "MBPerS")),
          sec(num(source, "seconds")), "-", "-");
      row("source ceiling: COPY binary to null, 2 connections", fmt(c2), mb(num(source2, "MBPerS")),
          sec(num(source2, "seconds")), "-", "-");
      row("loader into a discard target, 2 workers, in-process (x source ceiling at 2 connections)",
          fmt(num(inProcess, "rowsPerS")), mb(num(inProcess, "MBPerS")), sec(num(inProcess, "seconds")), "-",
          ratio(num(inProcess, "rowsPerS") / c2));
      row("Beam pipeline into a discard sink, Flink embedded local cluster, parallelism 2 (cluster start incl.)",
          fmt(num(embedded, "rowsPerS")), "-", sec(num(embedded, "seconds")), "-",
          ratio(num(embedded, "rowsPerS") / c2));
      clusterRows("Beam pipeline into a discard sink, Flink session cluster", clusterDiscard, "rowsPerS",
          "seconds", c1, c2);
      if (clusterMigrate != null) {
        clusterRows("migrate --runner flink --flink-master, load phase (emulator; verify exact: "
            + !clusterMigrate.containsKey("exitCode") + ")", clusterMigrate, "loadRowsPerS", "loadS", c1, c2);
      }
      if (migrateInProcess != null) {
        row("migrate --runner in-process, load phase (emulator; verify exact: "
            + !migrateInProcess.containsKey("exitCode") + ")", fmt(num(migrateInProcess, "loadRowsPerS")), "-",
            sec(num(migrateInProcess, "loadS")), heapCell(migrateInProcess), "-");
      }
    } finally {
      dropDatabase();
    }
    print();
    System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(results));
  }

  /** A job on the session cluster: launcher-side rate, then the job's own time, submission and per-core rate. */
  private void clusterRows(String name, Map<String, Object> r, String rateKey, String wallKey, double c1,
      double c2) {
    row(name + ", 2 TaskManagers x 1 slot, as the launcher saw it (x source ceiling at 2 connections)",
        fmt(num(r, rateKey)), "-", sec(num(r, wallKey)), "-", ratio(num(r, rateKey) / c2));
    row(String.format(Locale.ROOT, "  the same: job's own time (REST record), submission %.1f s apart; "
        + "TaskManagers' CPU %.1f s = %.2f cores used", num(r, "submissionS"), num(r, "tmCpuS"),
        num(r, "coresUsed")), fmt(num(r, "jobRowsPerS")), "-", sec(num(r, "jobS")), "-",
        ratio(num(r, "jobRowsPerS") / c2));
    row("  the same: rows/s per core used (TaskManagers' CPU) (x source ceiling at 1 connection)",
        fmt(num(r, "rowsPerSPerCore")), "-", "-", "-", ratio(num(r, "rowsPerSPerCore") / c1));
    if (r.get("tmCpuByThread") instanceof Map<?, ?> split) {
      row(String.format(Locale.ROOT, "  the same: rows/s per core of the job's task threads alone (x source ceiling at "
          + "1 connection); of the TaskManagers' CPU, JIT compilers %.1f s, task threads %.1f s, the rest %.1f s",
          (Double) split.get("jit"), (Double) split.get("tasks"), (Double) split.get("other")),
          fmt(num(r, "rowsPerSPerTaskCore")), "-", "-", "-", ratio(num(r, "rowsPerSPerTaskCore") / c1));
    }
  }

  /**
   * The run's date and size, the data set, the source ceilings at 1 and 2 connections (into {@link #results} as sourceCeiling and
   * sourceCeiling2) and the plan; returns the plan's directory.
   */
  private Path generateCeilingsAndPlan() throws Exception {
    results.put("date", Instant.now().toString());
    results.put("rows", rows);
    log("1. generating " + rows + " rows in database " + DB);
    Map<String, Long> counts = generate(rows);
    log("2a. source ceiling: COPY ... TO STDOUT (FORMAT binary) of every table to a null sink");
    results.put("sourceCeiling", sourceCeiling(counts));
    log("   two connections at once, each copying every table");
    results.put("sourceCeiling2", sourceCeiling2(counts));
    log("plan (--low-write-threshold 0)");
    Path planDir = work.resolve("plan-n");
    plan(planDir);
    return planDir;
  }

  /** A figure already in {@link #results}. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> result(String key) {
    return (Map<String, Object>) results.get(key);
  }

  /** The loader's readers the discard figures compare: migrate's binary COPY, all-text COPY, JDBC. */
  private static final List<String> DISCARD_READERS = List.of("copy", "copy-text", "jdbc");

  /** The loader into the discard target at 1, 2 and 4 workers, and the one-worker split. */
  private Map<String, Object> discard(Path planDir) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    String url = SERVER + DB + "?user=postgres";
    // The first pass loads classes and warms the JIT (seconds on this machine); it is not a measurement.
    log("2h. loader into a discard target (no Spanner): warm-up pass");
    Map<String, Object> warm = dev.pg2spanner.load.DiscardLoad.run(planDir.resolve("plan.yaml"), url, 2, work, true,
        "copy");
    dev.pg2spanner.load.DiscardLoad.run(planDir.resolve("plan.yaml"), url, 2, work, false, "copy-text");
    dev.pg2spanner.load.DiscardLoad.run(planDir.resolve("plan.yaml"), url, 2, work, false, "jdbc");
    long bytes = ((Number) warm.get("bytes")).longValue();
    for (String reader : DISCARD_READERS) {
      for (int workers : List.of(1, 2, 4)) {
        log("2h. loader into a discard target (no Spanner): " + workers + " worker(s), reading with "
            + switch (reader) {
              case "copy" -> "binary COPY (what migrate uses)";
              case "copy-text" -> "COPY, every table as text";
              default -> "a JDBC result set";
            });
        Map<String, Object> r = dev.pg2spanner.load.DiscardLoad.run(planDir.resolve("plan.yaml"), url, workers, work,
            false, reader);
        // The same rows as the warm-up pass, so the same bytes.
        r.put("bytes", bytes);
        r.put("MBPerS", bytes / 1e6 / num(r, "seconds"));
        out.put(workers + "w" + (reader.equals("copy") ? "" : "-" + reader), r);
      }
    }
    log("2i. one worker's time split: next row (JDBC) / convert / batch");
    out.put("split", dev.pg2spanner.load.DiscardLoad.profile(planDir.resolve("plan.yaml"), url));
    log("2j. one worker's time split with the COPY reader: next line / split / convert / batch");
    out.put("copySplit", dev.pg2spanner.load.DiscardLoad.profileCopy(planDir.resolve("plan.yaml"), url));
    return out;
  }

  private void discardRows(Map<String, Object> discard, double ceiling1, double ceiling2) {
    List<String> keys = new ArrayList<>();
    for (String reader : DISCARD_READERS) {
      for (int workers : List.of(1, 2, 4)) {
        keys.add(workers + "w" + (reader.equals("copy") ? "" : "-" + reader));
      }
    }
    for (String w : keys) {
      @SuppressWarnings("unchecked")
      Map<String, Object> r = (Map<String, Object>) discard.get(w);
      boolean one = w.startsWith("1w");
      row(String.format(java.util.Locale.ROOT, "loader into a discard target, %s worker(s), %s reader (x source "
          + "ceiling at %s connection(s)); CPU per row: loader JVM %.2f us, PostgreSQL %.2f us", r.get("workers"),
          r.get("reader"), one ? "1" : "2", num(r, "jvmCpuUsPerRow"), num(r, "serverCpuUsPerRow")),
          fmt(num(r, "rowsPerS")), mb(num(r, "MBPerS")),
          sec(num(r, "seconds")), "-", ratio(num(r, "rowsPerS") / (one ? ceiling1 : ceiling2)));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> split = (Map<String, Object>) discard.get("split");
    double total = num(split, "seconds");
    row(String.format(java.util.Locale.ROOT, "one worker's split: next row %.0f%% / convert %.0f%% / batch %.0f%%",
        100 * num(split, "readS") / total, 100 * num(split, "convertS") / total, 100 * num(split, "batchS") / total),
        fmt(num(split, "rowsPerS")), "-", sec(total), "-", ratio(num(split, "rowsPerS") / ceiling1));
    @SuppressWarnings("unchecked")
    Map<String, Object> copySplit = (Map<String, Object>) discard.get("copySplit");
    double copyTotal = num(copySplit, "seconds");
    row(String.format(java.util.Locale.ROOT, "one worker's split, COPY reader: next line %.0f%% / split %.0f%% / "
        + "convert %.0f%% / batch %.0f%%", 100 * num(copySplit, "readS") / copyTotal,
        100 * num(copySplit, "splitS") / copyTotal, 100 * num(copySplit, "convertS") / copyTotal,
        100 * num(copySplit, "batchS") / copyTotal), fmt(num(copySplit, "rowsPerS")), "-", sec(copyTotal), "-",
        ratio(num(copySplit, "rowsPerS") / ceiling1));
    row("the loader's SELECTs as COPY text to null, 1 connection (server-side formatting, no JDBC)",
        fmt(num(split, "copySelectRowsPerS")), "-", sec(num(split, "copySelectS")), "-",
        ratio(num(split, "copySelectRowsPerS") / ceiling1));
  }

  /** Beam runners with two workers, the DirectRunner and Flink's embedded local cluster. */
  private static final int BEAM_WORKERS = 2;

  /**
   * The Beam pipeline's own ceiling (issue 18): the product's pipeline with a sink that counts and discards the
   * mutations instead of committing them, on the DirectRunner (checks off, as migrate runs it) and on Flink's embedded
   * local cluster, {@link #BEAM_WORKERS} workers each.
   */
  private Map<String, Object> beamDiscard(Path planDir) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    String url = SERVER + DB + "?user=postgres";
    Path plan = planDir.resolve("plan.yaml");
    // Loads Beam's classes and warms the JIT for both runners' shared code; not a measurement.
    log("2j. Beam pipeline into a discard sink (no Spanner): warm-up pass on the DirectRunner");
    dev.pg2spanner.beam.BeamDiscardLoad.run(plan, url, dev.pg2spanner.beam.BeamDiscardLoad.direct(BEAM_WORKERS),
        BEAM_WORKERS, work);
    log("2j. Beam pipeline into a discard sink: DirectRunner, " + BEAM_WORKERS + " threads");
    out.put("direct", dev.pg2spanner.beam.BeamDiscardLoad.run(plan, url,
        dev.pg2spanner.beam.BeamDiscardLoad.direct(BEAM_WORKERS), BEAM_WORKERS, work));
    log("2j. Beam pipeline into a discard sink: Flink embedded local cluster, parallelism " + BEAM_WORKERS
        + " (cluster start and stop included)");
    out.put("flink", dev.pg2spanner.beam.BeamDiscardLoad.run(plan, url,
        dev.pg2spanner.beam.BeamDiscardLoad.flink(BEAM_WORKERS), BEAM_WORKERS, work));
    return out;
  }

  private void beamDiscardRows(Map<String, Object> beamDiscard, double ceiling2) {
    for (String runner : List.of("direct", "flink")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> r = (Map<String, Object>) beamDiscard.get(runner);
      row("Beam pipeline into a discard sink, " + (runner.equals("direct") ? "DirectRunner, " + r.get("workers")
          + " threads" : "Flink local cluster, parallelism " + r.get("workers") + " (cluster start incl.)")
          + String.format(Locale.ROOT, "; LoadPiece read %.1f s, batch %.1f s", num(r, "readS"), num(r, "batchS"))
          + " (x source ceiling at 2 connections)", fmt(num(r, "rowsPerS")), "-",
          sec(num(r, "seconds")), "-", ratio(num(r, "rowsPerS") / ceiling2));
    }
  }

  /** Two connections at once, each COPYing every table: what the server and this machine give two readers. */
  private Map<String, Object> sourceCeiling2(Map<String, Long> counts) throws Exception {
    long start = System.nanoTime();
    List<java.util.concurrent.Future<Map<String, Object>>> runs = new ArrayList<>();
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      for (int i = 0; i < 2; i++) {
        runs.add(pool.submit(() -> sourceCeiling(counts)));
      }
      long rowsTotal = 0;
      long bytes = 0;
      for (var f : runs) {
        Map<String, Object> r = f.get();
        rowsTotal += ((Number) r.get("rows")).longValue();
        bytes += ((Number) r.get("bytes")).longValue();
      }
      return rate(rowsTotal, bytes, (System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  private void run() throws Exception {
    String started = Instant.now().toString();
    results.put("date", started);
    results.put("rows", rows);
    results.put("machine", Map.of("cores", Runtime.getRuntime().availableProcessors(),
        "java", System.getProperty("java.version")));
    try {
      log("1. generating " + rows + " rows in database " + DB);
      Map<String, Long> counts = generate(rows);
      results.put("tables", counts);

      log("2a. source ceiling: COPY ... TO STDOUT (FORMAT binary) of every table to a null sink");
      Map<String, Object> source = sourceCeiling(counts);
      results.put("sourceCeiling", source);
      log("   two connections at once, each copying every table");
      results.put("sourceCeiling2", sourceCeiling2(counts));

      log("2b. target ceiling: raw insertOrUpdate writes on a fresh emulator (batch x threads sweep)");
      Map<String, Object> target = targetCeiling();
      results.put("targetCeiling", target);
      double ceiling = Math.min(num(source, "rowsPerS"), num(target, "rowsPerS"));
      results.put("ceilingRowsPerS", ceiling);

      log("plan (--low-write-threshold 0)");
      Path planDir = work.resolve("plan-n");
      Map<String, Object> plan = plan(planDir);
      results.put("plan", plan);
      results.put("writeSkew", writeSkew(planDir.resolve("report.json")));

      // Needs the plan, so it follows it rather than the sweep directly.
      log("2b'. plan-shaped target ceiling: the loader's commits for this plan, replayed on a fresh emulator");
      results.put("planShapedCeiling", planShapedCeiling(planDir));

      Map<String, Object> discard = discard(planDir);
      results.put("discard", discard);
      results.put("beamDiscard", beamDiscard(planDir));

      log("2c. migrate --runner in-process (end to end, fresh emulator)");
      Map<String, Object> inProcess = migrate(planDir, "in-process", "n");
      results.put("migrateInProcess", inProcess);

      log("2d. migrate --runner direct (Beam DirectRunner, fresh emulator)");
      Map<String, Object> direct = migrate(planDir, "direct", "direct");
      results.put("migrateDirect", direct);

      log("2g. migrate --live on a private PostgreSQL (wal_level = logical): apply rate, steady lag, cutover");
      try {
        results.put("live", new LiveBench(classpath, work).run());
      } catch (Exception e) {
        log("   live measurement failed: " + e.getMessage());
        results.put("live", Map.of("error", String.valueOf(e.getMessage())));
      }

      // 2f. heap at a second size: 4N when affordable at the rate just measured, else N/4.
      double rate = num(inProcess, "loadRowsPerS");
      long big = rows * 4;
      String heapNote = "second size 4N";
      if (rate <= 0 || big / rate > BIG_RUN_BUDGET_S) {
        big = rows / 4;
        heapNote = "4N would take over " + (int) BIG_RUN_BUDGET_S + " s at " + Math.round(rate)
            + " rows/s; second size N/4 instead";
      }
      log("2f. loader heap at a second size: " + big + " rows (" + heapNote + ")");
      Map<String, Long> bigCounts = generate(big);
      Path planBig = work.resolve("plan-big");
      plan(planBig);
      Map<String, Object> second = migrate(planBig, "in-process", "big");
      second.put("rows", bigCounts.values().stream().mapToLong(Long::longValue).sum());
      results.put("migrateInProcessSecondSize", second);
      results.put("heapNote", heapNote);

      log("2e. plan on a synthetic catalog of 1,000 tables (bench/plan-catalog.sh)");
      results.put("planCatalog1000", planCatalog());

      tabulate(source, target, ceiling, inProcess, direct, second, plan);
    } finally {
      dropDatabase();
    }
    print();
    Path out = repo.resolve("bench/results/latest.json");
    Files.createDirectories(out.getParent());
    results.put("table", table.stream().map(List::of).toList());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), results);
    System.out.println("JSON: " + out);
  }

  // ---------------------------------------------------------------------------------------------------------- data

  /** Creates the database afresh with N rows over five application-shaped tables; returns rows per table. */
  private Map<String, Long> generate(long n) throws SQLException {
    dropDatabase();
    try (Connection c = DriverManager.getConnection(SERVER + "postgres?user=postgres");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + DB);
    }
    long customers = Math.max(1, n / 10);
    long orders = Math.max(1, n * 3 / 10);
    long items = orders + orders / 2;
    long events = Math.max(0, n - customers - orders - items);
    try (Connection c = source(); Statement s = c.createStatement()) {
      // Deterministic: every value is a function of the row number; text lengths cycle through 40..200 bytes.
      s.execute("""
          CREATE TABLE customers (id bigserial PRIMARY KEY, name text NOT NULL, email text NOT NULL,
            balance numeric(12,2) NOT NULL, created_at timestamptz NOT NULL);
          CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers,
            note text NOT NULL, amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL, attrs jsonb NOT NULL);
          CREATE INDEX orders_created_idx ON orders (created_at);
          CREATE TABLE order_items (order_id bigint NOT NULL REFERENCES orders, line int NOT NULL,
            product text NOT NULL, qty int NOT NULL, price numeric(10,2) NOT NULL, PRIMARY KEY (order_id, line));
          CREATE TABLE products (id bigserial PRIMARY KEY, sku text NOT NULL UNIQUE, description text NOT NULL,
            price numeric(10,2) NOT NULL, updated_at timestamptz NOT NULL);
          CREATE TABLE events (at timestamptz NOT NULL, kind text NOT NULL, payload jsonb NOT NULL,
            note text NOT NULL);
          CREATE OR REPLACE FUNCTION bench_text(i bigint) RETURNS text IMMUTABLE LANGUAGE sql AS
            $$ SELECT substr(repeat(md5(i::text), 7), 1, 40 + (i * 37 % 161)::int) $$;
          """);
      s.execute("INSERT INTO customers (name, email, balance, created_at) SELECT 'customer ' || g || ' '"
          + " || substr(md5(g::text), 1, 24), 'c' || g || '@example.com', (g % 100000) / 100.0,"
          + " timestamptz '2024-01-01 00:00:00+00' + g * interval '7 seconds' FROM generate_series(1::bigint, "
          + customers + ") g");
      s.execute("INSERT INTO orders (customer_id, note, amount, created_at, attrs) SELECT 1 + (g * 7919) % "
          + customers + ", bench_text(g), (g * 31 % 1000000) / 100.0,"
          + " timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second',"
          + " jsonb_build_object('channel', (ARRAY['web','app','store'])[1 + g % 3], 'items', 1 + g % 2,"
          + " 'gift', g % 5 = 0) FROM generate_series(1::bigint, " + orders + ") g");
      s.execute("INSERT INTO order_items (order_id, line, product, qty, price) SELECT g, l, bench_text(g * 2 + l),"
          + " 1 + (g + l) % 9, ((g * 13 + l) % 50000) / 100.0 FROM generate_series(1::bigint, " + orders + ") g,"
          + " generate_series(1, 2) l WHERE l = 1 OR g % 2 = 0");
      long products = events / 10;
      events -= products;
      s.execute("INSERT INTO products (sku, description, price, updated_at) SELECT 'SKU-' || g, bench_text(g + 7),"
          + " (g % 90000) / 100.0, timestamptz '2023-06-01 00:00:00+00' + g * interval '1 minute'"
          + " FROM generate_series(1::bigint, " + products + ") g");
      s.execute("INSERT INTO events (at, kind, payload, note) SELECT timestamptz '2024-03-01 00:00:00+00'"
          + " + g * interval '250 milliseconds', (ARRAY['login','view','buy','logout'])[1 + g % 4],"
          + " jsonb_build_object('session', md5(g::text), 'n', g), bench_text(g + 3)"
          + " FROM generate_series(1::bigint, " + events + ") g");
      s.execute("ANALYZE");
      Map<String, Long> counts = new LinkedHashMap<>();
      for (String t : List.of("customers", "orders", "order_items", "products", "events")) {
        try (ResultSet rs = s.executeQuery("SELECT count(*) AS n FROM " + t)) {
          rs.next();
          counts.put(t, rs.getLong("n"));
        }
      }
      log("   " + counts);
      return counts;
    }
  }

  private static Connection source() throws SQLException {
    return DriverManager.getConnection(SERVER + DB + "?user=postgres");
  }

  private static void dropDatabase() throws SQLException {
    try (Connection c = DriverManager.getConnection(SERVER + "postgres?user=postgres");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
    }
  }

  // ------------------------------------------------------------------------------------------------------ ceilings

  private Map<String, Object> sourceCeiling(Map<String, Long> counts) throws Exception {
    long bytes = 0;
    long total = 0;
    long start = System.nanoTime();
    long serverTicks;
    try (Connection c = source()) {
      long pid;
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getLong(1);
      }
      long ticks0 = dev.pg2spanner.load.DiscardLoad.cpuTicks(pid);
      var copy = c.unwrap(PGConnection.class).getCopyAPI();
      for (var e : counts.entrySet()) {
        CountingSink sink = new CountingSink();
        copy.copyOut("COPY " + e.getKey() + " TO STDOUT (FORMAT binary)", sink);
        bytes += sink.bytes;
        total += e.getValue();
      }
      serverTicks = dev.pg2spanner.load.DiscardLoad.cpuTicks(pid) - ticks0;
    }
    double s = (System.nanoTime() - start) / 1e9;
    Map<String, Object> out = rate(total, bytes, s);
    out.put("serverCpuUsPerRow", serverTicks * 1e6 / dev.pg2spanner.load.DiscardLoad.CLOCK_TICKS / total);
    return out;
  }

  private static final class CountingSink extends OutputStream {
    long bytes;

    @Override
    public void write(int b) {
      bytes++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes += len;
    }
  }

  private Map<String, Object> targetCeiling() throws Exception {
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow(
        () -> new IllegalStateException("no Spanner emulator installed: " + EmulatorBinaries.installHint()));
    List<Map<String, Object>> sweep = new ArrayList<>();
    Map<String, Object> best = null;
    try (LocalEmulator emulator = LocalEmulator.start(binaries)) {
      SpannerTarget target = SpannerTarget.parse(TARGET, emulator.hostPort());
      try (Spanner spanner = SpannerConnector.open(target)) {
        EmulatorProvisioner.ensureExists(spanner, target);
        List<String> ddl = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          // The shape of the benchmark's orders table, with a bit-reversed key as the plan gives it.
          ddl.add("CREATE TABLE w" + t + " (id INT64 NOT NULL, customer_id INT64 NOT NULL, note STRING(MAX) NOT NULL,"
              + " amount NUMERIC NOT NULL, created_at TIMESTAMP NOT NULL, attrs JSON NOT NULL) PRIMARY KEY (id)");
        }
        spanner.getDatabaseAdminClient().updateDatabaseDdl(target.instance(), target.database(), ddl, null)
            .get(2, TimeUnit.MINUTES);
        DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
            target.database()));
        long next = 1;
        // Enough rows per configuration for several commits at the largest batch, without filling the emulator.
        int perConfig = (int) Math.max(20_000, Math.min(60_000, rows / 5));
        for (int batch : new int[] {500, 2000, 5000}) {
          for (int threads : new int[] {1, 2, 4}) {
            List<List<Mutation>> commits = new ArrayList<>();
            long bytes = 0;
            for (int t = 0; t < threads; t++) {
              for (int done = t * (perConfig / threads); done < (t + 1) * (perConfig / threads); done += batch) {
                List<Mutation> m = new ArrayList<>(batch);
                for (int i = 0; i < batch; i++) {
                  long id = next++;
                  String note = note(id);
                  String attrs = "{\"channel\":\"web\",\"gift\":false,\"items\":" + (1 + id % 2) + "}";
                  bytes += 8 + 8 + note.length() + 8 + 8 + attrs.length();
                  m.add(Mutation.newInsertOrUpdateBuilder("w" + t).set("id").to(Long.reverse(id))
                      .set("customer_id").to(id % 1000).set("note").to(note)
                      .set("amount").to(new BigDecimal(id % 100000).movePointLeft(2))
                      .set("created_at").to(Timestamp.ofTimeSecondsAndNanos(1_700_000_000L + id, 0))
                      .set("attrs").to(Value.json(attrs)).build());
                }
                commits.add(m);
              }
            }
            long rowsWritten = (long) commits.size() * batch;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            long start = System.nanoTime();
            List<Future<?>> futures = new ArrayList<>();
            java.util.concurrent.atomic.LongAdder commitNanos = new java.util.concurrent.atomic.LongAdder();
            int per = commits.size() / threads;
            for (int t = 0; t < threads; t++) {
              List<List<Mutation>> mine = commits.subList(t * per, t == threads - 1 ? commits.size() : (t + 1) * per);
              futures.add(pool.submit(() -> {
                for (List<Mutation> m : mine) {
                  long c0 = System.nanoTime();
                  client.writeAtLeastOnce(m);
                  commitNanos.add(System.nanoTime() - c0);
                }
              }));
            }
            for (Future<?> f : futures) {
              f.get();
            }
            double s = (System.nanoTime() - start) / 1e9;
            pool.shutdown();
            Map<String, Object> r = rate(rowsWritten, bytes, s);
            r.put("batch", batch);
            r.put("threads", threads);
            r.put("commitUsPerRow", commitNanos.sum() / 1e3 / rowsWritten);
            sweep.add(r);
            log(String.format(Locale.ROOT, "   batch %5d x %d threads: %,8.0f rows/s", batch, threads,
                num(r, "rowsPerS")));
            if (best == null || num(r, "rowsPerS") > num(best, "rowsPerS")) {
              best = r;
            }
          }
        }
      }
    }
    Map<String, Object> result = new LinkedHashMap<>(best);
    result.put("sweep", sweep);
    return result;
  }

  /** The in-process loader's workers on the emulator (migrate's default there), whose commits are captured. */
  private static final int CAPTURE_WORKERS = 2;

  /**
   * The plan-shaped target ceiling: the emulator's write rate for exactly the commits the in-process loader makes
   * for this plan (its tables, keys, interleaving, generated columns and value types, its batch sizes and order),
   * with no loader in the timed loop. The commits are captured from the real loader into a target that keeps them
   * ({@link dev.pg2spanner.load.DiscardLoad#capture}), then each configuration replays them with
   * {@code writeAtLeastOnce} on a fresh emulator holding only the plan's V1 tables: at 1 and 2 threads, and again
   * with every stored generated column made a plain nullable one (what the emulator's per-row computation of those
   * columns costs; the loader never sets them, so they stay NULL).
   */
  private Map<String, Object> planShapedCeiling(Path planDir) throws Exception {
    Path planFile = planDir.resolve("plan.yaml");
    dev.pg2spanner.plan.Plan plan = dev.pg2spanner.plan.PlanFiles.read(planFile);
    log("   capturing the loader's commits (" + CAPTURE_WORKERS + " workers into a target that keeps them)");
    long heapBefore = usedHeapAfterGc();
    List<dev.pg2spanner.load.DiscardLoad.Batch> batches = dev.pg2spanner.load.DiscardLoad.capture(planFile,
        SERVER + DB + "?user=postgres", CAPTURE_WORKERS, work);
    long heldMB = (usedHeapAfterGc() - heapBefore) >> 20;
    long commits = batches.size();
    long rowsCaptured = batches.stream().mapToLong(b -> b.mutations().size()).sum();
    log(String.format(Locale.ROOT, "   captured %,d rows in %,d commits, holding about %,d MB of heap (max heap "
        + "%,d MB)",
        rowsCaptured, commits, heldMB, Runtime.getRuntime().maxMemory() >> 20));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("captureWorkers", CAPTURE_WORKERS);
    out.put("rows", rowsCaptured);
    out.put("commits", commits);
    out.put("captureHeapMB", heldMB);
    List<String> tables = dev.pg2spanner.ddl.DdlPrinter.migrations(plan).get(0).statements();
    for (int threads : new int[] {1, 2}) {
      log("   replay on a fresh emulator, plan's V1 tables, " + threads + " thread(s)");
      out.put(threads + "t", replay(plan, tables, batches, threads));
    }
    List<String> generated = new ArrayList<>();
    dev.pg2spanner.plan.Plan plain = withoutGeneratedColumns(plan, generated);
    if (plain == null) {
      out.put("plainGeneratedColumns", Map.of("skipped", generated.isEmpty() ? "the plan has no stored generated "
          + "column" : "a stored generated column is part of a primary key: " + generated));
    } else {
      Map<String, Object> plainRuns = new LinkedHashMap<>();
      plainRuns.put("columns", generated);
      List<String> plainTables = dev.pg2spanner.ddl.DdlPrinter.migrations(plain).get(0).statements();
      for (int threads : new int[] {1, 2}) {
        log("   replay on a fresh emulator, generated columns " + generated + " made plain, " + threads
            + " thread(s)");
        plainRuns.put(threads + "t", replay(plan, plainTables, batches, threads));
      }
      out.put("plainGeneratedColumns", plainRuns);
    }
    return out;
  }

  /** Heap in use after a full collection, in bytes (for what the capture holds; not a timing). */
  private static long usedHeapAfterGc() {
    System.gc();
    return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
  }

  /** After a replay, untimed: the tables hold exactly the rows replayed (they started empty), else it fails. */
  private static void requireRows(DatabaseClient client, List<dev.pg2spanner.load.DiscardLoad.Batch> batches,
      long expected, com.google.cloud.spanner.Dialect dialect) {
    char quote = dialect == com.google.cloud.spanner.Dialect.POSTGRESQL ? '"' : '`';
    long found = 0;
    for (String table : batches.stream().map(b -> b.mutations().get(0).getTable()).distinct().toList()) {
      try (com.google.cloud.spanner.ResultSet rs = client.singleUse().executeQuery(com.google.cloud.spanner.Statement
          .of("SELECT COUNT(*) FROM " + quote + table.replace(".", quote + "." + quote) + quote))) {
        rs.next();
        found += rs.getLong(0);
      }
    }
    if (found != expected) {
      throw new IllegalStateException("the replay left " + found + " rows in the tables, not the " + expected
          + " it committed");
    }
  }

  /**
   * The plan with every stored generated column a plain nullable column (the rest as it was), its target names in
   * {@code generated} as "table.column"; null when there is none, or when one is a key part (the loader leaves it
   * unset, so every row's key would change).
   */
  private static dev.pg2spanner.plan.Plan withoutGeneratedColumns(dev.pg2spanner.plan.Plan plan,
      List<String> generated) {
    boolean inKey = false;
    List<dev.pg2spanner.plan.TablePlan> tables = new ArrayList<>();
    for (dev.pg2spanner.plan.TablePlan t : plan.tables()) {
      List<dev.pg2spanner.plan.ColumnPlan> columns = new ArrayList<>();
      for (dev.pg2spanner.plan.ColumnPlan c : t.columns()) {
        if (c.generatedExpression() == null) {
          columns.add(c);
          continue;
        }
        generated.add(t.target() + "." + c.target());
        inKey |= t.primaryKey().stream().anyMatch(k -> k.column().equals(c.target()));
        columns.add(new dev.pg2spanner.plan.ColumnPlan(c.source(), c.sourceType(), c.target(), c.targetType(), false,
            c.conversion(), c.defaultExpression(), null, c.uuidNamespace()));
      }
      tables.add(new dev.pg2spanner.plan.TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(),
          t.bytesEstimate(), columns, t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(), t.foreignKeys(),
          t.checks(), t.findings(), t.splitPoints()));
    }
    if (generated.isEmpty() || inKey) {
      return null;
    }
    return new dev.pg2spanner.plan.Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(),
        plan.target(), tables, plan.sequences(), plan.findings());
  }

  /**
   * One replay: a fresh emulator, {@code tables} applied in one DDL request (V1, as migrate applies it before the
   * load), then every captured batch committed with {@code writeAtLeastOnce}, timed; level by level as the loader
   * does (a level's commits start once the level above is committed), {@code threads} threads taking the next batch
   * of the level from a shared counter. A failed commit fails the bench.
   *
   * @return rows, bytes, seconds, rows/s, MB/s, commits and the summed commit time per row in microseconds
   */
  private Map<String, Object> replay(dev.pg2spanner.plan.Plan plan, List<String> tables,
      List<dev.pg2spanner.load.DiscardLoad.Batch> batches, int threads) throws Exception {
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow(
        () -> new IllegalStateException("no Spanner emulator installed: " + EmulatorBinaries.installHint()));
    java.util.TreeMap<Integer, List<List<Mutation>>> byLevel = new java.util.TreeMap<>();
    long rowsTotal = 0;
    long bytes = 0;
    for (dev.pg2spanner.load.DiscardLoad.Batch b : batches) {
      byLevel.computeIfAbsent(b.level(), k -> new ArrayList<>()).add(b.mutations());
      rowsTotal += b.mutations().size();
      bytes += b.bytes();
    }
    com.google.cloud.spanner.Dialect dialect = plan.target().spannerDialect().isPostgres()
        ? com.google.cloud.spanner.Dialect.POSTGRESQL
        : com.google.cloud.spanner.Dialect.GOOGLE_STANDARD_SQL;
    java.util.concurrent.atomic.LongAdder commitNanos = new java.util.concurrent.atomic.LongAdder();
    double seconds;
    try (LocalEmulator emulator = LocalEmulator.start(binaries)) {
      SpannerTarget target = SpannerTarget.parse(TARGET, emulator.hostPort());
      try (Spanner spanner = SpannerConnector.open(target)) {
        EmulatorProvisioner.ensureExists(spanner, target, dialect);
        spanner.getDatabaseAdminClient().updateDatabaseDdl(target.instance(), target.database(), tables, null)
            .get(2, TimeUnit.MINUTES);
        DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
            target.database()));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
          long start = System.nanoTime();
          for (List<List<Mutation>> level : byLevel.values()) {
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
              futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < level.size(); i = next.getAndIncrement()) {
                  long c0 = System.nanoTime();
                  client.writeAtLeastOnce(level.get(i));
                  commitNanos.add(System.nanoTime() - c0);
                }
              }));
            }
            for (Future<?> f : futures) {
              f.get();
            }
          }
          seconds = (System.nanoTime() - start) / 1e9;
        } finally {
          pool.shutdownNow();
        }
        requireRows(client, batches, rowsTotal, dialect);
      }
    }
    Map<String, Object> r = rate(rowsTotal, bytes, seconds);
    r.put("threads", threads);
    r.put("commits", batches.size());
    r.put("commitUsPerRow", commitNanos.sum() / 1e3 / rowsTotal);
    log(String.format(Locale.ROOT, "   %d thread(s): %,8.0f rows/s, %.1f MB/s, commit time per row (summed over "
        + "threads) %.1f us", threads,
        num(r, "rowsPerS"), num(r, "MBPerS"), num(r, "commitUsPerRow")));
    return r;
  }

  private static String note(long i) {
    String md5 = Long.toHexString(i * 0x9E3779B97F4A7C15L);
    StringBuilder b = new StringBuilder();
    while (b.length() < 200) {
      b.append(md5);
    }
    return b.substring(0, 40 + (int) (i * 37 % 161));
  }

  // ------------------------------------------------------------------------------------------------- CLI children

  private Map<String, Object> plan(Path out) throws Exception {
    Child c = cli("plan", List.of(), List.of("plan", "--source", SERVER + DB + "?user=postgres", "--out",
        out.toString(), "--low-write-threshold", "0"));
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("wallS", c.seconds);
    return r;
  }

  private Map<String, Object> migrate(Path planDir, String runner, String tag) throws Exception {
    return migrate(planDir, runner, tag, List.of());
  }

  /** {@code migrate} with {@code extra} arguments (e.g. {@code --flink-master}) after the common ones. */
  private Map<String, Object> migrate(Path planDir, String runner, String tag, List<String> extra)
      throws Exception {
    Path gc = work.resolve("gc-" + tag + ".log");
    List<String> args = new ArrayList<>(List.of("migrate", "--plan", planDir.resolve("plan.yaml").toString(),
        "--source", SERVER + DB + "?user=postgres", "--target", TARGET, "--runner", runner, "--run-dir",
        work.resolve("run-" + tag).toString(), "--progress-interval", "30", "--emulator"));
    args.addAll(extra);
    Child c = cli("migrate-" + tag, List.of("-Xlog:gc:file=" + gc), args);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("runner", runner);
    r.put("wallS", c.seconds);
    Matcher m = Pattern.compile("Migrated (\\d+) rows in ([\\d.]+) s").matcher(c.output);
    if (m.find()) {
      r.put("rows", Long.parseLong(m.group(1)));
      r.put("migrateS", Double.parseDouble(m.group(2)));
    }
    m = Pattern.compile("Loaded ([\\d,]+) rows \\(([\\d.]+) MB\\) into \\d+ tables in ([\\d.]+) s \\(([\\d,]+) rows/s\\)"
        + ".*?Worker time: read ([\\d.]+) s, batch ([\\d.]+) s, write ([\\d.]+) s, wait ([\\d.]+) s").matcher(c.output);
    if (m.find()) {
      r.put("loadRows", Long.parseLong(m.group(1).replace(",", "")));
      r.put("loadMB", Double.parseDouble(m.group(2)));
      r.put("loadS", Double.parseDouble(m.group(3)));
      r.put("loadRowsPerS", Double.parseDouble(m.group(4).replace(",", "")));
      r.put("workerTimeS", Map.of("read", Double.parseDouble(m.group(5)), "batch", Double.parseDouble(m.group(6)),
          "write", Double.parseDouble(m.group(7)), "wait", Double.parseDouble(m.group(8))));
    }
    m = Pattern.compile("loaded (\\d+) rows \\((\\d+) read, (\\d+) dead-lettered\\) in ([\\d.]+) s").matcher(c.output);
    if (m.find()) {
      long loaded = Long.parseLong(m.group(1));
      double s = Double.parseDouble(m.group(4));
      r.put("loadRows", loaded);
      r.put("loadS", s);
      r.put("loadRowsPerS", loaded / Math.max(1e-3, s));
    }
    m = Pattern.compile("into \\d+ tables in [\\d.]+ s \\([\\d,]+ rows/s\\), ([\\d,]+) commits").matcher(c.output);
    if (m.find()) {
      // Printed with thousands separators ("1,234 commits").
      r.put("commits", Long.parseLong(m.group(1).replace(",", "")));
    }
    // The Beam runner's split from the job's metrics: read, batch and write (its commits) in LoadPiece;
    // "other" (DirectRunner only) is threads x wall minus those, derived rather than measured.
    m = Pattern.compile("Worker time: read ([\\d.]+) s, batch ([\\d.]+) s, write ([\\d.]+) s \\(([\\d,]+) commits"
        + "[^)]*\\)(?:, other ([\\d.]+) s \\((\\d+) threads)?").matcher(c.output);
    if (m.find()) {
      Map<String, Object> split = new LinkedHashMap<>();
      split.put("read", Double.parseDouble(m.group(1)));
      split.put("batch", Double.parseDouble(m.group(2)));
      split.put("write", Double.parseDouble(m.group(3)));
      if (m.group(5) != null) {
        split.put("otherDerived", Double.parseDouble(m.group(5)));
        r.put("threads", Integer.parseInt(m.group(6)));
      }
      r.put("workerTimeS", split);
      r.put("commits", Long.parseLong(m.group(4).replace(",", "")));
    }
    r.putAll(heap(gc));
    if (c.exit != 0) {
      r.put("exitCode", c.exit);
      log("   migrate exited with " + c.exit + "; output in " + c.log);
    }
    return r;
  }

  /** Peak used heap (before a collection) and the largest live heap (after one), from -Xlog:gc. */
  private static Map<String, Object> heap(Path gcLog) throws IOException {
    long peak = 0;
    long live = 0;
    long committed = 0;
    int collections = 0;
    if (Files.exists(gcLog)) {
      Matcher m = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)").matcher(Files.readString(gcLog));
      while (m.find()) {
        collections++;
        peak = Math.max(peak, Long.parseLong(m.group(1)));
        live = Math.max(live, Long.parseLong(m.group(2)));
        committed = Math.max(committed, Long.parseLong(m.group(3)));
      }
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("heapPeakUsedMB", peak);
    r.put("heapMaxLiveAfterGcMB", live);
    r.put("heapMaxCommittedMB", committed);
    r.put("gcCount", collections);
    return r;
  }

  private Map<String, Object> planCatalog() throws Exception {
    long start = System.nanoTime();
    Path log = work.resolve("plan-catalog.log");
    Process p = new ProcessBuilder(repo.resolve("bench/plan-catalog.sh").toString(), "--tables", "1000")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    int exit = p.waitFor();
    double s = (System.nanoTime() - start) / 1e9;
    String out = Files.readString(log);
    Map<String, Object> r = new LinkedHashMap<>();
    Matcher m = Pattern.compile("plan on (\\d+) tables: ([\\d.]+) s wall").matcher(out);
    if (m.find()) {
      r.put("tables", Integer.parseInt(m.group(1)));
      r.put("planWallS", Double.parseDouble(m.group(2)));
    }
    r.put("scriptWallS", s);
    if (exit != 0) {
      r.put("exitCode", exit);
      log("   plan-catalog.sh exited with " + exit + "; output in " + log);
    }
    return r;
  }

  private record Child(String output, double seconds, int exit, Path log) { }

  private Child cli(String name, List<String> jvm, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add("dev.pg2spanner.cli.Pg2Spanner");
    cmd.addAll(args);
    Path log = work.resolve(name + ".log");
    long start = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    int exit = p.waitFor();
    double s = (System.nanoTime() - start) / 1e9;
    String out = Files.readString(log, StandardCharsets.UTF_8);
    for (String line : out.split("\n")) {
      if (line.startsWith("Loaded") || line.startsWith("loaded") || line.startsWith("Worker time")
          || line.startsWith("Migrated")
          || line.contains("rror")) {
        log("   " + line);
      }
    }
    return new Child(out, s, exit, log);
  }

  // ------------------------------------------------------------------------------------------------------- skew

  private static List<Map<String, Object>> writeSkew(Path reportJson) throws IOException {
    List<Map<String, Object>> skew = new ArrayList<>();
    JsonNode report = new ObjectMapper().readTree(reportJson.toFile());
    Map<String, String> parents = new LinkedHashMap<>();
    for (JsonNode t : report.path("tables")) {
      parents.put(t.path("source").asText(), t.path("interleaveParent").isNull() ? null
          : t.path("interleaveParent").asText());
    }
    for (JsonNode f : report.path("findings")) {
      JsonNode ws = f.path("evidence").path("writeSkew");
      if (!"HOTSPOT_KEY".equals(f.path("code").asText()) || ws.isMissingNode()) {
        continue;
      }
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("table", f.path("table").asText());
      r.put("column", f.path("column").asText());
      r.put("ranges", ws.path("ranges").asInt());
      r.put("sampledKeys", ws.path("sampledKeys").asInt());
      r.put("before", ws.path("sourceKey").asDouble());
      r.put("after", ws.path("plannedKey").asDouble());
      skew.add(r);
    }
    log("   interleaving: " + parents);
    return skew;
  }

  // ------------------------------------------------------------------------------------------------------ output

  private void tabulate(Map<String, Object> source, Map<String, Object> target, double ceiling,
      Map<String, Object> inProcess, Map<String, Object> direct, Map<String, Object> second,
      Map<String, Object> plan) {
    row("source ceiling: COPY binary to null", fmt(num(source, "rowsPerS")), mb(num(source, "MBPerS")),
        sec(num(source, "seconds")), "-", "-");
    targetRow(target);
    @SuppressWarnings("unchecked")
    Map<String, Object> planShaped = (Map<String, Object>) results.get("planShapedCeiling");
    planShapedRows(planShaped, num(target, "rowsPerS"));
    row("plan (benchmark tables, JVM start incl.)", "-", "-", sec(num(plan, "wallS")), "-", "-");
    @SuppressWarnings("unchecked")
    Map<String, Object> discard = (Map<String, Object>) results.get("discard");
    @SuppressWarnings("unchecked")
    Map<String, Object> source2 = (Map<String, Object>) results.get("sourceCeiling2");
    row("source ceiling: COPY binary to null, 2 connections", fmt(num(source2, "rowsPerS")),
        mb(num(source2, "MBPerS")), sec(num(source2, "seconds")), "-", "-");
    discardRows(discard, num(source, "rowsPerS"), num(source2, "rowsPerS"));
    @SuppressWarnings("unchecked")
    Map<String, Object> beamDiscard = (Map<String, Object>) results.get("beamDiscard");
    beamDiscardRows(beamDiscard, num(source2, "rowsPerS"));
    loadRows("migrate in-process, load phase", inProcess, ceiling);
    double planCeiling = Math.min(num(source, "rowsPerS"), planShapedBest(planShaped));
    loadRows("migrate in-process, load phase (x min(source, plan-shaped ceiling))", inProcess, planCeiling);
    row("migrate in-process, end to end", fmt(num(inProcess, "rows") / num(inProcess, "migrateS")), "-",
        sec(num(inProcess, "migrateS")), heapCell(inProcess),
        ratio(num(inProcess, "rows") / num(inProcess, "migrateS") / ceiling));
    row("migrate in-process, child JVM wall (JVM, emulator start/stop incl.)", "-", "-",
        sec(num(inProcess, "wallS")), "-", "-");
    loadRows("migrate --runner direct, load phase", direct, ceiling);
    loadRows("migrate --runner direct, load phase (x min(source, plan-shaped ceiling))", direct, planCeiling);
    row("migrate --runner direct, end to end", fmt(num(direct, "rows") / num(direct, "migrateS")), "-",
        sec(num(direct, "migrateS")), heapCell(direct),
        ratio(num(direct, "rows") / num(direct, "migrateS") / ceiling));
    loadRows("migrate in-process, load, " + second.get("rows") + " rows", second, ceiling);
    Object cat = ((Map<?, ?>) results.get("planCatalog1000")).get("planWallS");
    row("plan, synthetic catalog of 1,000 tables", "-", "-", cat == null ? "failed" : cat + " s", "-", "-");
    @SuppressWarnings("unchecked")
    Map<String, Object> live = (Map<String, Object>) results.get("live");
    if (live != null && !live.containsKey("error")) {
      for (String kind : List.of("applySingleRow", "applyBatched")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> a = (Map<String, Object>) live.get(kind);
        row("live apply, " + (kind.equals("applySingleRow") ? "single-row" : "500-row") + " transactions (changes/s,"
            + " median of " + ((List<?>) a.get("drains")).size() + " drains; x plan-shaped ceiling just before each, "
            + "median)", fmt(num(a, "medianChangesPerS")), "-", "-", "-",
            ratio(num(a, "medianRatioOfPlanShapedCeiling")));
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> steady = (Map<String, Object>) live.get("steady");
      row("live lag at " + steady.get("transactionsPerS") + " tx/s (" + steady.get("changesPerS")
          + " changes/s) for " + steady.get("seconds") + " s: median / max", "-", "-",
          steady.get("lagSecondsMedian") + " s / " + steady.get("lagSecondsMax") + " s", "-", "-");
      row("live cutover (writes stopped)", "-", "-", sec(num(live, "cutoverS")), "-", "-");
    }
  }

  private void targetRow(Map<String, Object> target) {
    row(String.format(Locale.ROOT, "target ceiling: emulator, batch %s x %s threads (plain table; commit time per "
        + "row, summed over threads, %.1f us)", target.get("batch"), target.get("threads"),
        num(target, "commitUsPerRow")),
        fmt(num(target, "rowsPerS")), mb(num(target, "MBPerS")), sec(num(target, "seconds")), "-", "-");
  }

  /** The plan-shaped ceiling's best rate over its thread counts (the stored generated columns as planned). */
  private static double planShapedBest(Map<String, Object> planShaped) {
    double best = Double.NaN;
    for (String t : List.of("1t", "2t")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> r = (Map<String, Object>) planShaped.get(t);
      if (r != null && (Double.isNaN(best) || num(r, "rowsPerS") > best)) {
        best = num(r, "rowsPerS");
      }
    }
    return best;
  }

  /**
   * The plan-shaped ceiling at each thread count (and as a share of the plain-table sweep's best), then with the
   * generated columns plain (or why not).
   */
  private void planShapedRows(Map<String, Object> planShaped, double sweepBest) {
    for (String t : List.of("1t", "2t")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> r = (Map<String, Object>) planShaped.get(t);
      row(String.format(Locale.ROOT, "plan-shaped target ceiling: the loader's %s commits replayed, %s thread(s) "
          + "(commit time per row, summed over threads, %.1f us; %.2f of the sweep's best)", planShaped.get("commits"),
          r.get("threads"), num(r, "commitUsPerRow"), num(r, "rowsPerS") / sweepBest),
          fmt(num(r, "rowsPerS")), mb(num(r, "MBPerS")), sec(num(r, "seconds")), "-", "-");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> plain = (Map<String, Object>) planShaped.get("plainGeneratedColumns");
    if (plain.containsKey("skipped")) {
      row("plan-shaped, generated columns plain: skipped (" + plain.get("skipped") + ")", "-", "-", "-", "-", "-");
      return;
    }
    for (String t : List.of("1t", "2t")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> r = (Map<String, Object>) plain.get(t);
      @SuppressWarnings("unchecked")
      Map<String, Object> asPlanned = (Map<String, Object>) planShaped.get(t);
      row(String.format(Locale.ROOT, "plan-shaped, stored generated column(s) %s made plain, %s thread(s) (commit "
          + "time per row, summed over threads, %.1f us; the rate as planned is %.2f of this)", plain.get("columns"),
          r.get("threads"), num(r, "commitUsPerRow"),
          num(asPlanned, "rowsPerS") / num(r, "rowsPerS")), fmt(num(r, "rowsPerS")), mb(num(r, "MBPerS")),
          sec(num(r, "seconds")), "-", "-");
    }
  }

  private void loadRows(String name, Map<String, Object> r, double ceiling) {
    double rate = num(r, "loadRowsPerS");
    String mbs = r.containsKey("loadMB") ? mb(num(r, "loadMB") / num(r, "loadS")) : "-";
    row(name, fmt(rate), mbs, sec(num(r, "loadS")), heapCell(r), ratio(rate / ceiling));
  }

  private static String heapCell(Map<String, Object> r) {
    return r.get("heapPeakUsedMB") + " MB (live " + r.get("heapMaxLiveAfterGcMB") + ")";
  }

  private void row(String... cells) {
    table.add(cells);
  }

  private void print() {
    String[] head = {"measure", "rows/s", "MB/s", "wall", "peak heap (max live after GC)", "x min(a,b)"};
    System.out.println();
    System.out.println("| " + String.join(" | ", head) + " |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (String[] r : table) {
      System.out.println("| " + String.join(" | ", r) + " |");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> in = (Map<String, Object>) results.get("migrateInProcess");
    if (in != null && in.get("workerTimeS") != null) {
      System.out.println();
      System.out.println("in-process worker time (s, summed over workers): " + in.get("workerTimeS")
          + (in.get("commits") != null ? ", " + in.get("commits") + " commits" : ""));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> direct = (Map<String, Object>) results.get("migrateDirect");
    if (direct != null && direct.get("workerTimeS") != null) {
      System.out.println("direct runner worker time (s, Beam metrics; otherDerived = " + direct.get("threads")
          + " threads x wall - the rest): " + direct.get("workerTimeS") + ", " + direct.get("commits") + " commits");
    }
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> skew = (List<Map<String, Object>>) results.get("writeSkew");
    if (skew != null) {
      System.out.println();
      System.out.println("Predicted write skew (share of concurrent inserts on the busiest key range; plan findings):");
      System.out.println("| table | key | ranges | sampled keys | before (source key) | after (planned key) |");
      System.out.println("|---|---|---:|---:|---:|---:|");
      for (Map<String, Object> s : skew) {
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %.1f%% | %.1f%% |%n", s.get("table"), s.get("column"),
            s.get("ranges"), s.get("sampledKeys"), 100 * num(s, "before"), 100 * num(s, "after"));
      }
    }
    if (results.get("heapNote") != null) {
      System.out.println();
      System.out.println("Heap: " + results.get("heapNote"));
    }
  }

  // ------------------------------------------------------------------------------------------------------ helpers

  private static Map<String, Object> rate(long rows, long bytes, double seconds) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("rows", rows);
    r.put("bytes", bytes);
    r.put("seconds", seconds);
    r.put("rowsPerS", rows / seconds);
    r.put("MBPerS", bytes / 1e6 / seconds);
    return r;
  }

  private static double num(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String mb(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String sec(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f s", v);
  }

  private static String ratio(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  static void log(String s) {
    System.out.println("[" + LocalDate.now() + " " + java.time.LocalTime.now().withNano(0) + "] " + s);
    System.out.flush();
  }
}
