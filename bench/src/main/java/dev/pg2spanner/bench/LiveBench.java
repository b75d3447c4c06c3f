package dev.pg2spanner.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.local.LocalPostgres;
import dev.pg2spanner.rundir.RunFiles;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The live-migration figures (issue 14): on a private PostgreSQL with {@code wal_level = logical} and a fresh
 * emulator, {@code migrate --live} streams while this class writes to the source.
 *
 * <ol>
 *   <li><b>Apply rate</b>: with migrate stopped, the source takes a backlog (single-row transactions, then
 *       transactions of 500 rows); migrate --live --resume drains it, and its rate from its first progress line to
 *       the first without lag is the figure, also as a ratio of the emulator's write ceiling measured earlier in the
 *       same run.</li>
 *   <li><b>Lag under a steady workload</b>: {@value #STEADY_TPS} transactions per second (each an insert and an
 *       update of another row) for {@value #STEADY_SECONDS} s; the lag (bytes and seconds) the progress log reports
 *       each second, median and maximum.</li>
 *   <li><b>Cutover</b>: the wall time of {@code pg2spanner cutover} with the writes stopped.</li>
 * </ol>
 */
final class LiveBench {

  static final int STEADY_TPS = 200;
  static final int STEADY_SECONDS = 60;
  private static final int SEED_ROWS = 100_000;
  private static final String TARGET = "projects/bench/instances/live/databases/live";

  private final ChildCli cli;
  private final Path work;

  LiveBench(String classpath, Path work) {
    this.cli = new ChildCli(classpath);
    this.work = work;
  }

  /**
   * Runs the three measurements; each drain's ratio is against the plan-shaped ceiling measured just before it.
   */
  Map<String, Object> run() throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();
    try (LocalPostgres pg = LocalPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "4",
        "max_wal_senders", "4"));
        LocalEmulator emulator = LocalEmulator.start(binaries)) {
      String url = pg.jdbcUrl("bench_live");
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres")); Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE bench_live");
      }
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE accounts (id bigserial PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) NOT NULL,"
            + " updated_at timestamptz NOT NULL, note text NOT NULL)");
        s.execute("INSERT INTO accounts (owner, balance, updated_at, note) SELECT 'owner ' || g, g % 10000, now(), "
            + "repeat(md5(g::text), 3) FROM generate_series(1, " + SEED_ROWS + ") g");
        s.execute("ANALYZE");
      }
      Path planDir = work.resolve("live-plan");
      cli.start(work, "live-plan", List.of("plan", "--source", url, "--out", planDir.toString(), "--low-write-threshold",
          "0")).waitFor(5, TimeUnit.MINUTES);
      Path run = work.resolve("live-run");
      Path log = work.resolve("live-migrate.log");
      Bench.log("   plan-shaped apply ceiling: the applier's commits (4,000 whole accounts rows and a position row each)"
          + " replayed on this emulator");
      try (Replay replay = new Replay(emulator, planDir)) {
        double best = Math.max(replay.rowsPerS(15), replay.rowsPerS(15));
        Bench.log(String.format(Locale.ROOT, "     %,.0f rows/s (best of two rounds of 15 commits)", best));
        r.put("planShapedApplyCeiling", Map.of("rowsPerS", Math.round(best)));
        List<String> migrateArgs = List.of("migrate", "--plan", planDir.resolve("plan.yaml").toString(), "--source",
            url, "--target", TARGET, "--emulator", emulator.hostPort(), "--run-dir", run.toString(), "--live",
            "--no-verify", "--progress-interval", "1");
        Process[] migrate = {new ProcessBuilder(cli.command(migrateArgs)).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start()};
        try {
          awaitLiveLine(run, migrate[0], log, 0);
          // Backlogs of 300,000 changes: drains of 10 s and more, so the progress lines' 1 s resolution is a few per
          // cent of the figure (80,000 drained in ~3 s, where one line more or less moved the ratio by a third).
          // Each shape is drained DRAINS times, each drain against the ceiling just before it, and the figure is the
          // median ratio: one drain's ratio moved by up to 0.4 between runs (2026-11-28), as the emulator's own rate
          // does between two identical replays minutes apart.
          List<Map<String, Object>> single = new ArrayList<>();
          List<Map<String, Object>> batched = new ArrayList<>();
          for (int d = 1; d <= DRAINS; d++) {
            Bench.log("   drain " + d + " of " + DRAINS + ": 300,000 single-row transactions written while migrate "
                + "is stopped");
            single.add(backlog(url, run, migrate, migrateArgs, log, 300_000, 1, replay));
            Bench.log("   drain " + d + " of " + DRAINS + ": 600 transactions of 500 rows");
            batched.add(backlog(url, run, migrate, migrateArgs, log, 600, 500, replay));
          }
          r.put("applySingleRow", medianOf(single, "single-row"));
          r.put("applyBatched", medianOf(batched, "500-row"));
          Bench.log("   steady: " + STEADY_TPS + " transactions/s for " + STEADY_SECONDS + " s");
          r.put("steady", steady(url, run));
          long start = System.nanoTime();
          Process cutover = cli.start(work, "live-cutover", List.of("cutover", "--run-dir", run.toString()));
          cutover.waitFor(10, TimeUnit.MINUTES);
          r.put("cutoverS", ChildCli.round((System.nanoTime() - start) / 1e9));
          r.put("cutoverExit", cutover.exitValue());
          migrate[0].waitFor(2, TimeUnit.MINUTES);
        } finally {
          migrate[0].destroyForcibly();
        }
      }
    }
    return r;
  }

  /**
   * The applier's own rate: migrate is stopped (as Ctrl-C stops it), the source takes the burst (a backlog the slot
   * keeps), migrate --live --resume starts, and the backlog's drain is timed from its first progress line to the
   * first with no lag — so neither the writers nor the JVM's start count, only applying. With
   * {@code PG2SPANNER_BENCH_JFR=DIR} the resumed process records a JFR profile there.
   */
  private Map<String, Object> backlog(String url, Path run, Process[] migrate, List<String> migrateArgs, Path log,
      int transactions, int rowsEach, Replay replay) throws Exception {
    migrate[0].destroy();
    migrate[0].waitFor(2, TimeUnit.MINUTES);
    long start = System.nanoTime();
    // Four writers, so the backlog is written quickly.
    int writers = 4;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
    List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      futures.add(pool.submit(() -> {
        try (Connection c = DriverManager.getConnection(url)) {
          c.setAutoCommit(rowsEach == 1);
          try (PreparedStatement ps = c.prepareStatement("UPDATE accounts SET balance = balance + 1, "
              + "updated_at = now() WHERE id = ?")) {
            // Each writer its own quarter of the rows: no two transactions wait on each other's row locks.
            long share = SEED_ROWS / writers;
            long k = 0;
            for (int t = writer; t < transactions; t += writers) {
              for (int i = 0; i < rowsEach; i++) {
                ps.setLong(1, 1 + writer * share + (k++ * 7919) % share);
                if (rowsEach == 1) {
                  ps.executeUpdate();
                } else {
                  ps.addBatch();
                }
              }
              if (rowsEach > 1) {
                ps.executeBatch();
                c.commit();
              }
            }
          }
        }
        return null;
      }));
    }
    for (java.util.concurrent.Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    double written = (System.nanoTime() - start) / 1e9;
    // The ceiling is measured just before the drain, on the same emulator in the same state (its rate drifts by a
    // third between runs and as it grows), with migrate stopped and the source quiet: the drain's ratio is against
    // it. It is measured again just after, for the record only: right after a drain the emulator replays at about
    // 0.55 of that (2026-11-28), and a mean of the two would flatter the ratio.
    double before = replay.rowsPerS(BRACKET_COMMITS);
    int from = JsonLinesFile.read(run.resolve(RunFiles.PROGRESS)).size();
    List<String> resume = new ArrayList<>(migrateArgs);
    resume.add("--resume");
    List<String> command = cli.command(resume);
    String jfr = System.getenv("PG2SPANNER_BENCH_JFR");
    if (jfr != null) {
      command.add(1, "-XX:StartFlightRecording=filename=" + jfr + "/apply-" + rowsEach + ".jfr,settings=profile");
    }
    migrate[0] = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(java.lang.ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    JsonNode first = awaitLiveLine(run, migrate[0], log, from);
    // Drained when this process has applied every change of the backlog (or no lag is left): after the last commit
    // the lag can read a few bytes (the commit's end against the next WAL record's 8-byte-aligned start) for seconds
    // until an idle round confirms it, which is not applying.
    long backlog = (long) transactions * rowsEach;
    JsonNode drained = awaitLiveLine(run, migrate[0], log, from, l -> l.path("changes").asLong() >= backlog
        || l.path("lagBytes").asLong() == 0);
    long changes = drained.path("changes").asLong() - first.path("changes").asLong();
    double seconds = java.time.Duration.between(java.time.Instant.parse(first.path("at").asText()),
        java.time.Instant.parse(drained.path("at").asText())).toMillis() / 1e3;
    double rate = changes / Math.max(1e-3, seconds);
    double after = replay.rowsPerS(BRACKET_COMMITS);
    double ceiling = before;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("transactions", transactions);
    m.put("changes", changes);
    m.put("backlogWrittenS", ChildCli.round(written));
    m.put("drainS", ChildCli.round(seconds));
    m.put("changesPerS", Math.round(rate));
    m.put("ceilingBeforeRowsPerS", Math.round(before));
    m.put("ceilingAfterRowsPerS", Math.round(after));
    m.put("ratioOfPlanShapedCeiling", ChildCli.round(rate / ceiling));
    Bench.log(String.format(Locale.ROOT, "     backlog of %,d transactions written in %.1f s; %,d changes applied "
        + "in %.1f s: %,.0f changes/s (%.2f of the plan-shaped apply ceiling of %,.0f rows/s just "
        + "before the drain; %,.0f just after)", transactions, written, changes, seconds, rate, rate / ceiling, before,
        after));
    return m;
  }

  /** Drains of each shape; the figure is their median ratio. */
  static final int DRAINS = Integer.parseInt(System.getenv().getOrDefault("PG2SPANNER_BENCH_DRAINS", "3"));

  /** The drains' figures, and the median of their ratios (the figure), logged. */
  private static Map<String, Object> medianOf(List<Map<String, Object>> drains, String shape) {
    List<Double> ratios = new ArrayList<>();
    List<Double> rates = new ArrayList<>();
    for (Map<String, Object> d : drains) {
      ratios.add(((Number) d.get("ratioOfPlanShapedCeiling")).doubleValue());
      rates.add(((Number) d.get("changesPerS")).doubleValue());
    }
    int n = ratios.size();
    double median = median(ratios);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("medianRatioOfPlanShapedCeiling", ChildCli.round(median));
    m.put("medianChangesPerS", Math.round(median(rates)));
    m.put("ratios", ratios);
    m.put("drains", drains);
    Bench.log(String.format(Locale.ROOT, "   %s apply: median %.2f of the plan-shaped ceiling over %d drains %s",
        shape, median, n, ratios));
    return m;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** Commits per bracketing ceiling measurement (120,000 rows: several seconds, like the drains). */
  private static final int BRACKET_COMMITS = 30;

  /**
   * The emulator's rate for the commits the applier makes here: insert-or-update of whole {@code accounts} rows (the
   * planned table, from the plan's V1), 4,000 to a commit with one position row written with the commit timestamp,
   * one commit at a time, into a database of their own on the same emulator.
   */
  private static final class Replay implements AutoCloseable {
    private final com.google.cloud.spanner.Spanner spanner;
    private final com.google.cloud.spanner.DatabaseClient client;
    private final java.util.Random random = new java.util.Random(7);
    private long position;

    Replay(LocalEmulator emulator, Path planDir) throws Exception {
      String target = "projects/bench/instances/live/databases/ceiling";
      dev.pg2spanner.targetdb.SpannerTarget t = dev.pg2spanner.targetdb.SpannerTarget.parse(target,
          emulator.hostPort());
      List<String> ddl = new ArrayList<>(dev.pg2spanner.ddl.DdlPrinter.migrations(dev.pg2spanner.plan.PlanFiles.read(
          planDir.resolve("plan.yaml"))).get(0).statements());
      ddl.add("CREATE TABLE pg2spanner_live_position (slot_name STRING(MAX) NOT NULL, end_lsn INT64 NOT NULL, "
          + "lsn STRING(MAX) NOT NULL, commit_time TIMESTAMP, partial_lsn INT64, applied_at TIMESTAMP NOT NULL "
          + "OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (slot_name)");
      spanner = dev.pg2spanner.targetdb.SpannerConnector.open(t);
      dev.pg2spanner.targetdb.EmulatorProvisioner.ensureExists(spanner, t);
      spanner.getDatabaseAdminClient().updateDatabaseDdl(t.instance(), t.database(), ddl, null)
          .get(2, TimeUnit.MINUTES);
      client = spanner.getDatabaseClient(com.google.cloud.spanner.DatabaseId.of(t.project(), t.instance(),
          t.database()));
    }

    /** Replays {@code commits} commits of 4,000 rows, one at a time: rows/s. */
    double rowsPerS(int commits) {
      long rows = 0;
      long start = System.nanoTime();
      for (int commit = 0; commit < commits; commit++) {
        List<com.google.cloud.spanner.Mutation> m = new ArrayList<>(4_001);
        for (int i = 0; i < 4_000; i++) {
          long id = 1 + random.nextInt(SEED_ROWS);
          m.add(com.google.cloud.spanner.Mutation.newInsertOrUpdateBuilder("accounts").set("id").to(id)
              .set("owner").to("owner " + id).set("balance").to(new java.math.BigDecimal(id % 10000))
              .set("updated_at").to(com.google.cloud.Timestamp.now()).set("note").to("x".repeat(96)).build());
        }
        m.add(com.google.cloud.spanner.Mutation.newInsertOrUpdateBuilder("pg2spanner_live_position")
            .set("slot_name").to("bench").set("end_lsn").to(position++).set("lsn").to("0/0")
            .set("applied_at").to(com.google.cloud.spanner.Value.COMMIT_TIMESTAMP).build());
        client.writeAtLeastOnce(m);
        rows += 4_000;
      }
      return rows / ((System.nanoTime() - start) / 1e9);
    }

    @Override
    public void close() {
      spanner.close();
    }
  }

  private Map<String, Object> steady(String url, Path run) throws Exception {
    int from = JsonLinesFile.read(run.resolve(RunFiles.PROGRESS)).size();
    long interval = 1_000_000_000L / STEADY_TPS;
    long start = System.nanoTime();
    long next = start;
    long id = 1;
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement insert = c.prepareStatement("INSERT INTO accounts (owner, balance, updated_at, note) "
            + "VALUES ('steady', 1, now(), 'steady row')");
        PreparedStatement update = c.prepareStatement("UPDATE accounts SET balance = balance + 1, updated_at = now()"
            + " WHERE id = ?")) {
      c.setAutoCommit(false);
      while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(STEADY_SECONDS)) {
        insert.executeUpdate();
        update.setLong(1, 1 + (id++ * 104729) % SEED_ROWS);
        update.executeUpdate();
        c.commit();
        next += interval;
        long sleep = next - System.nanoTime();
        if (sleep > 0) {
          Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
        }
      }
    }
    List<JsonNode> lines = JsonLinesFile.read(run.resolve(RunFiles.PROGRESS));
    List<Double> lagSeconds = new ArrayList<>();
    List<Long> lagBytes = new ArrayList<>();
    for (JsonNode l : lines.subList(Math.min(from, lines.size()), lines.size())) {
      if ("live".equals(l.path("type").asText())) {
        lagSeconds.add(l.path("lagSeconds").asDouble());
        lagBytes.add(l.path("lagBytes").asLong());
      }
    }
    Collections.sort(lagSeconds);
    Collections.sort(lagBytes);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("transactionsPerS", STEADY_TPS);
    m.put("changesPerS", 2 * STEADY_TPS);
    m.put("seconds", STEADY_SECONDS);
    m.put("samples", lagSeconds.size());
    if (!lagSeconds.isEmpty()) {
      m.put("lagSecondsMedian", lagSeconds.get(lagSeconds.size() / 2));
      m.put("lagSecondsMax", lagSeconds.get(lagSeconds.size() - 1));
      m.put("lagBytesMedian", lagBytes.get(lagBytes.size() / 2));
      m.put("lagBytesMax", lagBytes.get(lagBytes.size() - 1));
      Bench.log(String.format(Locale.ROOT, "     lag median %.1f s / %,d B, max %.1f s / %,d B over %d samples",
          lagSeconds.get(lagSeconds.size() / 2), lagBytes.get(lagBytes.size() / 2),
          lagSeconds.get(lagSeconds.size() - 1), lagBytes.get(lagBytes.size() - 1), lagSeconds.size()));
    }
    return m;
  }

  private static long lastChanges(Path run) {
    long changes = 0;
    for (JsonNode l : JsonLinesFile.read(run.resolve(RunFiles.PROGRESS))) {
      if ("live".equals(l.path("type").asText())) {
        changes = l.path("changes").asLong();
      }
    }
    return changes;
  }

  private static JsonNode awaitLiveLine(Path run, Process migrate, Path log, int from) throws Exception {
    return awaitLiveLine(run, migrate, log, from, l -> true);
  }

  private static JsonNode awaitLiveLine(Path run, Process migrate, Path log, int from,
      java.util.function.Predicate<JsonNode> wanted) throws Exception {
    return ChildCli.awaitLiveLine(run, migrate, log, from, wanted, 10);
  }
}
