package dev.pg2spanner.targetdb;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import java.time.Duration;

/** Builds the Spanner client for a target: the emulator without credentials, real Spanner with ADC. */
public final class SpannerConnector {

  private SpannerConnector() {}

  /**
   * gRPC interceptors added to every client this process opens from now on: the test suite's fault injector. Empty
   * in production (nothing in pg2spanner adds one).
   */
  private static final java.util.List<io.grpc.ClientInterceptor> INTERCEPTORS =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** A new client; the caller closes it. */
  public static Spanner open(SpannerTarget target) {
    SpannerOptions.Builder builder = SpannerOptions.newBuilder().setProjectId(target.project());
    if (target.isEmulator()) {
      builder.setEmulatorHost(target.emulatorHost()).setCredentials(NoCredentials.getInstance());
    }
    if (!INTERCEPTORS.isEmpty()) {
      java.util.List<io.grpc.ClientInterceptor> interceptors = java.util.List.copyOf(INTERCEPTORS);
      builder.setInterceptorProvider(() -> interceptors);
    }
    boundSessionDeletes(builder);
    return builder.build().getService();
  }

  /**
   * How long one DeleteSession (sent by {@link Spanner#close()} for every pooled session) may take with its retries.
   * The client's default retries it for about half a minute; on a target that is gone, {@code close()} waited that
   * long and gRPC executor threads of the lost calls stayed behind for good (issue 33). A session not deleted expires
   * on the server by itself, so giving up early loses nothing.
   */
  static final Duration SESSION_DELETE_BOUND = Duration.ofSeconds(5);

  private static void boundSessionDeletes(SpannerOptions.Builder builder) {
    var deletes = builder.getSpannerStubSettingsBuilder().deleteSessionSettings();
    deletes.setRetrySettings(deletes.getRetrySettings().toBuilder()
        .setTotalTimeoutDuration(SESSION_DELETE_BOUND)
        .setInitialRpcTimeoutDuration(SESSION_DELETE_BOUND)
        .setMaxRpcTimeoutDuration(SESSION_DELETE_BOUND)
        .build());
  }

  /**
   * Adds {@code interceptor} to the clients opened until the returned handle is closed (for fault injection in
   * tests).
   */
  public static AutoCloseable intercept(io.grpc.ClientInterceptor interceptor) {
    INTERCEPTORS.add(interceptor);
    return () -> INTERCEPTORS.remove(interceptor);
  }

  /** How long {@link #closeWithin} waits for a client to close: a healthy target closes in well under a second. */
  public static final Duration CLOSE_BOUND = Duration.ofSeconds(10);
  /** The same after the run gave up on the target (TARGET_CONNECTION): a last try, not another wait. */
  public static final Duration LOST_CLOSE_BOUND = Duration.ofSeconds(1);

  /**
   * Closes {@code spanner}, waiting at most {@code bound}. {@link Spanner#close()} deletes the client's sessions and
   * retries that on a target that stopped answering for a minute or more; a run that has already failed (or
   * finished) must not wait for it. The close goes on in a daemon thread, which does not keep the JVM alive.
   *
   * @return whether the client closed within the bound
   */
  public static boolean closeWithin(AutoCloseable spanner, Duration bound) {
    Thread closer = new Thread(() -> {
      try {
        spanner.close();
      } catch (Exception e) {
        org.slf4j.LoggerFactory.getLogger(SpannerConnector.class).debug("closing the Spanner client: {}",
            e.getMessage());
      }
    }, "pg2spanner-close");
    closer.setDaemon(true);
    closer.start();
    try {
      closer.join(bound.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !closer.isAlive();
  }
}
