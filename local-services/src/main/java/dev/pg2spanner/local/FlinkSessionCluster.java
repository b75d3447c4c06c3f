package dev.pg2spanner.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Flink 1.19 session cluster of separate JVMs on this machine: one JobManager
 * ({@code StandaloneSessionClusterEntrypoint}) and N TaskManagers ({@code TaskManagerRunner}), each started with
 * {@code java -cp CLASSPATH MAIN --configDir DIR}. Flink's packaged distribution is not served by the registries
 * this project uses; its entry points live in {@code flink-runtime}, which the CLI already carries through Beam's
 * Flink runner, so the CLI's own class path ({@code cli/target/pg2spanner-cli.jar} and {@code lib/*}) starts a
 * cluster. Its TaskManagers therefore hold the pipeline's classes (pg2spanner, Beam, the Spanner client, pgjdbc)
 * on their system class path.
 *
 * <p>Everything lives under one directory: {@code jobmanager/} and {@code taskmanager-N/}, each with its
 * {@code conf/flink-conf.yaml}, its {@code logback.xml}, its log ({@code NAME.log}) and its pid file
 * ({@code NAME.pid}). {@link #stop(Path)} ends exactly the processes those pid files name (after checking each is
 * still the JVM started for that directory), so a cluster started by {@code bin/flink-cluster start} can be stopped
 * by a later {@code bin/flink-cluster stop}. Every port is on 127.0.0.1: the JobManager's REST and RPC ports are
 * chosen free, the rest are left to the operating system.
 *
 * <p>Memory is small on purpose (the test machines have 2 cores shared by several engineers): about 0.5 GB for the
 * JobManager, about 0.85 GB per TaskManager (320 MB heap, 64 MB managed memory, 64 MB network buffers, 128 MB framework off-heap memory of which the batch shuffle reads with 64 MB).
 */
public final class FlinkSessionCluster implements AutoCloseable {

