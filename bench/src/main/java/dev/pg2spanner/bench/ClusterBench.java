package dev.pg2spanner.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.local.FlinkSessionCluster;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code bench/run.sh --only cluster} (issue 34): a Flink 1.19 session cluster of separate JVMs started by
 * {@link FlinkSessionCluster} (the class behind {@code bin/flink-cluster}), 2 TaskManagers with 1 slot each, and
 * the figures of one job on it: the time the launcher took beyond the job's own run (submission: translating the
 * pipeline, shipping the jars, fetching the result), the job's own time from its REST record, and the CPU the
 * TaskManager processes used meanwhile (from /proc), hence the cores used and rows/s per core used.
 *
 * <p>The cluster's class path is the bench's minus pg2spanner's own jars and Beam's, as a user's own Flink cluster
 * would have it (as FlinkClusterIT starts it): the TaskManagers run the job with the jars the launcher ships.
 */
final class ClusterBench implements AutoCloseable {

  static final int TASK_MANAGERS = 2;
  static final int SLOTS = 1;
  /** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ, 100 on Linux). */
  private static final double TICKS = 100;

  private final FlinkSessionCluster cluster;

  private ClusterBench(FlinkSessionCluster cluster) {
    this.cluster = cluster;
  }

  /** Starts the cluster under {@code work} (its processes end with this JVM too: watchParent), no restarts. */
  static ClusterBench start(Path work) throws IOException {
    Path dir = work.resolve("flink-cluster");
    return new ClusterBench(FlinkSessionCluster.start(dir, flinkOnlyClasspath(), TASK_MANAGERS, SLOTS, 0, true,
        Duration.ofMinutes(4)));
  }

