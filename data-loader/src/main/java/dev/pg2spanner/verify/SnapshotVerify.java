package dev.pg2spanner.verify;

import com.google.cloud.spanner.DatabaseClient;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.Plan;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Verify inside a snapshot the caller holds: {@code verify}'s own run, a live run's consistent cuts and cutover, and
 * fallback's check all compare through here, so each reads the source the way the load did.
 */
public final class SnapshotVerify {

  private SnapshotVerify() {}

  /**
   * Compares {@code tables} as {@code snapshot} sees them with the target read at {@code readAt}: a consistent cut of
   * a live run, taken by the caller. Prints nothing.
   *
   * @param pieces pieces covering (at least) those tables, cut in {@code snapshot}
   * @param deadLetterFile rows it lists are left out of the comparison; null for none
   */
  public static List<TableVerification> compareAt(Plan plan, List<dev.pg2spanner.plan.TablePlan> tables,
      SnapshotSession snapshot, List<Piece> pieces, DatabaseClient client, com.google.cloud.Timestamp readAt,
      Path deadLetterFile, int threads) throws Exception {
    SnapshotSourceRows sourceRows = new SnapshotSourceRows(snapshot, TableConverter.compileAll(plan), pieces,
        deadLetterFile == null ? java.util.Set.of() : DeadLetterFile.listedRows(deadLetterFile),
        WayOn.stated("it is compared again at the next cut"));
    return new Verifier(plan, client, sourceRows, threads).verify(tables, readAt);
  }

  /**
   * Verifies the target against the source as one snapshot sees it, printing the table of results.
   *
   * @param pieces the snapshot's pieces when already cut, else null (cut here)
   * @param deadLetterFile rows it lists are left out of the comparison (they are accounted for there); null for none
   */
  public static List<TableVerification> inSnapshot(Plan plan, SnapshotSession snapshot, List<Piece> pieces,
      DatabaseClient client, Path deadLetterFile, int threads, PrintWriter out) throws Exception {
    return inSnapshot(plan, snapshot, pieces, client, deadLetterFile, threads, out,
        WayOn.stated("run the command again"));
  }

  /**
   * As {@link #inSnapshot(Plan, SnapshotSession, List, DatabaseClient, Path, int, PrintWriter)}.
   *
   * @param nextStep what to do once a source failure's cause (another session's lock, a lost connection) is gone
   */
  public static List<TableVerification> inSnapshot(Plan plan, SnapshotSession snapshot, List<Piece> pieces,
      DatabaseClient client, Path deadLetterFile, int threads, PrintWriter out, WayOn nextStep) throws Exception {
    List<Piece> cut = pieces != null ? pieces
        : PiecePlanner.cut(snapshot.coordinator(), plan, 1, PiecePlanner.MAX_PIECE_BYTES);
    Map<String, TableConverter> converters = TableConverter.compileAll(plan);
    SnapshotSourceRows sourceRows = new SnapshotSourceRows(snapshot, converters, cut,
        deadLetterFile == null ? java.util.Set.of() : DeadLetterFile.listedRows(deadLetterFile),
        nextStep);
    List<TableVerification> results = new Verifier(plan, client, sourceRows, threads).verify();
    out.print(Verifier.render(results));
    if (results.stream().anyMatch(r -> r.leftOut() > 0)) {
      out.println("(rows listed in the dead-letter file " + deadLetterFile + " were left out of the comparison)");
    }
    out.flush();
    return results;
  }
}
