package dev.pg2spanner.beam;

import dev.pg2spanner.load.write.WriteTarget;
import java.io.Serializable;

/**
 * Opens the target a worker's {@link LoadPiece} commits to. It is serialised into the job graph, so it holds
 * references only (a database path, an emulator address), never a client or a credential. The product's is
 * {@link SpannerWrites}; the benchmark's discards (its ceiling without a database), and tests keep what they get.
 */
public interface WriteTargets extends Serializable {

  /** A target for one DoFn instance (never null); called from {@code @Setup}, closed in {@code @Teardown}. */
  Opened open() throws Exception;

  /** A target with an end: the DoFn closes it when the runner tears the DoFn down. */
  interface Opened extends WriteTarget, AutoCloseable {
    @Override
    void close();

    /**
     * A worker gave up on this target ({@code failure}: its commit failed for good). Targets that share the
     * connection (the same database in the same JVM) then refuse every further commit at once with the same failure,
     * instead of retrying for another minute each: a runner does not stop the other workers of a failed job at once
     * (the DirectRunner went on starting pieces, each retrying a lost emulator for 39 s). Default: nothing shared.
     */
    default void gaveUp(dev.pg2spanner.error.Pg2SpannerException failure) {}
  }
}
