package dev.pg2spanner.bench;

import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The schema phases on many tables (issue 16): a generated catalog of N tables, each with two secondary indexes, a
 * foreign key to the previous table, a CHECK and 20 rows, migrated onto a fresh emulator. Prints the time of phase 1
 * (tables) and of the post-load phases (indexes, foreign keys, checks), taken from migrate's step lines as they
 * appear, and the emulator process's peak resident memory ({@code VmHWM} of {@code emulator_main}).
 *
 * <p>Arguments: TABLES WORK_DIR CLASSPATH_OF_PG2SPANNER (another build's classpath measures that build: "before").
 */
final class SchemaBench {

  private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
  private static final String DB = "p2s_bench_schema";
  private static final String TARGET = "projects/bench/instances/schema/databases/many";

  private SchemaBench() {}

  public static void main(String[] args) throws Exception {
    int tables = Integer.parseInt(args[0]);
    Path work = Path.of(args[1]);
    String classpath = args[2];
    Files.createDirectories(work);
    generate(tables);
    Path planDir = work.resolve("plan");
    run(classpath, List.of("plan", "--source", SERVER + DB + "?user=postgres", "--out", planDir.toString()),
        work.resolve("plan.log"), null);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("tables", tables);
    try (LocalEmulator emulator = LocalEmulator.start(EmulatorBinaries.locate(System.getenv()).orElseThrow())) {
      Map<String, Double> steps = new LinkedHashMap<>();
      long start = System.nanoTime();
      run(classpath, List.of("migrate", "--plan", planDir.resolve("plan.yaml").toString(), "--source",
          SERVER + DB + "?user=postgres", "--target", TARGET, "--emulator", emulator.hostPort(), "--run-dir",
          work.resolve("run").toString(), "--no-verify"), work.resolve("migrate.log"), steps);
      r.put("migrateS", round((System.nanoTime() - start) / 1e9));
      r.put("tablesPhaseS", round(steps.getOrDefault("2/4", 0.0) - steps.getOrDefault("1/4", 0.0)));
      r.put("postLoadPhasesS", round(steps.getOrDefault("4/4", 0.0) - steps.getOrDefault("3/4", 0.0)));
      r.put("emulatorPeakRssMb", peakRssMb(emulator.pid()));
    }
    try (Connection c = DriverManager.getConnection(SERVER + "postgres?user=postgres");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
    }
    System.out.println(String.format(Locale.ROOT, "schema phases on %d tables (%d indexes, %d foreign keys, %d "
        + "checks): V1 %.1f s, V2-V4 %.1f s, migrate %.1f s, emulator peak RSS %d MB", tables, 2 * tables,
        tables - 1, tables, r.get("tablesPhaseS"), r.get("postLoadPhasesS"), r.get("migrateS"),
        r.get("emulatorPeakRssMb")));
    System.out.println(r);
  }

  private static void generate(int tables) throws Exception {
    try (Connection c = DriverManager.getConnection(SERVER + "postgres?user=postgres");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
      s.execute("CREATE DATABASE " + DB);
    }
    try (Connection c = DriverManager.getConnection(SERVER + DB + "?user=postgres");
        Statement s = c.createStatement()) {
      s.execute("DO $$ BEGIN FOR i IN 1.." + tables + " LOOP "
          + "EXECUTE format('CREATE TABLE t%s (id bigint PRIMARY KEY, name text NOT NULL CHECK (name <> %L), "
          + "code int NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), parent_id bigint %s)', i, '', "
          + "CASE WHEN i > 1 THEN format('REFERENCES t%s', i - 1) ELSE '' END); "
          + "EXECUTE format('CREATE INDEX t%s_name_idx ON t%s (name)', i, i); "
          + "EXECUTE format('CREATE INDEX t%s_code_idx ON t%s (code, created_at)', i, i); "
          + "EXECUTE format('INSERT INTO t%s (id, name, code, parent_id) SELECT g, ''n'' || g, g %% 7, "
          + "CASE WHEN %s > 1 THEN g END FROM generate_series(1, 20) g', i, i); "
          + "END LOOP; END $$");
      s.execute("ANALYZE");
    }
  }

  /** Runs pg2spanner; when {@code steps} is given, records when each "== k/4" step line appeared (seconds). */
  private static void run(String classpath, List<String> args, Path log, Map<String, Double> steps)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", classpath, "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    long start = System.nanoTime();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        lines.add(line);
        if (steps != null && line.startsWith("== ")) {
          steps.put(line.substring(3, 6), (System.nanoTime() - start) / 1e9);
        }
      }
    }
    Files.write(log, lines);
    if (!p.waitFor(2, TimeUnit.HOURS) || p.exitValue() != 0) {
      throw new IllegalStateException(args.get(0) + " failed; see " + log);
    }
  }

  private static long peakRssMb(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return -1;
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
