package dev.pg2spanner.beam;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
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
 * closes it.
 *
 * @param project see {@link SpannerTarget#project()}
 * @param instance see {@link SpannerTarget#instance()}
 * @param database see {@link SpannerTarget#database()}
 * @param emulatorHost see {@link SpannerTarget#emulatorHost()}; null for real Spanner
 */
public record SpannerWrites(String project, String instance, String database, String emulatorHost)
    implements WriteTargets {

  private static final long serialVersionUID = 1L;

  /** Clients shared by this JVM's DoFn instances, by database, with the number of instances using each. */
  private static final Map<SpannerWrites, Shared> SHARED = new HashMap<>();

  private static final class Shared {
    final Spanner spanner;
    final DatabaseClient client;
    int users;

    Shared(Spanner spanner, DatabaseClient client) {
      this.spanner = spanner;
      this.client = client;
    }
  }

  /** The workers' writes to {@code target}. */
  public static SpannerWrites to(SpannerTarget target) {
    return new SpannerWrites(target.project(), target.instance(), target.database(), target.emulatorHost());
  }

  @Override
  public Opened open() {
    Shared shared;
    synchronized (SHARED) {
      shared = SHARED.get(this);
      if (shared == null) {
        Spanner spanner = SpannerConnector.open(new SpannerTarget(project, instance, database, emulatorHost));
        shared = new Shared(spanner, spanner.getDatabaseClient(DatabaseId.of(project, instance, database)));
        SHARED.put(this, shared);
      }
      shared.users++;
    }
    Shared mine = shared;
    BoundedWrite write = new BoundedWrite(mine.client);
    return new Opened() {
      private boolean closed;

      @Override
      public void write(List<Mutation> mutations) {
        write.write(mutations);
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
        SpannerConnector.closeWithin(mine.spanner, SpannerConnector.CLOSE_BOUND);
      }
    };
  }

  @Override
  public String toString() {
    return "projects/" + project + "/instances/" + instance + "/databases/" + database
        + (emulatorHost == null ? "" : " on the emulator at " + emulatorHost);
  }
}
