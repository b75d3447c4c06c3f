package dev.pg2spanner.local;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code bin/flink-cluster}: {@code start [--taskmanagers N] [--slots N] [--restart-attempts N] [--dir DIR]} starts a
 * {@link FlinkSessionCluster} on this JVM's class path and leaves it running; {@code stop [--dir DIR]} ends what a
 * start in that directory started. Exit 0 on success, 1 when the cluster could not be started or stopped, 2 on bad
 * usage.
 */
public final class FlinkClusterMain {

  static final String USAGE = "usage: bin/flink-cluster start [--taskmanagers N] [--slots N] [--restart-attempts N] "
      + "[--dir DIR]\n       bin/flink-cluster stop [--dir DIR]";

  private FlinkClusterMain() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    if (args.length == 0 || !(args[0].equals("start") || args[0].equals("stop"))) {
      System.err.println(USAGE);
      return 2;
    }
    Path dir = Path.of("flink-cluster");
    int taskManagers = FlinkSessionCluster.DEFAULT_TASK_MANAGERS;
    int slots = 1;
    int restartAttempts = 3;
    for (int i = 1; i < args.length; i++) {
      String option = args[i];
      if (i + 1 >= args.length) {
        System.err.println("flink-cluster: " + option + " needs a value\n" + USAGE);
        return 2;
      }
      String value = args[++i];
      try {
        switch (option) {
          case "--dir" -> dir = Path.of(value);
          case "--taskmanagers" -> taskManagers = positive(option, value);
          case "--slots" -> slots = positive(option, value);
          case "--restart-attempts" -> restartAttempts = Integer.parseInt(value);
          default -> {
            System.err.println("flink-cluster: unknown option " + option + "\n" + USAGE);
            return 2;
          }
        }
      } catch (NumberFormatException e) {
        System.err.println("flink-cluster: " + option + " takes a number, was " + value + "\n" + USAGE);
        return 2;
      } catch (IllegalArgumentException e) {
        System.err.println("flink-cluster: " + e.getMessage() + "\n" + USAGE);
        return 2;
      }
      if (!args[0].equals("start") && !option.equals("--dir")) {
        System.err.println("flink-cluster: stop takes only --dir\n" + USAGE);
        return 2;
      }
    }
    dir = dir.toAbsolutePath();
    if (args[0].equals("stop")) {
      List<FlinkSessionCluster.Member> stopped = FlinkSessionCluster.stop(dir);
      if (stopped.isEmpty()) {
        System.out.println("flink-cluster: nothing started from " + dir + " is running");
      }
      for (FlinkSessionCluster.Member m : stopped) {
        System.out.println("flink-cluster: stopped " + m.name() + " (pid " + m.pid() + ")");
      }
      return 0;
    }
    try {
      long start = System.nanoTime();
      FlinkSessionCluster cluster = FlinkSessionCluster.start(dir, System.getProperty("java.class.path"),
          taskManagers, slots, restartAttempts, false, FlinkSessionCluster.DEFAULT_START_TIMEOUT);
      System.err.printf("flink-cluster: a JobManager and %d TaskManager(s) (%d slot(s) each) running in %s, "
          + "started in %.1f s; logs in %s/*/*.log; stop with: bin/flink-cluster stop --dir %s%n", taskManagers,
          slots, dir, (System.nanoTime() - start) / 1e9, dir, dir);
      // The one line on stdout: what --flink-master takes.
      System.out.println(cluster.restAddress());
      return 0;
    } catch (IOException | RuntimeException e) {
      System.err.println("flink-cluster: " + e.getMessage());
      return 1;
    }
  }

  private static int positive(String option, String value) {
    int n = Integer.parseInt(value);
    if (n < 1) {
      throw new IllegalArgumentException(option + " must be at least 1, was " + n);
    }
    return n;
  }
}
