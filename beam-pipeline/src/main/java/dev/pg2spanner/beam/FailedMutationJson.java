package dev.pg2spanner.beam;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.load.RejectedRow;
import dev.pg2spanner.load.TableConverter;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.gcp.spanner.MutationGroup;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * Turns the mutation groups SpannerIO reports as failed ({@code FailureMode.REPORT_FAILURES}) into dead-letter lines,
 * one per row, keyed exactly as the in-process loader keys a rejected row. SpannerIO does not say why a group failed (the error is in
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
      keyColumns.put(table.target(), TableConverter.keyColumns(table));
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
    return key(mutation, keyColumns.getOrDefault(mutation.getTable(), List.of()));
  }

  /**
   * The key text the in-process loader gives the same row ({@link TableConverter#keyText}), so verify leaves the
   * row out either way; a table keyed only by an added column (synthetic key) has none here.
   */
  static String key(Mutation mutation, List<String> columns) {
    if (columns.isEmpty()) {
      return "(unknown key)";
    }
    Map<String, Value> values = mutation.asMap();
    Value[] key = new Value[columns.size()];
    for (int i = 0; i < key.length; i++) {
      key[i] = values.get(columns.get(i));
    }
    return TableConverter.keyText(key);
  }
}
