package dev.pg2spanner.beam;

import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.write.BoundedWrite;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The workers' Spanner: each commit is the in-process loader's ({@link BoundedWrite}: one blind
 * {@code writeAtLeastOnce} with a deadline, the client's own retries off; the retrying is {@code WriteCommitter}'s).
 * The DoFn instances of one worker JVM share one client per database, as SpannerIO's do (a client holds a session
 * pool and gRPC channels; one per DoFn instance would multiply both by the worker's threads); the last to close it
 * closes it. Once one of them gives up on the database (a commit that failed for good, {@link Opened#gaveUp}), the
 * others' commits fail at once with the same message.
 *
 * @param target the database the workers commit to
 */
public record SpannerWrites(SpannerTarget target) implements WriteTargets {

  private static final long serialVersionUID = 1L;

  /** Clients shared by this JVM's DoFn instances, by database, with the number of instances using each. */
  private static final Map<SpannerWrites, Shared> SHARED = new HashMap<>();

  private static final class Shared {
    final SpannerTarget target;
    /** Opened at the first commit (a worker that writes nothing never connects). */
    private Spanner spanner;
    private BoundedWrite write;
    int users;
    /** The failure a worker gave up with, or null: every later commit through this client fails with it at once. */
    volatile Pg2SpannerException gaveUp;

    Shared(SpannerTarget target) {
      this.target = target;
    }

    synchronized BoundedWrite write() {
      if (write == null) {
        spanner = SpannerConnector.open(target);
        write = new BoundedWrite(spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
            target.database())));
      }
      return write;
    }

    synchronized Spanner spanner() {
      return spanner;
    }
  }

  @Override
  public Opened open() {
    Shared shared;
    synchronized (SHARED) {
      shared = SHARED.get(this);
      if (shared == null) {
        shared = new Shared(target);
        SHARED.put(this, shared);
      }
      shared.users++;
    }
    Shared mine = shared;
    return new Opened() {
      private boolean closed;

      @Override
      public void write(List<Mutation> mutations) {
        Pg2SpannerException lost = mine.gaveUp;
        if (lost != null) {
          // Not a SpannerException: the commit loop must not retry it.
          throw new Pg2SpannerException(lost.code(), lost.next(), lost.getMessage());
        }
        mine.write().write(mutations);
      }

      @Override
      public void gaveUp(Pg2SpannerException failure) {
        if (failure.code() == ExitCode.TARGET_CONNECTION && mine.gaveUp == null) {
          mine.gaveUp = failure;
        }
      }

      @Override
      public void close() {
        synchronized (SHARED) {
          if (closed) {
            return;
          }
          closed = true;
          if (--mine.users > 0) {
            return;
          }
          SHARED.remove(SpannerWrites.this);
        }
        Spanner spanner = mine.spanner();
        if (spanner != null) {
          SpannerConnector.closeWithin(spanner, SpannerConnector.CLOSE_BOUND);
        }
      }
    };
  }

  /** Whether this JVM holds a connected client for {@code target} (one is opened at the first commit). For tests. */
  static boolean connected(SpannerWrites target) {
    synchronized (SHARED) {
      Shared shared = SHARED.get(target);
      return shared != null && shared.spanner() != null;
    }
  }

  /** The failure this JVM's workers gave up on {@code target} with, or null (none, or no client open). For tests. */
  static Pg2SpannerException gaveUpOn(SpannerWrites target) {
    synchronized (SHARED) {
      Shared shared = SHARED.get(target);
      return shared == null ? null : shared.gaveUp;
    }
  }

  @Override
  public String toString() {
    return target.describe();
  }
}
