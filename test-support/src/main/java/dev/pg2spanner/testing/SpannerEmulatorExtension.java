package dev.pg2spanner.testing;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.InstanceConfigId;
import com.google.cloud.spanner.InstanceId;
import com.google.cloud.spanner.InstanceInfo;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.testcontainers.gcloud.SpannerEmulatorContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Gives each test class a Spanner database of its own on the Cloud Spanner emulator.
 *
 * <p>The emulator, found once per JVM, is the first of:
 * <ol>
 *   <li>{@code SPANNER_EMULATOR_HOST} ({@code host:port} of a running emulator's gRPC endpoint);</li>
 *   <li>the locally installed emulator (Cloud SDK), started on a free port and stopped when the JVM's tests end;</li>
 *   <li>the emulator's container through Testcontainers, when Docker is available.</li>
 * </ol>
 * When none can be had the test fails in CI and is skipped elsewhere, saying how to provide one.
 */
public final class SpannerEmulatorExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  /** The project id every test uses; the emulator accepts any. */
  public static final String PROJECT = "pg2spanner-test";
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(SpannerEmulatorExtension.class);
  private static final String EMULATOR_IMAGE = "gcr.io/cloud-spanner-emulator/emulator:1.5.28";
  /**
   * The emulator never frees what a schema change or a database took (about 20 MB a schema change), and a grown one
   * is slow: after ~80 test classes it held 2.7 GB, and LiveVerificationIT's workload test took 367 s instead of 14 s
   * (190 s and failed when run alone against that emulator). An emulator this JVM started is replaced by a new one
   * before a test class when it holds more than this (1 GB, or {@code PG2SPANNER_TEST_EMULATOR_RESTART_MB}) and no test
   * database is in use.
   */
  static final long RESTART_ABOVE_BYTES = Long.parseLong(System.getenv().getOrDefault(
      "PG2SPANNER_TEST_EMULATOR_RESTART_MB", "1024").trim()) << 20;
  /** Test databases created and not yet dropped (a nested class's outer class keeps its own). */
  private static final AtomicInteger IN_USE = new AtomicInteger();

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    ExtensionContext.Store root = context.getRoot().getStore(NS);
    EmulatorServer server = root.getOrComputeIfAbsent(EmulatorServer.class,
        k -> EmulatorServer.resolve(System.getenv()), EmulatorServer.class);
    long held = server.residentBytes();
    if (IN_USE.get() == 0 && held > RESTART_ABOVE_BYTES) {
      System.out.printf("The Spanner emulator holds %d MB: starting a new one for %s%n", held >> 20,
          context.getDisplayName());
      root.remove(EmulatorServer.class);
      server.close();
      server = root.getOrComputeIfAbsent(EmulatorServer.class, k -> EmulatorServer.resolve(System.getenv()),
          EmulatorServer.class);
    }
    Spanner spanner = SpannerOptions.newBuilder()
        .setProjectId(PROJECT)
        .setEmulatorHost(server.hostPort())
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    InstanceId instance = InstanceId.of(PROJECT, "test-" + suffix);
    spanner.getInstanceAdminClient().createInstance(
        InstanceInfo.newBuilder(instance)
            .setInstanceConfigId(InstanceConfigId.of(PROJECT, "emulator-config"))
            .setDisplayName("pg2spanner test")
            .setNodeCount(1)
            .build())
        .get(1, TimeUnit.MINUTES);
    DatabaseId database = DatabaseId.of(instance, "db-" + suffix);
    spanner.getDatabaseAdminClient()
        .createDatabase(instance.getInstance(), database.getDatabase(), List.of())
        .get(1, TimeUnit.MINUTES);
    context.getStore(NS).put(SpannerTestDatabase.class, new SpannerTestDatabase(server.hostPort(), database, spanner));
    IN_USE.incrementAndGet();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    SpannerTestDatabase db = context.getStore(NS).remove(SpannerTestDatabase.class, SpannerTestDatabase.class);
    if (db == null) {
      return;
    }
    IN_USE.decrementAndGet();
    try {
      // Deleting the instance drops its database too, and lets the emulator free the memory.
      db.spanner().getInstanceAdminClient().deleteInstance(db.id().getInstanceId().getInstance());
    } finally {
      db.spanner().close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SpannerTestDatabase.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    SpannerTestDatabase db = context.getStore(NS).get(SpannerTestDatabase.class, SpannerTestDatabase.class);
    if (db == null) {
      throw new IllegalStateException("no SpannerTestDatabase here: annotate the class with @WithSpannerEmulator");
    }
    return db;
  }

  /** The emulator all test databases of this JVM live on. */
  record EmulatorServer(String hostPort, AutoCloseable owner) implements AutoCloseable {

    static EmulatorServer resolve(Map<String, String> env) {
      String explicit = env.get("SPANNER_EMULATOR_HOST");
      if (explicit != null && !explicit.isBlank()) {
        return new EmulatorServer(explicit.trim(), null);
      }
      Optional<EmulatorBinaries> binaries = EmulatorBinaries.locate(env);
      if (binaries.isPresent()) {
        try {
          LocalEmulator emulator = LocalEmulator.start(binaries.get());
          return new EmulatorServer(emulator.hostPort(), emulator);
        } catch (Exception e) {
          throw TestEnvironment.unavailable("The Spanner emulator", "starting it failed: " + e.getMessage());
        }
      }
      if (PostgresExtension.dockerAvailable()) {
        SpannerEmulatorContainer container = new SpannerEmulatorContainer(DockerImageName.parse(EMULATOR_IMAGE));
        container.start();
        return new EmulatorServer(container.getEmulatorGrpcEndpoint(), container::stop);
      }
      throw TestEnvironment.unavailable("The Spanner emulator",
          "no installed emulator was found and Docker is not available; " + EmulatorBinaries.installHint());
    }

    /**
     * The resident memory of the emulator this JVM started (its processes together, from {@code /proc}); 0 for one
     * it did not start or where {@code /proc} cannot be read.
     */
    long residentBytes() {
      if (!(owner instanceof LocalEmulator emulator)) {
        return 0;
      }
      return ProcessHandle.of(emulator.pid()).map(p -> Stream.concat(Stream.of(p),
          p.descendants()).mapToLong(EmulatorServer::resident).sum()).orElse(0L);
    }

    private static long resident(ProcessHandle process) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc", process.pid() + "",
            "status"))) {
          if (line.startsWith("VmRSS:")) {
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
          }
        }
      } catch (IOException | RuntimeException e) {
        // gone, or not Linux: counts as nothing
      }
      return 0;
    }

    @Override
    public void close() throws Exception {
      if (owner != null) {
        owner.close();
      }
    }
  }
}
