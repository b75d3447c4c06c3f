package dev.pg2spanner.beam;

import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import java.util.HashMap;
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
  private transient Map<String, RowKey> keys;

  FailedMutationJson(String planYaml) {
    this.planYaml = planYaml;
  }

  @Setup
  public void setup() {
    keys = new HashMap<>();
    for (TablePlan table : PlanFiles.fromYaml(planYaml, "plan.yaml").tables()) {
      keys.put(table.target(), RowKey.of(table));
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
    return key(mutation, keys.get(mutation.getTable()));
  }

  /**
   * The name the in-process loader gives the same row ({@link RowKey}), so verify leaves the row out either way;
   * a synthetic key is in the mutation too, because the loader writes it.
   */
  static String key(Mutation mutation, RowKey key) {
    String text = key == null ? null : key.text(mutation);
    return text == null ? "(unknown key)" : text;
  }
}
