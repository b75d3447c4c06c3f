package dev.pg2spanner.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.rundir.RunFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The built pg2spanner CLI run as a child JVM by the benchmarks, and their shared figures helpers. */
final class ChildCli {

  private final String classpath;

  ChildCli(String classpath) {
    this.classpath = classpath;
  }

  /** The command line that runs pg2spanner with {@code args} in a JVM of its own. */
  List<String> command(List<String> args) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", classpath, "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(args);
    return command;
  }

  /** Starts pg2spanner with {@code args}, its output to {@code dir/name.log}. */
  Process start(Path dir, String name, List<String> args) throws Exception {
    return new ProcessBuilder(command(args)).redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile()).start();
  }

  /**
   * Waits until the run directory's progress.jsonl holds a line {@code wanted} accepts; fails when {@code process}
   * ends first (quoting its log) or after {@code minutes}.
   */
  static void awaitLine(Path run, Process process, Path log, Predicate<JsonNode> wanted, int minutes)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
    while (System.nanoTime() < deadline) {
      for (JsonNode l : JsonLinesFile.read(run.resolve(RunFiles.PROGRESS))) {
        if (wanted.test(l)) {
          return;
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("the process ended (exit " + process.exitValue() + "): "
            + Files.readString(log));
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("no expected progress line within " + minutes + " minutes; see " + log);
  }

  /**
   * The first {@code "type": "live"} progress line at or after line {@code from} that {@code wanted} accepts; fails
   * when {@code migrate} ends first (quoting its log) or after {@code minutes}.
   */
  static JsonNode awaitLiveLine(Path run, Process migrate, Path log, int from, Predicate<JsonNode> wanted,
      int minutes) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
    while (System.nanoTime() < deadline) {
      List<JsonNode> lines = JsonLinesFile.read(run.resolve(RunFiles.PROGRESS));
      for (JsonNode l : lines.subList(Math.min(from, lines.size()), lines.size())) {
        if ("live".equals(l.path("type").asText()) && wanted.test(l)) {
          return l;
        }
      }
      if (!migrate.isAlive()) {
        throw new IllegalStateException("migrate --live ended (exit " + migrate.exitValue() + "): "
            + Files.readString(log));
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("no expected progress line from migrate --live within " + minutes
        + " minutes; see " + log);
  }

  /** Two decimals, for the figures. */
  static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
