package dev.pg2spanner.targetdb;

import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.InstanceAdminClient;
import com.google.cloud.spanner.InstanceConfigId;
import com.google.cloud.spanner.InstanceId;
import com.google.cloud.spanner.InstanceInfo;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Creates the instance and database of an emulator target when they are missing. Never used against real
 * Spanner: creating billable resources there takes an explicit {@code --create-database}.
 */
public final class EmulatorProvisioner {

  private EmulatorProvisioner() {}

  /**
   * Ensures instance and database exist on the emulator.
   *
   * @return true when something was created
   */
  public static boolean ensureExists(Spanner spanner, SpannerTarget target) {
    return ensureExists(spanner, target, com.google.cloud.spanner.Dialect.GOOGLE_STANDARD_SQL);
  }

  /** {@link #ensureExists(Spanner, SpannerTarget)}, creating a missing database in {@code dialect}. */
  public static boolean ensureExists(Spanner spanner, SpannerTarget target,
      com.google.cloud.spanner.Dialect dialect) {
    if (!target.isEmulator()) {
      throw new IllegalArgumentException("refusing to create resources on real Spanner: " + target.path());
    }
    boolean created = false;
    InstanceAdminClient instances = spanner.getInstanceAdminClient();
    try {
      instances.getInstance(target.instance());
    } catch (SpannerException e) {
      if (e.getErrorCode() != ErrorCode.NOT_FOUND) {
        throw failure(target, e);
      }
      await(instances.createInstance(InstanceInfo.newBuilder(InstanceId.of(target.project(), target.instance()))
          .setInstanceConfigId(InstanceConfigId.of(target.project(), "emulator-config"))
          .setDisplayName(target.instance())
          .setNodeCount(1)
          .build()), target);
      created = true;
    }
    DatabaseAdminClient databases = spanner.getDatabaseAdminClient();
    try {
      databases.getDatabase(target.instance(), target.database());
    } catch (SpannerException e) {
      if (e.getErrorCode() != ErrorCode.NOT_FOUND) {
        throw failure(target, e);
      }
      await(createDatabase(databases, target, dialect), target);
      created = true;
    }
    return created;
  }

  /**
   * Starts creating the target's database, empty, in {@code dialect}: a PostgreSQL-dialect database is created by
   * the dialect setting alone (no extra statements; its schema is applied afterwards).
   */
  public static com.google.api.gax.longrunning.OperationFuture<com.google.cloud.spanner.Database,
      com.google.spanner.admin.database.v1.CreateDatabaseMetadata> createDatabase(DatabaseAdminClient databases,
      SpannerTarget target, com.google.cloud.spanner.Dialect dialect) {
    com.google.cloud.spanner.Database database = databases.newDatabaseBuilder(com.google.cloud.spanner.DatabaseId.of(
        target.project(), target.instance(), target.database())).setDialect(dialect).build();
    return databases.createDatabase(database, List.of());
  }

  private static void await(com.google.api.gax.longrunning.OperationFuture<?, ?> op, SpannerTarget target) {
    try {
      op.get(2, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      throw failure(target, e.getCause() == null ? e : e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure(target, e);
    }
  }

  private static Pg2SpannerException failure(SpannerTarget target, Throwable e) {
    return new Pg2SpannerException(ExitCode.TARGET_CONNECTION,
        "cannot create " + target.describe() + " (" + e.getMessage() + "); is the emulator running?", e);
  }
}
