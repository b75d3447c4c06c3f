package dev.pg2spanner.testing;

import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Spanner database on the emulator, created for one test class (in an instance of its own) and dropped after it.
 *
 * @param emulatorHost {@code host:port} of the emulator's gRPC endpoint
 * @param id the database
 * @param spanner a client for the emulator, closed by the extension
 */
public record SpannerTestDatabase(String emulatorHost, DatabaseId id, Spanner spanner) {

  /** {@code projects/P/instances/I/databases/D}. */
  public String path() {
    return id.getName();
  }

  public DatabaseClient client() {
    return spanner.getDatabaseClient(id);
  }

  public DatabaseAdminClient admin() {
    return spanner.getDatabaseAdminClient();
  }

  /** Applies DDL statements and waits for them. */
  public void updateDdl(List<String> statements) throws Exception {
    admin().updateDatabaseDdl(id.getInstanceId().getInstance(), id.getDatabase(), statements, null)
        .get(2, TimeUnit.MINUTES);
  }
}
