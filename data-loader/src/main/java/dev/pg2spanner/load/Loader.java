package dev.pg2spanner.load;

import com.google.cloud.spanner.DatabaseClient;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.read.SourceReader;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.metrics.RunMetrics;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceErrors;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * How a run copies its rows (step 2/4 of {@code migrate}): the in-process {@link LoadEngine} ({@link #IN_PROCESS}) or
 * a Beam job ({@code beam-pipeline}'s {@code BeamLoader}). Everything before (drift check, V1, the snapshot and its
 * pieces) and after (post-load schema phases, verify) is the run's, the same for every loader.
 */
@FunctionalInterface
public interface Loader {

  /** Copies the pieces; prints its own step line ({@link #step}) and progress to {@code inputs.out()}. */
  LoadResult load(Inputs inputs) throws Exception;

  /**
   * Refuses a source this loader cannot read as configured, before anything changes on the source or the target (for
   * a live run, before its slot is created). Not called for a run that resumes.
   *
   * @throws dev.pg2spanner.error.Pg2SpannerException naming what to change
   */
  default void check(SourceConfig source) {}

  /**
   * What a {@link Loader} gets.
   *
   * @param options workers, the bad-row limit, the run directory and dead-letter file, progress
   * @param source the source as the run connects to it (workers elsewhere connect the same way)
   * @param target the target database
   * @param plan the plan
   * @param snapshot the open exported snapshot (open until the loader returns)
   * @param pieces the pieces to load, ordered by level
   * @param converters one converter per target table (compiled for {@code reader})
   * @param reader how the pieces are read ({@link SourceReader}, chosen once per run)
   * @param client the target database's client
   * @param out user-facing output
   * @param metrics the run's meters (a loader counts into them what it can see in this process)
   */
  record Inputs(LoadOptions options, SourceConfig source, SpannerTarget target, Plan plan, SnapshotSession snapshot,
      List<Piece> pieces, Map<String, TableConverter> converters, SourceReader reader, DatabaseClient client,
      PrintWriter out, RunMetrics metrics) {}

  /** The in-process loader: {@link LoadEngine} with checkpoints, progress and resume. */
  Loader IN_PROCESS = in -> {
    LoadOptions o = in.options();
    step(in.out(), "2/4 load: " + in.pieces().size() + " pieces, " + o.workers() + " workers, snapshot "
        + in.snapshot().snapshotId());
    return new LoadEngine(in.client(), in.plan(), o, in.out(), SourceErrors.lookingUp(in.snapshot().source()),
        in.metrics()).run(in.pieces(), () -> in.reader().open(in.snapshot().openReader(), in.converters()));
  };

  /** A run's step line ("== 2/4 load: ..."), printed at once. */
  static void step(PrintWriter out, String text) {
    out.println("== " + text);
    out.flush();
  }
}
