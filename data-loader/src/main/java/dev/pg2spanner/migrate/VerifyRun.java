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
    // Reachability first, with the preflight's bounded waits (the client alone retries UNAVAILABLE for minutes).
    TargetPreflight.run(target).stream()
        .filter(r -> r.status() == dev.pg2spanner.preflight.CheckResult.Status.FAIL)
        .findFirst()
        .ifPresent(r -> {
          throw new dev.pg2spanner.error.Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION,
              "cannot verify against " + target.describe() + ": " + r.detail());
        });
    try (Spanner spanner = SpannerConnector.open(target)) {
      try {
        spanner.getDatabaseAdminClient().getDatabase(target.instance(), target.database());
      } catch (com.google.cloud.spanner.SpannerException e) {
        if (e.getErrorCode() != com.google.cloud.spanner.ErrorCode.NOT_FOUND) {
          throw e;
        }
        throw new dev.pg2spanner.error.Pg2SpannerException(dev.pg2spanner.error.ErrorCode.TARGET_CONNECTION,
            "cannot verify against " + target.describe() + ": the instance or database does not exist; name the "
                + "database migrate wrote to", e);
      }
      return verify(plan, source, spanner, target, threads, out);
    }
  }

  private static List<TableVerification> verify(Plan plan, SourceConnector source, Spanner spanner,
      SpannerTarget target, int threads, PrintWriter out) throws Exception {
    try (SnapshotSession snapshot = SnapshotSession.open(source)) {
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
