package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.InstanceConfigId;
import com.google.cloud.spanner.InstanceId;
import com.google.cloud.spanner.InstanceInfo;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 33: a client of a Spanner target that is gone (the run gave up on it) closes, and takes its threads with it.
 * Before the fix {@code Spanner.close()} retried deleting each pooled session for about 30 s, so the run's bounded
 * close left the closing thread and gRPC executor threads behind. Starts its own emulator: losing the shared one would
 * break every other test.
 */
class TargetLostCloseIT {

  /** A hang guard well above the bounded session deletes (5 s) and well below the client's default (~30 s). */
  private static final long CLOSE_GUARD_MILLIS = 15_000;

  @Test
  void aClientOfALostTargetClosesAndLeavesNoThreadBehind() throws Exception {
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();
    Spanner spanner;
    try (LocalEmulator emulator = LocalEmulator.start(binaries)) {
      SpannerTarget target = new SpannerTarget("pg2spanner-test", "lostclose", "db", emulator.hostPort());
      spanner = SpannerConnector.open(target);
      spanner.getInstanceAdminClient().createInstance(InstanceInfo.newBuilder(InstanceId.of(target.project(),
          target.instance())).setInstanceConfigId(InstanceConfigId.of(target.project(), "emulator-config"))
          .setNodeCount(1).build()).get();
      spanner.getDatabaseAdminClient().createDatabase(target.instance(), target.database(),
          List.of("CREATE TABLE t (id INT64) PRIMARY KEY (id)")).get();
      DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of(target.project(), target.instance(),
          target.database()));
      try (ResultSet rs = client.singleUse().executeQuery(Statement.of("SELECT 1"))) {
        while (rs.next()) {
          assertThat(rs.getLong(0)).isEqualTo(1);
        }
      }
    }
    // The emulator is gone, with the client's pooled sessions: what MigrateRun does after TARGET_CONNECTION.
    assertThat(SpannerConnector.closeWithin(spanner, SpannerConnector.LOST_CLOSE_BOUND))
        .as("a lost target does not answer within the last-try bound").isFalse();
    long deadline = System.currentTimeMillis() + CLOSE_GUARD_MILLIS;
    while (closers() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
    }
    assertThat(closers()).as("the client's close finished (its channels shut down), not left retrying").isZero();
  }

  private static long closers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals("pg2spanner-close")).count();
  }
}
