package dev.pg2spanner.targetdb;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import java.time.Duration;

/** Builds the Spanner client for a target: the emulator without credentials, real Spanner with ADC. */
public final class SpannerConnector {

  private SpannerConnector() {}

  /** A new client; the caller closes it. */
  public static Spanner open(SpannerTarget target) {
    SpannerOptions.Builder builder = SpannerOptions.newBuilder().setProjectId(target.project());
    if (target.isEmulator()) {
      builder.setEmulatorHost(target.emulatorHost()).setCredentials(NoCredentials.getInstance());
    }
    return builder.build().getService();
  }

  /** How long {@link #closeWithin} waits for a client to close: a healthy target closes in well under a second. */
  public static final Duration CLOSE_BOUND = Duration.ofSeconds(10);

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
