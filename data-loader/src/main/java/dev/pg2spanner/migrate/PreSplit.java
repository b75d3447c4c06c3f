package dev.pg2spanner.migrate;

import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.admin.database.v1.DatabaseAdminClient;
import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.admin.database.v1.AddSplitPointsRequest;
import com.google.spanner.admin.database.v1.DatabaseName;
import com.google.spanner.admin.database.v1.SplitPoints;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Adds the plan's split points ({@link TablePlan#splitPoints()}) to the empty tables before the load, through the
 * admin API's AddSplitPoints, so that real Spanner spreads the bulk load over its servers from the first commit. The
 * emulator does not model splits, so there they are skipped with a note. A failure is a warning, never a failed run:
 * without split points the load is as correct, only slower to spread at its start. Spanner lets split points
 * expire (10 days by default), after which it splits by load and size as usual.
 */
final class PreSplit {

  /** The initiator tag Spanner records with the split points (at most 50 characters). */
  static final String INITIATOR = "pg2spanner-initial-load";

  private PreSplit() {}

  static void apply(Spanner spanner, SpannerTarget target, Plan plan, PrintWriter out) {
    List<TablePlan> tables = plan.tables().stream().filter(t -> !t.splitPoints().isEmpty()).toList();
    if (tables.isEmpty()) {
      return;
    }
    int points = tables.stream().mapToInt(t -> t.splitPoints().size()).sum();
    String what = points + " split point(s) for " + tables.size() + " table(s) ("
        + String.join(", ", tables.stream().map(TablePlan::target).toList()) + ")";
    if (target.isEmulator()) {
      out.println("  pre-split: " + what + " planned; skipped on the emulator, which does not model splits");
      out.flush();
      return;
    }
    try (DatabaseAdminClient admin = spanner.createDatabaseAdminClient()) {
      admin.addSplitPoints(request(target, tables));
      out.println("  pre-split: added " + what + "; Spanner lets them expire after 10 days");
    } catch (RuntimeException e) {
      out.println("  warning: adding " + what + " failed (" + e.getMessage() + "); the load goes on without them: "
          + "it is as correct, only slower to spread over the instance at first");
    }
    out.flush();
  }

  /** The AddSplitPoints request: every value as a string, the encoding Spanner's API uses for INT64 and STRING. */
  static AddSplitPointsRequest request(SpannerTarget target, List<TablePlan> tables) {
    List<SplitPoints> all = new ArrayList<>();
    for (TablePlan t : tables) {
      SplitPoints.Builder split = SplitPoints.newBuilder().setTable(t.target());
      for (List<String> point : t.splitPoints()) {
        ListValue.Builder parts = ListValue.newBuilder();
        for (String part : point) {
          parts.addValues(Value.newBuilder().setStringValue(part));
        }
        split.addKeys(SplitPoints.Key.newBuilder().setKeyParts(parts));
      }
      all.add(split.build());
    }
    return AddSplitPointsRequest.newBuilder()
        .setDatabase(DatabaseName.of(target.project(), target.instance(), target.database()).toString())
        .addAllSplitPoints(all).setInitiator(INITIATOR).build();
  }
}
