package dev.pg2spanner.beam;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.load.RejectedRow;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.beam.sdk.io.gcp.spanner.MutationGroup;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * Turns the mutation groups SpannerIO reports as failed ({@code FailureMode.REPORT_FAILURES}) into dead-letter lines,
 * one per row, keyed by the plan's primary key columns. SpannerIO does not say why a group failed (the error is in
 * the worker log), so the reason says that.
 */
final class FailedMutationJson extends DoFn<MutationGroup, String> {

  private static final long serialVersionUID = 1L;

  private final String planYaml;
  private final Counter rowsFailed = Metrics.counter(LoadPipeline.METRICS, LoadPipeline.ROWS_FAILED);
  private transient Map<String, List<String>> keyColumns;

  FailedMutationJson(String planYaml) {
    this.planYaml = planYaml;
  }

  @Setup
  public void setup() {
    keyColumns = new HashMap<>();
    for (TablePlan table : PlanFiles.fromYaml(planYaml, "plan.yaml").tables()) {
      keyColumns.put(table.target(), table.primaryKey().stream().map(KeyPart::column).toList());
    }
  }

  @ProcessElement
  public void process(@Element MutationGroup group, OutputReceiver<String> out) {
    for (Mutation mutation : group) {
      rowsFailed.inc();
      out.output(ReadPiece.json(new RejectedRow(mutation.getTable(), key(mutation), null, null,
          "Spanner rejected the write of this row (SpannerIO reported its batch as failed; the worker log has the "
              + "error)")));
    }
  }

  private String key(Mutation mutation) {
    Map<String, Value> values = mutation.asMap();
    List<String> columns = keyColumns.getOrDefault(mutation.getTable(), List.of());
    if (columns.isEmpty()) {
      return "(unknown key)";
    }
    return columns.stream().map(c -> String.valueOf(values.get(c))).collect(Collectors.joining(", "));
  }
}
