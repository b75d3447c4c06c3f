package dev.pg2spanner.schema;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.ddl.Migration;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The schema history of a PostgreSQL-dialect database. flyway-gcp-spanner speaks GoogleSQL only (the request for
 * the PostgreSQL dialect, flyway/flyway#3864, is open), and Flyway's PostgreSQL support needs a PostgreSQL wire
 * endpoint (PGAdapter) and features Spanner lacks (advisory locks); so pg2spanner
 * keeps the history itself, in a table with Flyway's name and columns ({@value #TABLE}: installed_rank, version,
 * description, type, script, checksum, installed_by, installed_on, execution_time, success) and the same values
 * Flyway would write: one row per applied migration, type SQL, the script's file name and Flyway's checksum of it.
 * A team can read it with any SQL client; whether Flyway through PGAdapter accepts it as its own history is not
 * verified.
 */
public final class PostgresDialectHistory implements SchemaHistory {

  public static final String TABLE = FlywayMigrator.HISTORY_TABLE;

  static final String CREATE_TABLE = "CREATE TABLE " + TABLE + " (\n"
      + "  installed_rank bigint NOT NULL,\n"
      + "  version varchar(50),\n"
      + "  description varchar(200) NOT NULL,\n"
      + "  type varchar(20) NOT NULL,\n"
      + "  script varchar(1000) NOT NULL,\n"
      + "  checksum bigint,\n"
      + "  installed_by varchar(100) NOT NULL,\n"
      + "  installed_on timestamptz NOT NULL,\n"
      + "  execution_time bigint NOT NULL,\n"
      + "  success boolean NOT NULL,\n"
      + "  PRIMARY KEY (installed_rank)\n"
      + ")";

  private final DatabaseAdminClient admin;
  /** Asked for at each use: the database may not exist yet when this object is made (a client made then fails). */
  private final Supplier<DatabaseClient> client;
  private final SpannerTarget target;

  public PostgresDialectHistory(Spanner spanner, SpannerTarget target) {
    this(Objects.requireNonNull(spanner, "spanner").getDatabaseAdminClient(), () -> spanner.getDatabaseClient(
        DatabaseId.of(target.project(), target.instance(), target.database())), target);
  }

  /** The history of {@code target} through clients the caller has open already (a live run's). */
  public PostgresDialectHistory(DatabaseAdminClient admin, DatabaseClient client, SpannerTarget target) {
    this(admin, () -> client, target);
  }

  private PostgresDialectHistory(DatabaseAdminClient admin, Supplier<DatabaseClient> client, SpannerTarget target) {
    this.admin = Objects.requireNonNull(admin, "admin");
    this.client = Objects.requireNonNull(client, "client");
    this.target = Objects.requireNonNull(target, "target");
  }

  @Override
  public void ensureHistoryTable() {
    if (exists()) {
      return;
    }
    try {
      admin.updateDatabaseDdl(target.instance(), target.database(),
          List.of(CREATE_TABLE), null).get(5, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "cannot create the schema history table " + TABLE
          + " in " + target.describe() + " (" + firstLine(e.getCause() == null ? e : e.getCause()) + "); check the "
          + "target and rerun migrate.", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "interrupted while creating " + TABLE, e);
    }
  }

  @Override
  public List<AppliedMigration> applied() {
    if (!exists()) {
      return List.of();
    }
    List<AppliedMigration> out = new ArrayList<>();
    try (ResultSet rs = client().singleUse().executeQuery(Statement.of("SELECT version, description, checksum, "
        + "success, installed_on FROM " + TABLE + " WHERE version IS NOT NULL ORDER BY installed_rank"))) {
      while (rs.next()) {
        out.add(new AppliedMigration(Integer.parseInt(rs.getString(0)), rs.getString(1),
            rs.isNull(2) ? null : (int) rs.getLong(2), rs.getBoolean(3),
            rs.getTimestamp(4).toSqlTimestamp().toInstant()));
      }
    } catch (SpannerException e) {
      throw connection("read the schema history in", e);
    }
    return List.copyOf(out);
  }

  @Override
  public void recordApplied(Migration migration, long executionMillis) {
    Objects.requireNonNull(migration, "migration");
    if (!exists()) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, target.describe() + " has no schema history table "
          + TABLE + " to record " + migration.fileName() + " in; start the migration again.");
    }
    long rank;
    try (ResultSet rs = client().singleUse().executeQuery(Statement.newBuilder("SELECT COALESCE(MAX(installed_rank), "
        + "0), COUNT(CASE WHEN version = $1 THEN 1 END) FROM " + TABLE).bind("p1")
        .to(String.valueOf(migration.version())).build())) {
      rs.next();
      if (rs.getLong(1) > 0) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "the schema history in " + target.describe()
            + " already records version " + migration.version() + "; nothing to record.");
      }
      rank = rs.getLong(0) + 1;
    } catch (SpannerException e) {
      throw connection("read the schema history in", e);
    }
    try {
      client().writeAtLeastOnce(List.of(Mutation.newInsertBuilder(TABLE)
          .set("installed_rank").to(rank)
          .set("version").to(String.valueOf(migration.version()))
          .set("description").to(migration.description())
          .set("type").to("SQL")
          .set("script").to(migration.fileName())
          .set("checksum").to((long) FlywayMigrator.checksum(migration.script()))
          .set("installed_by").to("pg2spanner")
          .set("installed_on").to(Timestamp.now())
          .set("execution_time").to(executionMillis)
          .set("success").to(true)
          .build()));
    } catch (SpannerException e) {
      throw connection("record " + migration.fileName() + " in the schema history of", e);
    }
  }

  private boolean exists() {
    try (ResultSet rs = client().singleUse().executeQuery(Statement.newBuilder("SELECT COUNT(*) FROM "
        + "information_schema.tables WHERE table_schema = 'public' AND table_name = $1").bind("p1").to(TABLE)
        .build())) {
      rs.next();
      return rs.getLong(0) > 0;
    } catch (SpannerException e) {
      if (e.getErrorCode() == com.google.cloud.spanner.ErrorCode.NOT_FOUND) {
        return false; // the database itself does not exist yet
      }
      throw connection("read the schema of", e);
    }
  }

  private DatabaseClient client() {
    return client.get();
  }

  private Pg2SpannerException connection(String doing, SpannerException e) {
    return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
        "cannot " + doing + " " + target.describe() + " ("
        + e.getErrorCode() + ": " + firstLine(e) + "); check the target and rerun migrate with --resume.", e);
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
