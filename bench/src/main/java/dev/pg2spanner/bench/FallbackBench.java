package dev.pg2spanner.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.local.LocalPostgres;
import dev.pg2spanner.rundir.RunFiles;
import java.math.BigDecimal;
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

/**
 * The reverse apply rate of {@code pg2spanner fallback} (issue 32), as a ratio of the source's own insert ceiling:
 * on a private PostgreSQL ({@code wal_level = logical}) and a fresh emulator, a small table is migrated live and cut
 * over (which creates the change stream); then {@value #ROWS} new rows are written to Spanner (blind writes of
 * {@value #BATCH} rows) and {@code fallback} brings them back. The apply rate is the highest rate fallback reports in
 * its progress lines (changes over the time since its previous line: reading the window, converting, applying,
 * committing; the JVM start excluded). The ceiling is the same rows written into a copy of
 * the table by plain multi-row INSERTs ({@value #BATCH} rows a statement, one transaction per statement, one session).
 * Then {@code cutover --back} (verify included) reports its write stop.
 */
final class FallbackBench {

  static final int ROWS = 50_000;
  static final int BATCH = 500;
  private static final String TARGET = "projects/bench/instances/fallback/databases/fallback";
  private static final Pattern BACK = Pattern.compile("cutover --back done in ([0-9.]+) s");

  private final ChildCli cli;
  private final Path work;

