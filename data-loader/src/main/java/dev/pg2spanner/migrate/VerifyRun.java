package dev.pg2spanner.migrate;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import dev.pg2spanner.load.Piece;
import dev.pg2spanner.load.PiecePlanner;
import dev.pg2spanner.load.SnapshotSession;
import dev.pg2spanner.load.TableConverter;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.targetdb.TargetPreflight;
import dev.pg2spanner.verify.TableVerification;
import dev.pg2spanner.verify.Verifier;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

/**
 * {@code pg2spanner verify}, any time after a migration: the source is read in one exported snapshot through the
 * plan's converters and compared table by table with the target read at one timestamp.
 */
public final class VerifyRun {

  private VerifyRun() {}

  public static List<TableVerification> execute(Path planFile, SourceConfig sourceConfig, SpannerTarget target,
      int threads, PrintWriter out) throws Exception {
    Plan plan = PlanFiles.read(planFile);
    SourceConnector source = new SourceConnector(sourceConfig);
    try (Connection c = source.open()) {
      SourceDrift.check(c, plan);
    }
    TargetPreflight.run(target).stream()
        .filter(r -> r.status() == dev.pg2spanner.preflight.CheckResult.Status.FAIL
            || r.detail().contains("does not exist"))
        .findFirst()
        .ifPresent(r -> {
          throw new dev.pg2spanner.error.Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION,
              "cannot verify against " + target.describe() + ": " + r.detail());
        });
    try (Spanner spanner = SpannerConnector.open(target); SnapshotSession snapshot = SnapshotSession.open(source)) {
      DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
          target.database()));
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, 1, MigrateRun.MAX_PIECE_BYTES);
      Map<String, TableConverter> converters = TableConverter.compileAll(plan.tables());
      List<TableVerification> results = new Verifier(plan, client,
          new SnapshotSourceRows(snapshot, converters, pieces, java.util.Set.of()), threads).verify();
      out.print(Verifier.render(results));
      out.flush();
      return results;
    }
  }
}
