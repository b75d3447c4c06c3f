package dev.pg2spanner.fallback;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.List;

/**
 * The change stream fallback reads: its DDL, and whether it exists, in either dialect (the PostgreSQL dialect writes
 * the options as {@code WITH (...)} and quotes names its own way; the stream itself is the same).
 */
public final class FallbackStream {

  /**
   * How long Spanner keeps the stream's records: fallback must read a change within this time of its commit. Seven
   * days covers a week of running on Spanner before deciding to go back; each day kept costs storage for every
   * write's new row and old values (see README "Fallback after cutover").
   */
  public static final String RETENTION = "7d";

  private FallbackStream() {}

  /** The Spanner tables of {@code plan}, in plan order: what the stream watches. */
  public static List<String> tables(Plan plan) {
    return plan.tables().stream().map(TablePlan::target).toList();
  }

  /**
   * {@code CREATE CHANGE STREAM} over {@code tables}, capturing the whole new row on insert and update and the old
   * values on update and delete (a delete needs the old row: a remapped key's original id lives in a non-key column).
   */
  public static String createStatement(SpannerDialect dialect, List<String> tables) {
    return "CREATE CHANGE STREAM " + FallbackState.STREAM + " FOR "
        + String.join(", ", tables.stream().map(t -> SpannerNames.dotted(dialect, t)).toList())
        + (dialect.isPostgres() ? " WITH (" : " OPTIONS (")
        + "value_capture_type = 'NEW_ROW_AND_OLD_VALUES', retention_period = '" + RETENTION + "')";
  }

  public static String dropStatement() {
    return "DROP CHANGE STREAM " + FallbackState.STREAM;
  }

  /** True when the target (a database of {@code dialect}) holds the stream. */
  public static boolean exists(DatabaseClient client, SpannerDialect dialect) {
    Statement query = dialect.isPostgres()
        ? Statement.newBuilder("SELECT count(*) FROM information_schema.change_streams WHERE change_stream_name = $1")
            .bind("p1").to(FallbackState.STREAM).build()
        : Statement.newBuilder("SELECT COUNT(*) FROM INFORMATION_SCHEMA.CHANGE_STREAMS WHERE CHANGE_STREAM_NAME = "
            + "@name").bind("name").to(FallbackState.STREAM).build();
    try (ResultSet rs = client.singleUse().executeQuery(query)) {
      rs.next();
      return rs.getLong(0) > 0;
    }
  }
}