  FallbackBench(String classpath, Path work) {
    this.cli = new ChildCli(classpath);
    this.work = work;
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();
    Path dir = Files.createDirectories(work.resolve("fallback"));
    try (LocalPostgres pg = LocalPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "6",
        "max_wal_senders", "6"));
        LocalEmulator emulator = LocalEmulator.start(binaries)) {
      String url = pg.jdbcUrl("bench_fallback");
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres")); Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE bench_fallback");
      }
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) NOT NULL,"
            + " updated_at timestamptz NOT NULL, note text NOT NULL)");
        s.execute("INSERT INTO accounts SELECT g, 'owner ' || g, g % 10000, now(), md5(g::text) "
            + "FROM generate_series(1, 1000) g");
        s.execute("ANALYZE");
      }
      Path planDir = dir.resolve("plan");
      cli.start(dir, "plan", List.of("plan", "--source", url, "--out", planDir.toString())).waitFor(10, TimeUnit.MINUTES);
      Path run = dir.resolve("run");
      Path log = dir.resolve("migrate.log");
      Process migrate = new ProcessBuilder(cli.command(List.of("migrate", "--plan", planDir.resolve("plan.yaml")
          .toString(), "--source", url, "--target", TARGET, "--emulator", emulator.hostPort(), "--run-dir",
          run.toString(), "--live", "--progress-interval", "1")))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try {
        ChildCli.awaitLine(run, migrate, log, l -> "live".equals(l.path("type").asText()), 10);
        Process cutover = cli.start(dir, "cutover", List.of("cutover", "--run-dir", run.toString()));
        cutover.waitFor(10, TimeUnit.MINUTES);
        r.put("cutoverExit", cutover.exitValue());
        migrate.waitFor(5, TimeUnit.MINUTES);
      } finally {
        migrate.destroyForcibly();
      }

      Bench.log(String.format(Locale.ROOT, "   writing %,d rows to Spanner after cutover", ROWS));
      SpannerOptions options = SpannerOptions.newBuilder().setProjectId("bench").setEmulatorHost(emulator.hostPort())
          .build();
      try (Spanner spanner = options.getService()) {
        DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(TARGET));
        // Whole seconds: the emulator drops a timestamp's fraction in change records (README), which verify would see.
        Timestamp now = Timestamp.ofTimeSecondsAndNanos(Timestamp.now().getSeconds(), 0);
        for (int from = 0; from < ROWS; from += BATCH) {
          List<Mutation> batch = new ArrayList<>();
          for (int i = from; i < Math.min(ROWS, from + BATCH); i++) {
            long id = 1_000_000L + i;
            batch.add(Mutation.newInsertBuilder("accounts").set("id").to(id).set("owner").to("spanner " + id)
                .set("balance").to(new BigDecimal(id % 10000 + ".25")).set("updated_at").to(now)
                .set("note").to(Long.toHexString(id * 2654435761L)).build());
          }
          client.writeAtLeastOnce(batch);
        }
      }

      Bench.log("   fallback: applying them to the source");
      Process fallback = cli.start(dir, "fallback", List.of("fallback", "--run-dir", run.toString(), "--progress-interval",
          "1"));
      try {
        ChildCli.awaitLine(run, fallback, dir.resolve("fallback.log"), l -> "fallback".equals(l.path("type").asText())
            && l.path("changes").asLong() >= ROWS, 30);
      } finally {
        // cutover --back stops it (it finishes its window), as a person would.
        Process back = cli.start(dir, "back", List.of("cutover", "--back", "--run-dir", run.toString()));
        back.waitFor(30, TimeUnit.MINUTES);
        r.put("cutoverBackExit", back.exitValue());
        Matcher m = BACK.matcher(Files.readString(dir.resolve("back.log")));
        if (m.find()) {
          r.put("cutoverBackWriteStopS", Double.parseDouble(m.group(1)));
        }
        fallback.waitFor(2, TimeUnit.MINUTES);
        fallback.destroyForcibly();
      }
      // The rate fallback itself reports for the interval in which it applied them: changes over the time since its
      // previous line (reading the window, converting, applying, committing).
      double applyRate = 0;
      double applyS = 0;
      JsonNode drained = null;
      for (JsonNode l : JsonLinesFile.read(run.resolve(RunFiles.PROGRESS))) {
        if ("fallback".equals(l.path("type").asText()) && l.path("changesPerSecond").asDouble() > applyRate) {
          applyRate = l.path("changesPerSecond").asDouble();
          applyS = ROWS / applyRate;
        }
        if (drained == null && "fallback".equals(l.path("type").asText()) && l.path("changes").asLong() >= ROWS) {
          drained = l;
        }
      }
      // Where the drain's time went: reading the stream vs converting and writing to the source (fallback's own
      // counters, from its first line with every row applied).
      if (drained != null) {
        r.put("streamReadS", drained.path("readSeconds").asDouble());
        r.put("sourceApplyS", drained.path("applySeconds").asDouble());
        r.put("sourceApplyRowsPerS", Math.round(ROWS / Math.max(1e-3, drained.path("applySeconds").asDouble())));
      }
      double ceiling = insertCeiling(url);
      r.put("rows", ROWS);
      r.put("applyS", ChildCli.round(applyS));
      r.put("applyRowsPerS", Math.round(applyRate));
      r.put("sourceInsertRowsPerS", Math.round(ceiling));
      r.put("ratioOfSourceInsertCeiling", ChildCli.round(applyRate / ceiling));
      Bench.log(String.format(Locale.ROOT, "   fallback applied %,d rows in %.1f s = %,.0f rows/s = %.2f of the "
          + "source's insert ceiling (%,.0f rows/s); cutover --back exit %s, write stop %s s; of the drain, reading the "
          + "stream took %s s and applying to the source %s s (%s rows/s)", ROWS, applyS, applyRate,
          applyRate / ceiling, ceiling, r.get("cutoverBackExit"), r.get("cutoverBackWriteStopS"), r.get("streamReadS"),
          r.get("sourceApplyS"), r.get("sourceApplyRowsPerS")));
    }
    return r;
  }

  /** The same rows into a copy of the table by plain multi-row INSERTs, rows/s. */
  private static double insertCeiling(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE accounts_ceiling (LIKE accounts INCLUDING ALL)");
      StringBuilder sql = new StringBuilder("INSERT INTO accounts_ceiling VALUES ");
      for (int i = 0; i < BATCH; i++) {
        sql.append(i == 0 ? "" : ", ").append("(?, ?, ?::numeric, ?::timestamptz, ?)");
      }
      String now = java.time.Instant.now().toString();
      long start = System.nanoTime();
      try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
        for (int from = 0; from < ROWS; from += BATCH) {
          int p = 1;
          for (int i = from; i < from + BATCH; i++) {
            long id = 1_000_000L + i;
            ps.setLong(p++, id);
            ps.setString(p++, "spanner " + id);
            ps.setString(p++, id % 10000 + ".25");
            ps.setString(p++, now);
            ps.setString(p++, Long.toHexString(id * 2654435761L));
          }
          ps.executeUpdate();
        }
      }
      return ROWS / ((System.nanoTime() - start) / 1e9);
    }
  }
}
