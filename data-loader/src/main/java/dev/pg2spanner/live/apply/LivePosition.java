package dev.pg2spanner.live.apply;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.TimestampBound;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where the change stream has been applied up to, kept in the target database itself: one row per replication slot
 * in {@value #TABLE}, written in the same commit as the changes it covers. So the applied position and the applied
 * changes can never disagree — after any crash the stream resumes exactly after the last change Spanner holds, and
 * transactions at or before it are skipped (no loss, nothing applied twice). Cutover drops the table.
 */
public final class LivePosition {

  public static final String TABLE = "pg2spanner_live_position";

  private static final String GOOGLE_SQL_DDL = "CREATE TABLE IF NOT EXISTS " + TABLE + " (\n"
      + "  slot_name STRING(MAX) NOT NULL,\n"
      + "  end_lsn INT64 NOT NULL,\n"
      + "  lsn STRING(MAX) NOT NULL,\n"
      + "  commit_time TIMESTAMP,\n"
      + "  partial_lsn INT64,\n"
      + "  applied_at TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true)\n"
      + ") PRIMARY KEY (slot_name)";

  /** The same table in the PostgreSQL dialect (a commit timestamp is a column of type spanner.commit_timestamp). */
  private static final String POSTGRES_DDL = "CREATE TABLE IF NOT EXISTS " + TABLE + " (\n"
      + "  slot_name varchar NOT NULL,\n"
      + "  end_lsn bigint NOT NULL,\n"
      + "  lsn varchar NOT NULL,\n"
      + "  commit_time timestamptz,\n"
      + "  partial_lsn bigint,\n"
      + "  applied_at spanner.commit_timestamp NOT NULL,\n"
      + "  PRIMARY KEY (slot_name)\n"
      + ")";

  private static final long DDL_TIMEOUT_MINUTES = 10;

  /**
   * @param endLsn the end of the last applied source transaction's commit record (0 before any)
   * @param commitTime when that transaction committed on the source, null before any
   * @param partialLsn the commit LSN of a transaction too big for one commit whose first part is applied (its
   *     replay must tolerate finding its own effects), or null
   */
  public record Applied(long endLsn, Instant commitTime, Long partialLsn) {
    Applied(long endLsn, Instant commitTime) {
      this(endLsn, commitTime, null);
    }

    Applied withPartial(Long lsn) {
      return new Applied(endLsn, commitTime, lsn);
    }
  }

  private final DatabaseClient client;
  private final String slot;

  public LivePosition(DatabaseClient client, String slot) {
    this.client = client;
    this.slot = slot;
  }

  /** The statement that creates the table in a database of {@code dialect}. */
  static String createStatement(SpannerDialect dialect) {
    return dialect.isPostgres() ? POSTGRES_DDL : GOOGLE_SQL_DDL;
  }

  /** Creates the position table when missing (one schema change, before streaming starts). */
  public static void createTable(DatabaseAdminClient admin, SpannerTarget target, SpannerDialect dialect) {
    try {
      admin.updateDatabaseDdl(target.instance(), target.database(), List.of(createStatement(dialect)), null)
          .get(DDL_TIMEOUT_MINUTES, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "cannot create " + TABLE
          + " in " + target.describe() + " (" + e.getCause().getMessage() + "); the live run keeps its applied "
          + "position there. Check the target, then rerun with --resume", e.getCause());
    } catch (TimeoutException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "creating " + TABLE + " in "
          + target.describe() + " did not finish within " + DDL_TIMEOUT_MINUTES + " minutes; rerun with --resume",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "interrupted while "
          + "creating " + TABLE + "; rerun with --resume", e);
    }
  }

  /** The statement that drops the table (at cutover). */
  public static String dropStatement() {
    return "DROP TABLE " + TABLE;
  }

  /** The position applied so far for this slot, or empty when nothing was applied yet. */
  public Optional<Applied> read() {
    try {
      Struct row = client.singleUse(TimestampBound.strong()).readRow(TABLE, Key.of(slot),
          List.of("end_lsn", "commit_time", "partial_lsn"));
      if (row == null) {
        return Optional.empty();
      }
      Instant commit = row.isNull("commit_time") ? null : row.getTimestamp("commit_time").toSqlTimestamp().toInstant();
      return Optional.of(new Applied(row.getLong("end_lsn"), commit,
          row.isNull("partial_lsn") ? null : row.getLong("partial_lsn")));
    } catch (SpannerException e) {
      if (e.getErrorCode() == ErrorCode.NOT_FOUND) {
        return Optional.empty();
      }
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "cannot read " + TABLE
          + " (" + e.getMessage() + "); check the target, then rerun with --resume", e);
    }
  }

  /** The mutation that records {@code applied}; part of the commit that applies the changes up to it. */
  Mutation mutation(Applied applied) {
    return Mutation.newInsertOrUpdateBuilder(TABLE)
        .set("slot_name").to(slot)
        .set("end_lsn").to(applied.endLsn())
        .set("lsn").to(Lsn.text(applied.endLsn()))
        .set("commit_time").to(applied.commitTime() == null ? null : Timestamp.of(java.sql.Timestamp.from(
            applied.commitTime())))
        .set("partial_lsn").to(applied.partialLsn())
        .set("applied_at").to(com.google.cloud.spanner.Value.COMMIT_TIMESTAMP)
        .build();
  }
}
