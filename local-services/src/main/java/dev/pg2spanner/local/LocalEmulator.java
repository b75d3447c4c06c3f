package dev.pg2spanner.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Cloud Spanner emulator process started on a free loopback port and stopped by {@link #close()}.
 *
 * <p>The emulator keeps every database in memory and never returns it, so callers that run many large loads
 * should start a fresh one rather than share one for ever.
 */
public final class LocalEmulator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LocalEmulator.class);
  private static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  /**
   * {@code sh -c} script: $1 is the JVM's pid, the rest the emulator's command. It runs the emulator, and stops it
   * as soon as either the JVM or the emulator is gone, then exits with the emulator's status.
   */
  static final String WATCH_PARENT = "parent=$1; shift; \"$@\" & child=$!; "
      + "trap 'kill $child 2>/dev/null' TERM INT HUP; "
      + "( while kill -0 $parent 2>/dev/null; do sleep 1; done; kill $child 2>/dev/null ) & watcher=$!; "
      + "wait $child; status=$?; kill $watcher 2>/dev/null; exit $status";

  private final Process process;
  private final int port;
  private final Path log;

  private LocalEmulator(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts the emulator and waits until its gRPC port accepts connections.
   *
   * @throws IOException when the process cannot be started or does not open its port in time; the message
   *     names the binary and the log file
   */
  public static LocalEmulator start(EmulatorBinaries binaries) throws IOException {
    int port = freePort();
    Path log = Files.createTempFile("spanner-emulator-", ".log");
    // Through a small shell that watches this JVM: a JVM killed with SIGKILL runs no shutdown hook, and the
    // emulator would otherwise run on, orphaned, holding its memory. The shell stops it within a second.
    Process process = new ProcessBuilder("/bin/sh", "-c", WATCH_PARENT, "pg2spanner-emulator",
        String.valueOf(ProcessHandle.current().pid()), binaries.emulatorMain().toString(),
        "--host_port=" + HOST + ":" + port)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    LocalEmulator emulator = new LocalEmulator(process, port, log);
    Runtime.getRuntime().addShutdownHook(new Thread(emulator::close, "stop-spanner-emulator"));
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IOException("the Spanner emulator at " + binaries.emulatorMain() + " exited with code "
            + process.exitValue() + " while starting; see " + log);
      }
      if (accepts(port)) {
        LOG.debug("Spanner emulator {} listening on {}:{} (log {})", binaries.emulatorMain(), HOST, port, log);
        return emulator;
      }
      sleep(25);
    }
    emulator.close();
    throw new IOException("the Spanner emulator at " + binaries.emulatorMain() + " did not open port " + port
        + " within " + START_TIMEOUT.toSeconds() + " s; see " + log);
  }

  /** The emulator process's id ({@code emulator_main}), e.g. to read its memory from {@code /proc}. */
  public long pid() {
    return process.pid();
  }

  /** {@code host:port}, the form {@code SPANNER_EMULATOR_HOST} takes. */
  public String hostPort() {
    return HOST + ":" + port;
  }

  /** Stops the emulator and any process it started; safe to call more than once. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(HOST, 0));
      return socket.getLocalPort();
    }
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(HOST, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
