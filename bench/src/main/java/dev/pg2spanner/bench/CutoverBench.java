package dev.pg2spanner.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.TimestampBound;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.local.LocalPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;

/**
 * Cutover's write stop at several database sizes (issue 30): for each size, on a fresh private PostgreSQL
 * ({@code wal_level = logical}) and a fresh emulator, {@code migrate --live} loads the table, streams a steady
 * workload (an insert and an update of another row per transaction, {@value #STEADY_TPS} transactions/s for
 * {@value #STEADY_SECONDS} s) while it verifies at consistent cuts; then the writes stop and {@code pg2spanner cutover}
 * runs at once. The write stop is cutover's own figure ("Cutover done in X s": catch-up, final snapshot, comparison,
 * sequences, drops) and the command's wall time (which adds a JVM start). For comparison, in the same run: a full
 * {@code pg2spanner verify} of the migrated database (what cutover's write stop was before: every row read on both
 * sides), as rows/s and as a ratio of its two read ceilings measured here — the source's {@code COPY ... TO STDOUT}
 * rate and the target's plain read rate of the same table.
 */
final class CutoverBench {

  static final int STEADY_TPS = 200;
  static final int STEADY_SECONDS = 30;
  private static final String TARGET = "projects/bench/instances/cutover/databases/cutover";
  private static final Pattern DONE = Pattern.compile("Cutover done in ([0-9.]+) s \\(caught up after ([0-9.]+) s, "
      + "compared after ([0-9.]+) s: (.*?)\\): every table");

  private final ChildCli cli;
  private final Path work;

  CutoverBench(String classpath, Path work) {
    this.cli = new ChildCli(classpath);
    this.work = work;
  }

  Map<String, Object> run(List<Long> sizes) throws Exception {
    Map<String, Object> all = new LinkedHashMap<>();
    for (long rows : sizes) {
      Bench.log(String.format(Locale.ROOT, "cutover at %,d rows", rows));
      all.put(Long.toString(rows), one(rows));
    }
    return all;
  }

