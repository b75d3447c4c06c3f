package dev.pg2spanner.fallback;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.List;

/** The change stream fallback reads: its DDL, and whether it exists. */
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
  public static String createStatement(List<String> tables) {
    return "CREATE CHANGE STREAM " + FallbackState.STREAM + " FOR "
        + String.join(", ", tables.stream().map(FallbackStream::name).toList())
        + " OPTIONS (value_capture_type = 'NEW_ROW_AND_OLD_VALUES', retention_period = '" + RETENTION + "')";
  }

  private static String name(String dotted) {
    int dot = dotted.indexOf('.');
    return dot < 0 ? SpannerNames.quote(dotted)
        : SpannerNames.qualified(dotted.substring(0, dot), dotted.substring(dot + 1));
  }

  public static String dropStatement() {
    return "DROP CHANGE STREAM " + FallbackState.STREAM;
  }

  /** True when the target holds the stream. */
  public static boolean exists(DatabaseClient client) {
    try (ResultSet rs = client.singleUse().executeQuery(Statement.newBuilder("SELECT COUNT(*) FROM "
        + "INFORMATION_SCHEMA.CHANGE_STREAMS WHERE CHANGE_STREAM_NAME = @name").bind("name")
        .to(FallbackState.STREAM).build())) {
      rs.next();
      return rs.getLong(0) > 0;
    }
  }
}
