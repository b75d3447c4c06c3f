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
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The apply rate of a table without a primary key (issue 30): a keyless table of {@code rows} rows (REPLICA IDENTITY
 * FULL) on a private PostgreSQL with {@code wal_level = logical}, migrated with {@code migrate --live} into a fresh
 * emulator; with migrate stopped the source takes {@value #UPDATES} single-row updates and {@value #DELETES}
 * single-row deletes of loaded rows (each its own transaction, so nothing is found among the applier's own recent
 * writes: every change needs a lookup in Spanner); migrate --live --resume drains them, timed from its first progress
 * line to the first with every change applied. Then cutover, whose exit code says whether the rows found were the
 * right ones. Run with {@code --cp} to measure another build (e.g. the one before the row hash).
 */
final class KeylessBench {

  static final int UPDATES = 15_000;
  static final int DELETES = 5_000;
  private static final String TARGET = "projects/bench/instances/keyless/databases/keyless";

  private final ChildCli cli;
  private final Path work;

  KeylessBench(String classpath, Path work) {
    this.cli = new ChildCli(classpath);
    this.work = work;
  }

  Map<String, Object> run(long rows) throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("rows", rows);
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();
    try (LocalPostgres pg = LocalPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "4",
        "max_wal_senders", "4"));
        LocalEmulator emulator = LocalEmulator.start(binaries)) {
      String url = pg.jdbcUrl("bench_keyless");
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres")); Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE bench_keyless");
      }
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE events (kind text NOT NULL, n bigint NOT NULL, at timestamptz NOT NULL, "
            + "payload text NOT NULL)");
        s.execute("ALTER TABLE events REPLICA IDENTITY FULL");
        s.execute("INSERT INTO events SELECT 'kind ' || (g % 17), g, timestamptz '2026-01-01' + g * interval '1 s', "
            + "md5(g::text) || md5((g + 1)::text) FROM generate_series(1, " + rows + ") g");
        s.execute("ANALYZE");
      }
      Path planDir = work.resolve("keyless-plan");
      cli.start(work, "keyless-plan", List.of("plan", "--source", url, "--out", planDir.toString()))
          .waitFor(5, TimeUnit.MINUTES);
      Path run = work.resolve("keyless-run");
      Path log = work.resolve("keyless-migrate.log");
      List<String> migrateArgs = List.of("migrate", "--plan", planDir.resolve("plan.yaml").toString(), "--source",
          url, "--target", TARGET, "--emulator", emulator.hostPort(), "--run-dir", run.toString(), "--live",
          "--no-verify", "--progress-interval", "1");
      Process migrate = new ProcessBuilder(cli.command(migrateArgs)).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
      try {
        ChildCli.awaitLine(run, migrate, log, l -> "live".equals(l.path("type").asText()), 15);
        migrate.destroy(); // as Ctrl-C stops it: the slot keeps what follows
        migrate.waitFor(2, TimeUnit.MINUTES);
        Bench.log(String.format(Locale.ROOT, "   loaded %,d keyless rows; backlog: %d updates and %d deletes of "
            + "loaded rows, one transaction each", rows, UPDATES, DELETES));
        backlog(url);
        int from = JsonLinesFile.read(run.resolve(RunFiles.PROGRESS)).size();
        List<String> resume = new ArrayList<>(migrateArgs);
        resume.add("--resume");
        migrate = new ProcessBuilder(cli.command(resume)).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        JsonNode first = ChildCli.awaitLiveLine(run, migrate, log, from, l -> true, 20);
        long backlog = UPDATES + DELETES;
        JsonNode drained = ChildCli.awaitLiveLine(run, migrate, log, from,
            l -> l.path("changes").asLong() >= backlog, 20);
        long changes = drained.path("changes").asLong() - first.path("changes").asLong();
        double seconds = java.time.Duration.between(java.time.Instant.parse(first.path("at").asText()),
            java.time.Instant.parse(drained.path("at").asText())).toMillis() / 1e3;
        double rate = changes / Math.max(1e-3, seconds);
        r.put("changes", changes);
        r.put("drainS", ChildCli.round(seconds));
        r.put("changesPerS", ChildCli.round(rate));
        r.put("foundByHash", drained.path("foundByHash").asLong());
        r.put("lookupScans", drained.path("lookupScans").asLong());
        r.put("hashReads", drained.path("hashReads").asLong());
        r.put("rejected", drained.path("rejected").asLong());
        Bench.log(String.format(Locale.ROOT, "     %,d changes applied in %.1f s: %,.1f changes/s (found by hash %d "
            + "in %d index reads, by scan %d, rejected %d)", changes, seconds, rate,
            drained.path("foundByHash").asLong(), drained.path("hashReads").asLong(),
            drained.path("lookupScans").asLong(), drained.path("rejected").asLong()));
        Process cutover = cli.start(work, "keyless-cutover", List.of("cutover", "--run-dir", run.toString()));
        cutover.waitFor(10, TimeUnit.MINUTES);
        r.put("cutoverExit", cutover.exitValue());
        migrate.waitFor(2, TimeUnit.MINUTES);
        Bench.log("     cutover exit " + cutover.exitValue() + " (0: every row verified)");
      } finally {
        migrate.destroyForcibly();
      }
    }
    return r;
  }

  /** The updates, then the deletes, each of its own loaded row and in its own transaction (found by ctid, fast). */
  private static void backlog(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url)) {
      List<String> ctids = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT ctid::text AS tid FROM events ORDER BY n LIMIT "
              + (UPDATES + DELETES))) {
        while (rs.next()) {
          ctids.add(rs.getString("tid"));
        }
      }
      // Spread over the table: every 7th of the first rows would do as well; what counts is one lookup each.
      try (PreparedStatement update = c.prepareStatement("UPDATE events SET payload = payload || '.' "
              + "WHERE ctid = ?::tid");
          PreparedStatement delete = c.prepareStatement("DELETE FROM events WHERE ctid = ?::tid")) {
        for (int i = 0; i < ctids.size(); i++) {
          PreparedStatement ps = i < UPDATES ? update : delete;
          ps.setString(1, ctids.get(i));
          if (ps.executeUpdate() != 1) {
            throw new IllegalStateException("row " + ctids.get(i) + " of events not found on the source");
          }
        }
      }
    }
  }
}