  private Map<String, Object> one(long rows) throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();
    Path dir = Files.createDirectories(work.resolve("cutover-" + rows));
    try (LocalPostgres pg = LocalPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "6",
        "max_wal_senders", "6"));
        LocalEmulator emulator = LocalEmulator.start(binaries)) {
      String url = pg.jdbcUrl("bench_cutover");
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres")); Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE bench_cutover");
      }
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) NOT NULL,"
            + " updated_at timestamptz NOT NULL, note text NOT NULL)");
        s.execute("INSERT INTO accounts SELECT g, 'owner ' || g, g % 10000, now(), md5(g::text) "
            + "FROM generate_series(1, " + rows + ") g");
        s.execute("CREATE TABLE branches (id int PRIMARY KEY, name text NOT NULL)");
        s.execute("INSERT INTO branches SELECT g, 'branch ' || g FROM generate_series(1, 100) g");
        s.execute("ANALYZE");
      }
      Path planDir = dir.resolve("plan");
      cli.start(dir, "plan", List.of("plan", "--source", url, "--out", planDir.toString())).waitFor(10, TimeUnit.MINUTES);
      Path run = dir.resolve("run");
      Path log = dir.resolve("migrate.log");
      long loadStart = System.nanoTime();
      Process migrate = new ProcessBuilder(cli.command(List.of("migrate", "--plan", planDir.resolve("plan.yaml")
          .toString(), "--source", url, "--target", TARGET, "--emulator", emulator.hostPort(), "--run-dir",
          run.toString(), "--live", "--progress-interval", "1", "--workers", "2")))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try {
        ChildCli.awaitLine(run, migrate, log, l -> "live".equals(l.path("type").asText()), 60);
        r.put("loadAndVerifyS", ChildCli.round((System.nanoTime() - loadStart) / 1e9));
        Bench.log(String.format(Locale.ROOT, "   streaming after %.0f s; steady workload %d tx/s for %d s",
            (System.nanoTime() - loadStart) / 1e9, STEADY_TPS, STEADY_SECONDS));
        long transactions = steady(url, rows);
        r.put("workloadTransactions", transactions);
        // The writes are stopped now: cutover at once.
        long start = System.nanoTime();
        Process cutover = cli.start(dir, "cutover", List.of("cutover", "--run-dir", run.toString()));
        cutover.waitFor(30, TimeUnit.MINUTES);
        double wall = (System.nanoTime() - start) / 1e9;
        migrate.waitFor(5, TimeUnit.MINUTES);
        String out = Files.readString(dir.resolve("cutover.log")) + Files.readString(log);
        Matcher m = DONE.matcher(out);
        r.put("cutoverExit", cutover.exitValue());
        r.put("cutoverWallS", ChildCli.round(wall));
        if (m.find()) {
          r.put("writeStopS", Double.parseDouble(m.group(1)));
          r.put("caughtUpS", Double.parseDouble(m.group(2)));
          r.put("comparedAfterS", Double.parseDouble(m.group(3)));
          r.put("compared", m.group(4));
        }
        Bench.log(String.format(Locale.ROOT, "   cutover exit %d: write stop %s s (wall %.1f s with the JVM start): %s",
            cutover.exitValue(), r.get("writeStopS"), wall, r.get("compared")));
      } finally {
        migrate.destroyForcibly();
      }

      // What the old cutover did with the writes stopped: a full verify, against its read ceilings.
      long total = rows + transactions(r);
      long verifyStart = System.nanoTime();
      Process verify = cli.start(dir, "verify", List.of("verify", "--plan", planDir.resolve("plan.yaml").toString(),
          "--source", url, "--target", TARGET, "--emulator", emulator.hostPort()));
      verify.waitFor(60, TimeUnit.MINUTES);
      double verifyS = (System.nanoTime() - verifyStart) / 1e9;
      double sourceCeiling = copyCeiling(url);
      double targetCeiling = readCeiling(emulator.hostPort(), total);
      double verifyRate = total / verifyS;
      r.put("fullVerifyS", ChildCli.round(verifyS));
      r.put("fullVerifyExit", verify.exitValue());
      r.put("fullVerifyRowsPerS", Math.round(verifyRate));
      r.put("sourceCopyRowsPerS", Math.round(sourceCeiling));
      r.put("targetReadRowsPerS", Math.round(targetCeiling));
      r.put("fullVerifyRatioOfReadCeiling",
          ChildCli.round(verifyRate / Math.min(sourceCeiling, targetCeiling)));
      Bench.log(String.format(Locale.ROOT, "   full verify (the old write stop): %.1f s, %,.0f rows/s = %.2f of "
          + "min(source COPY %,.0f, target read %,.0f rows/s)", verifyS, verifyRate,
          verifyRate / Math.min(sourceCeiling, targetCeiling), sourceCeiling, targetCeiling));
    }
    return r;
  }

  private static long transactions(Map<String, Object> r) {
    Object t = r.get("workloadTransactions");
    return t == null ? 0 : ((Number) t).longValue();
  }

  /** The steady workload; returns the transactions written (each inserts a row). */
  private static long steady(String url, long seedRows) throws Exception {
    long interval = 1_000_000_000L / STEADY_TPS;
    long start = System.nanoTime();
    long next = start;
    long n = 0;
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement insert = c.prepareStatement("INSERT INTO accounts VALUES (?, 'steady', 1, now(), 'x')");
        PreparedStatement update = c.prepareStatement("UPDATE accounts SET balance = balance + 1, updated_at = now()"
            + " WHERE id = ?")) {
      c.setAutoCommit(false);
      while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(STEADY_SECONDS)) {
        insert.setLong(1, seedRows + 1 + n);
        insert.executeUpdate();
        update.setLong(1, 1 + (n * 104729) % seedRows);
        update.executeUpdate();
        c.commit();
        n++;
        next += interval;
        long sleep = next - System.nanoTime();
        if (sleep > 0) {
          Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
        }
      }
    }
    return n;
  }

  /** The source's read ceiling for the table: COPY (binary) to nowhere, rows/s. */
  private static double copyCeiling(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url)) {
      long start = System.nanoTime();
      long rows = c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY accounts TO STDOUT (FORMAT binary)",
          java.io.OutputStream.nullOutputStream());
      return rows / ((System.nanoTime() - start) / 1e9);
    }
  }

  /** The target's read ceiling for the table: every row through the read API, rows/s. */
  private static double readCeiling(String emulatorHost, long expected) {
    SpannerOptions options = SpannerOptions.newBuilder().setProjectId("bench").setEmulatorHost(emulatorHost).build();
    try (Spanner spanner = options.getService()) {
      DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(TARGET));
      long start = System.nanoTime();
      long rows = 0;
      try (ResultSet rs = client.singleUse(TimestampBound.strong()).read("accounts", KeySet.all(),
          List.of("id", "owner", "balance", "updated_at", "note"))) {
        while (rs.next()) {
          rows++;
        }
      }
      return Math.max(rows, 1) / ((System.nanoTime() - start) / 1e9);
    }
  }
}