  static final String HOST = "127.0.0.1";
  static final String JOB_MANAGER_MAIN = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
  static final String TASK_MANAGER_MAIN = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
  /** Default TaskManager count of {@code bin/flink-cluster start}. */
  public static final int DEFAULT_TASK_MANAGERS = 2;
  /** How long {@link #start} waits for the JobManager's REST API and every TaskManager's registration. */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The options Flink's own scripts give a Java 17 JVM ({@code env.java.opts.all} of Flink 1.19's default
   * configuration): Kryo and Flink's serialisers reach into these JDK packages.
   */
  static final List<String> JAVA17_OPENS = List.of("-XX:+IgnoreUnrecognizedVMOptions",
      "--add-exports=java.base/sun.net.util=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
      "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.text=ALL-UNNAMED",
      "--add-opens=java.base/java.time=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

  /** One process of the cluster: its name ({@code jobmanager}, {@code taskmanager-1} ...), pid and log. */
  public record Member(String name, long pid, Path log) {}

  private final Path dir;
  private final int restPort;
  private final Member jobManager;
  private final List<Member> taskManagers;

  private FlinkSessionCluster(Path dir, int restPort, Member jobManager, List<Member> taskManagers) {
    this.dir = dir;
    this.restPort = restPort;
    this.jobManager = jobManager;
    this.taskManagers = List.copyOf(taskManagers);
  }

  /**
   * Starts a JobManager and {@code taskManagers} TaskManagers and waits until every TaskManager has registered.
   *
   * @param dir the cluster's directory (created; must not hold a running cluster)
   * @param classpath the class path of every process (it must hold flink-runtime and, for pg2spanner's jobs, the
   *     pipeline's classes)
   * @param taskManagers how many TaskManagers, at least 1
   * @param slotsPerTaskManager task slots per TaskManager, at least 1
   * @param restartAttempts the fixed-delay restart strategy's attempts for every job (0: a failed task fails the job)
   * @param watchParent whether the processes stop when this JVM ends (tests); false leaves them running
   *     ({@code bin/flink-cluster start})
   * @param timeout how long to wait for the JobManager and the TaskManagers' registration
   * @throws IOException when a process cannot be started, exits while starting, or the TaskManagers do not register
   *     in time; the processes already started are stopped and the message names the log to read
   */
  public static FlinkSessionCluster start(Path dir, String classpath, int taskManagers, int slotsPerTaskManager,
      int restartAttempts, boolean watchParent, Duration timeout) throws IOException {
    if (taskManagers < 1 || slotsPerTaskManager < 1 || restartAttempts < 0) {
      throw new IllegalArgumentException("taskManagers and slotsPerTaskManager must be at least 1, restartAttempts "
          + "at least 0");
    }
    Files.createDirectories(dir);
    Optional<Member> running = runningMembers(dir).stream().findFirst();
    if (running.isPresent()) {
      throw new IOException("a Flink cluster started from " + dir + " is still running (" + running.get().name()
          + ", pid " + running.get().pid() + "): stop it first (bin/flink-cluster stop --dir " + dir + ")");
    }
    int restPort = freePort();
    int rpcPort = freePort();
    String config = configuration(restPort, rpcPort, slotsPerTaskManager, restartAttempts, dir.resolve("tmp"));
    List<Process> started = new ArrayList<>();
    try {
      Member jm = launch(dir, "jobmanager", JOB_MANAGER_MAIN, classpath, config,
          List.of("-Xms384m", "-Xmx384m", "-XX:MaxMetaspaceSize=192m"), watchParent, started);
      List<Member> tms = new ArrayList<>();
      for (int i = 1; i <= taskManagers; i++) {
        // Heap = framework heap + task heap; direct = framework off-heap + task off-heap + network (Flink's scripts
        // compute the same from the memory options below).
        tms.add(launch(dir, "taskmanager-" + i, TASK_MANAGER_MAIN, classpath, config + "taskmanager.resource-id: "
            + "taskmanager-" + i + "\n", List.of("-Xms320m", "-Xmx320m", "-XX:MaxDirectMemorySize=192m",
            "-XX:MaxMetaspaceSize=384m"), watchParent, started));
      }
      FlinkSessionCluster cluster = new FlinkSessionCluster(dir, restPort, jm, tms);
      cluster.awaitTaskManagers(started, timeout);
      return cluster;
    } catch (IOException | RuntimeException e) {
      for (Process p : started) {
        stopProcess(p.toHandle());
      }
      deletePidFiles(dir);
      throw e;
    }
  }

  /** The JobManager's REST address, {@code host:port}: what {@code --flink-master} takes. */
  public String restAddress() {
    return HOST + ":" + restPort;
  }

  /** The cluster's directory. */
  public Path dir() {
    return dir;
  }

  /** The JobManager process. */
  public Member jobManager() {
    return jobManager;
  }

  /** The TaskManager processes, in start order; their Flink resource ids are their names. */
  public List<Member> taskManagers() {
    return taskManagers;
  }

  /**
   * GET on the JobManager's REST API.
   *
   * @param path e.g. {@code /jobs/overview}
   * @throws IOException when it does not answer 200 within 10 s
   */
  public JsonNode rest(String path) throws IOException {
    return get(restPort, path, Duration.ofSeconds(10));
  }

  /** Stops the processes this cluster started (SIGTERM, then SIGKILL after 20 s); safe to call more than once. */
  @Override
  public void close() {
    stop(dir);
  }

  /**
   * Stops the cluster whose pid files are in {@code dir}: only processes that are still the JVMs started for this
   * directory (their command line names it), each waited for; then removes the pid files.
   *
   * @return the members that were running and were stopped
   */
  public static List<Member> stop(Path dir) {
    List<Member> members = runningMembers(dir);
    // TaskManagers first: a JobManager that goes first makes them retry and log for a while.
    List<Member> ordered = new ArrayList<>(members);
    ordered.sort((a, b) -> Boolean.compare(a.name().equals("jobmanager"), b.name().equals("jobmanager")));
    for (Member m : ordered) {
      ProcessHandle.of(m.pid()).ifPresent(FlinkSessionCluster::stopProcess);
    }
    deletePidFiles(dir);
    return members;
  }

  /** The members whose pid file is in {@code dir} and whose process is alive and was started for {@code dir}. */
  static List<Member> runningMembers(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<Member> members = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path pidFile : files.filter(p -> p.getFileName().toString().endsWith(".pid")).sorted().toList()) {
        String name = pidFile.getFileName().toString().replaceFirst("\\.pid$", "");
        long pid;
        try {
          pid = Long.parseLong(Files.readString(pidFile).trim());
        } catch (NumberFormatException e) {
          continue;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        String marker = dir.resolve(name).resolve("conf").toString();
        boolean ours = handle.isPresent() && handle.get().isAlive()
            && handle.get().info().commandLine().map(c -> c.contains(marker)).orElse(false);
        if (ours) {
          members.add(new Member(name, pid, dir.resolve(name).resolve(name + ".log")));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the pid files in " + dir, e);
    }
    return members;
  }

  /** The flink-conf.yaml shared by every member (each TaskManager adds its resource id). */
  static String configuration(int restPort, int rpcPort, int slots, int restartAttempts, Path tmp) {
    StringBuilder c = new StringBuilder();
    c.append("jobmanager.rpc.address: ").append(HOST).append('\n');
    c.append("jobmanager.rpc.port: ").append(rpcPort).append('\n');
    c.append("jobmanager.bind-host: ").append(HOST).append('\n');
    c.append("rest.address: ").append(HOST).append('\n');
    c.append("rest.bind-address: ").append(HOST).append('\n');
    c.append("rest.port: ").append(restPort).append('\n');
    c.append("taskmanager.host: ").append(HOST).append('\n');
    c.append("taskmanager.bind-host: ").append(HOST).append('\n');
    c.append("taskmanager.numberOfTaskSlots: ").append(slots).append('\n');
    // A job's tasks spread over the TaskManagers instead of filling the first one's slots.
    c.append("cluster.evenly-spread-out-slots: true\n");
    // Flink's start scripts pass this and the memory sizes as dynamic properties; TaskManagerRunner needs them set.
    c.append("taskmanager.cpu.cores: ").append(slots).append(".0\n");
    c.append("io.tmp.dirs: ").append(tmp).append('\n');
    c.append("jobmanager.memory.process.size: 640m\n");
    c.append("taskmanager.memory.framework.heap.size: 64m\n");
    c.append("taskmanager.memory.task.heap.size: 256m\n");
    c.append("taskmanager.memory.managed.size: 64m\n");
    // Flink's default: it holds the 64 MB a batch job's sort-merge shuffle reads with
    // (taskmanager.memory.framework.off-heap.batch-shuffle.size); with 64 MB here reading a blocking shuffle
    // timed out ("fierce contention of the batch shuffle read memory").
    c.append("taskmanager.memory.framework.off-heap.size: 128m\n");
    c.append("taskmanager.memory.task.off-heap.size: 0m\n");
    c.append("taskmanager.memory.network.min: 64m\n");
    c.append("taskmanager.memory.network.max: 64m\n");
    // A batch job's blocking result partitions each take at least taskmanager.network.sort-shuffle.min-buffers
    // (512) buffers: with 32 KB buffers 48 MB did not hold the pipeline's partitions ("Insufficient number of
    // network buffers: required 512, but only 501 available"). Smaller buffers give more of them in the same memory.
    c.append("taskmanager.memory.segment-size: 8kb\n");
    c.append("taskmanager.network.sort-shuffle.min-buffers: 128\n");
    c.append("taskmanager.memory.jvm-metaspace.size: 384m\n");
    c.append("taskmanager.memory.jvm-overhead.min: 64m\n");
    c.append("taskmanager.memory.jvm-overhead.max: 64m\n");
    // A TaskManager killed mid-job stays registered until its heartbeat times out (default 50 s), and a restarted
    // job is deployed to it again and fails at once ("the recipient is unreachable"): seen with 3 attempts 5 s apart,
    // all spent within 20 s. So the JobManager drops a silent TaskManager after 10 s, and the restart delay (10 s)
    // times the attempts outlasts that.
    c.append("heartbeat.interval: 2000\n");
    c.append("heartbeat.timeout: 10000\n");
    if (restartAttempts > 0) {
      c.append("restart-strategy.type: fixed-delay\n");
      c.append("restart-strategy.fixed-delay.attempts: ").append(restartAttempts).append('\n');
      c.append("restart-strategy.fixed-delay.delay: 10 s\n");
    } else {
      c.append("restart-strategy.type: none\n");
    }
    return c.toString();
  }

  private static Member launch(Path dir, String name, String mainClass, String classpath, String config,
      List<String> memory, boolean watchParent, List<Process> started) throws IOException {
    Path home = dir.resolve(name);
    Path conf = home.resolve("conf");
    Files.createDirectories(conf);
    Files.createDirectories(dir.resolve("tmp"));
    Files.writeString(conf.resolve("flink-conf.yaml"), config, StandardCharsets.UTF_8);
    Path logback = conf.resolve("logback.xml");
    Files.writeString(logback, LOGBACK, StandardCharsets.UTF_8);
    Path log = home.resolve(name + ".log");
    List<String> java = new ArrayList<>();
    java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    java.addAll(memory);
    java.add("-XX:+UseSerialGC");
    java.addAll(JAVA17_OPENS);
    java.add("-Dlogback.configurationFile=" + logback);
    java.add("-cp");
    java.add(classpath);
    java.add(mainClass);
    java.add("--configDir");
    java.add(conf.toString());
    List<String> command = new ArrayList<>();
    if (watchParent) {
      // Through the emulator's watcher shell: a test JVM killed with SIGKILL runs no shutdown hook.
      command.addAll(List.of("/bin/sh", "-c", LocalEmulator.WATCH_PARENT, "pg2spanner-flink",
          String.valueOf(ProcessHandle.current().pid())));
    }
    command.addAll(java);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    started.add(process);
    long pid = watchParent ? javaPid(process) : process.pid();
    Files.writeString(dir.resolve(name + ".pid"), pid + "\n", StandardCharsets.UTF_8);
    return new Member(name, pid, log);
  }

  /** The java process the watcher shell started (its only child that runs java). */
  private static long javaPid(Process shell) throws IOException {
    Instant deadline = Instant.now().plusSeconds(10);
    while (Instant.now().isBefore(deadline)) {
      Optional<ProcessHandle> java = shell.children()
          .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst();
      if (java.isPresent()) {
        return java.get().pid();
      }
      sleep(20);
    }
    throw new IOException("the Flink process did not start within 10 s (watcher shell pid " + shell.pid() + ")");
  }

  private void awaitTaskManagers(List<Process> started, Duration timeout) throws IOException {
    Instant deadline = Instant.now().plus(timeout);
    int registered = 0;
    while (Instant.now().isBefore(deadline)) {
      for (Member m : members()) {
        if (ProcessHandle.of(m.pid()).map(h -> !h.isAlive()).orElse(true)) {
          throw new IOException("the Flink " + m.name() + " (pid " + m.pid() + ") exited while the cluster was "
              + "starting; see " + m.log());
        }
      }
      try {
        registered = get(restPort, "/taskmanagers", Duration.ofSeconds(2)).path("taskmanagers").size();
        if (registered >= taskManagers.size()) {
          return;
        }
      } catch (IOException e) {
        // The REST API is not up yet.
      }
      sleep(250);
    }
    throw new IOException(registered + " of " + taskManagers.size() + " Flink TaskManagers registered with the "
        + "JobManager at " + restAddress() + " within " + timeout.toSeconds() + " s (the machine may be too busy, "
        + "or short of memory); see the logs under " + dir + ". The processes were stopped.");
  }

  private List<Member> members() {
    List<Member> all = new ArrayList<>();
    all.add(jobManager);
    all.addAll(taskManagers);
    return all;
  }

  static JsonNode get(int port, String path, Duration timeout) throws IOException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + HOST + ":" + port + path)).timeout(timeout)
        .GET().build();
    try {
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IOException("GET " + path + " on the Flink JobManager at " + HOST + ":" + port + " gave HTTP "
            + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while asking the Flink JobManager", e);
    }
  }

  private static void stopProcess(ProcessHandle handle) {
    // The watcher shell's java child, when the handle is the shell; the JVM itself otherwise.
    handle.descendants().forEach(ProcessHandle::destroy);
    handle.destroy();
    try {
      handle.onExit().get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      handle.descendants().forEach(ProcessHandle::destroyForcibly);
      handle.destroyForcibly();
    }
  }

  private static void deletePidFiles(Path dir) {
    if (!Files.isDirectory(dir)) {
      return; // nothing was started there
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".pid")).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the pid files in " + dir, e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(HOST, 0));
      return socket.getLocalPort();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Each member's logging: Flink's task lifecycle and pg2spanner's own messages at INFO, the rest at WARN, every
   * {@code password=VALUE} masked as the CLI's logback.xml does.
   */
  static final String LOGBACK = """
      <configuration>
        <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
          <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %replace(%msg%n%xEx){'(?i)(password=)[^&amp;\\s;,)]*', '$1***'}%nopex</pattern></encoder>
        </appender>
        <logger name="org.apache.flink.runtime.taskexecutor" level="INFO"/>
        <logger name="org.apache.flink.runtime.taskmanager.Task" level="INFO"/>
        <logger name="org.apache.flink.runtime.executiongraph" level="INFO"/>
        <logger name="org.apache.flink.runtime.entrypoint" level="INFO"/>
        <logger name="org.apache.flink.runtime.resourcemanager" level="INFO"/>
        <logger name="org.apache.flink.runtime.dispatcher" level="INFO"/>
        <logger name="dev.pg2spanner" level="INFO"/>
        <root level="WARN"><appender-ref ref="OUT"/></root>
      </configuration>
      """;
}