  /** This JVM's class path without pg2spanner's jars and directories and without Beam's jars. */
  static String flinkOnlyClasspath() {
    List<String> kept = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry);
      String name = p.getFileName() == null ? entry : p.getFileName().toString();
      if (!Files.isDirectory(p) && !name.startsWith("pg2spanner-") && !name.endsWith("-SNAPSHOT.jar")
          && !name.startsWith("beam-")) {
        kept.add(entry);
      }
    }
    String cp = String.join(File.pathSeparator, kept);
    if (!cp.contains("flink-runtime")) {
      throw new IllegalStateException("flink-runtime is not on the bench's class path (cli/target/lib): rebuild "
          + "with ./mvnw -q package -DskipTests");
    }
    return cp;
  }

  String master() {
    return cluster.restAddress();
  }

  /**
   * Runs {@code job} (which submits exactly one Flink job to this cluster and returns its figures, among them
   * its rows under {@code rowsKey} and the launcher's wall seconds under {@code wallKey}), and adds the job's own figures: jobS (the
   * REST record's duration), submissionS (wall minus jobS), tmCpuS, coresUsed (tmCpuS / jobS), rowsPerSPerCore.
   */
  Map<String, Object> measure(String rowsKey, String wallKey, Callable<Map<String, Object>> job) throws Exception {
    Set<String> before = new HashSet<>();
    for (JsonNode j : cluster.rest("/jobs/overview").path("jobs")) {
      before.add(j.path("jid").asText());
    }
    double cpu0 = taskManagerCpuSeconds();
    ThreadCpu threads = new ThreadCpu(cluster.taskManagers());
    Map<String, Object> r;
    try {
      r = new LinkedHashMap<>(job.call());
    } finally {
      threads.stop();
    }
    double cpu = taskManagerCpuSeconds() - cpu0;
    JsonNode record = null;
    for (JsonNode j : cluster.rest("/jobs/overview").path("jobs")) {
      if (!before.contains(j.path("jid").asText())) {
        if (record != null) {
          throw new IllegalStateException("more than one new job on the cluster: the figures would be mixed");
        }
        record = j;
      }
    }
    if (record == null) {
      throw new IllegalStateException("no job reached the cluster at " + master() + "; see the run's log");
    }
    JsonNode detail = cluster.rest("/jobs/" + record.path("jid").asText());
    double jobS = record.path("duration").asLong() / 1000.0;
    if (!(r.get(wallKey) instanceof Number wallS) || !(r.get(rowsKey) instanceof Number rowCount)) {
      throw new IllegalStateException("the job on the cluster printed no " + rowsKey + "/" + wallKey + ": " + r);
    }
    double wall = wallS.doubleValue();
    long rows = rowCount.longValue();
    r.put("jobState", record.path("state").asText());
    r.put("jobS", jobS);
    r.put("jobTimestamps", detail.path("timestamps"));
    r.put("submissionS", wall - jobS);
    r.put("tmCpuS", cpu);
    r.put("coresUsed", cpu / jobS);
    r.put("jobRowsPerS", rows / jobS);
    r.put("rowsPerSPerCore", rows / cpu);
    Map<String, Double> split = threads.split();
    r.put("tmCpuByThread", split);
    r.put("rowsPerSPerTaskCore", rows / split.get("tasks"));
    return r;
  }

  /**
   * Where the TaskManagers' CPU goes during a job, by thread: samples every thread of each TaskManager JVM twice a
   * second (a thread that ends keeps its last figure, as the job's task threads do when their tasks finish) and splits
   * what each used meanwhile into the JIT compilers, the job's task threads (Flink names them after their operators),
   * and the rest (Flink's runtime, RPC, metrics, GC and the VM). The last sample may miss up to half a second of a
   * thread's time; the process total ({@link #taskManagerCpuSeconds}) is the exact sum.
   */
  private static final class ThreadCpu {
    private final List<FlinkSessionCluster.Member> taskManagers;
    /** pid/tid -> [ticks at first sight, ticks last seen]; name by the same key. */
    private final Map<String, long[]> ticks = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, String> names = new java.util.concurrent.ConcurrentHashMap<>();
    private final Thread sampler;
    private volatile boolean running = true;

    ThreadCpu(List<FlinkSessionCluster.Member> taskManagers) {
      this.taskManagers = taskManagers;
      sample(); // the baseline: what threads alive before the job had used
      sampler = new Thread(() -> {
        while (running) {
          try {
            Thread.sleep(500);
          } catch (InterruptedException e) {
            return;
          }
          sample();
        }
      }, "bench-thread-cpu");
      sampler.setDaemon(true);
      sampler.start();
    }

    void stop() throws InterruptedException {
      running = false;
      sampler.join();
      sample();
    }

    private void sample() {
      for (FlinkSessionCluster.Member tm : taskManagers) {
        Path tasks = Path.of("/proc", Long.toString(tm.pid()), "task");
        try (java.util.stream.Stream<Path> list = Files.list(tasks)) {
          list.forEach(t -> {
            try {
              String stat = Files.readString(t.resolve("stat"));
              String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
              long used = Long.parseLong(f[11]) + Long.parseLong(f[12]);
              String key = tm.pid() + "/" + t.getFileName();
              ticks.computeIfAbsent(key, k -> new long[] {used, used})[1] = used;
              names.putIfAbsent(key, Files.readString(t.resolve("comm")).trim());
            } catch (IOException | RuntimeException gone) {
              // the thread ended between the listing and the read
            }
          });
        } catch (IOException gone) {
          // the TaskManager is gone; its total is still measured by taskManagerCpuSeconds
        }
      }
    }

    /** Seconds used during the job: jit, tasks, other. */
    Map<String, Double> split() {
      Map<String, Double> out = new LinkedHashMap<>();
      out.put("jit", 0.0);
      out.put("tasks", 0.0);
      out.put("other", 0.0);
      ticks.forEach((key, t) -> {
        String name = names.getOrDefault(key, "");
        String kind = name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler") ? "jit"
            : TASK_THREAD.matcher(name).lookingAt() ? "tasks" : "other";
        out.merge(kind, (t[1] - t[0]) / TICKS, Double::sum);
      });
      return out;
    }
  }

  /** Flink's names of a batch job's task threads (its operators: "CHAIN DataSource ...", "GroupReduce (...)"). */
  private static final java.util.regex.Pattern TASK_THREAD = java.util.regex.Pattern.compile(
      "CHAIN |DataSource|DataSink|GroupReduce|MapPartition|FlatMap|Map |Filter|Reduce|Combine|Partition|Sort|Join");

  /** utime + stime of the TaskManager JVMs, in seconds. */
  private double taskManagerCpuSeconds() throws IOException {
    double total = 0;
    for (FlinkSessionCluster.Member tm : cluster.taskManagers()) {
      String stat = Files.readString(Path.of("/proc", Long.toString(tm.pid()), "stat"));
      // Fields after the command name (in parentheses, which may hold spaces): state is field 3, utime 14, stime 15.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      total += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
    }
    return total;
  }

  @Override
  public void close() {
    cluster.close();
  }
}
