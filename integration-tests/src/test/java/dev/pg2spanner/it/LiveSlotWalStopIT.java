package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35's guard rail: past {@code --stop-slot-wal} a live run stops streaming rather than let the slot fill the
 * source's disk, exits 17, says so in progress.jsonl and status, and the drop commands it prints work.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveSlotWalStopIT {

  @Test
  void pastStopSlotWalStreamingStopsWithExit17AndTheCommandsItPrintsWork(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    LiveWorkload.createSchema(pg);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    CliRunner.Result stopped;
    // The workload writes while the run loads and streams: the slot soon holds more than 1 kB.
    LiveWorkload workload = new LiveWorkload(pg).start();
    try {
      stopped = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(),
          spanner.emulatorHost(), run, "--live", "--workers", "2", "--progress-interval", "1",
          "--stop-slot-wal", "1kB"))).get(5, TimeUnit.MINUTES);
    } finally {
      workload.close();
    }
    assertThat(workload.transactions()).isPositive();
    assertThat(stopped.exitCode()).as(stopped.out() + stopped.err()).isEqualTo(17);
    String all = stopped.out() + stopped.err();
    assertThat(all).contains("more than --stop-slot-wal 1024 bytes: streaming stopped rather than fill the source's "
        + "disk").contains("migrate --live --resume --plan " + plan).contains("with a larger --stop-slot-wal");
    assertThat(LiveMigrateIT.lastLive(run).path("note").asText()).contains("--stop-slot-wal");
    CliRunner.Result status = MigrateSupport.cli(List.of("status", "--run-dir", run.toString()));
    assertThat(status.out()).contains("--stop-slot-wal").contains("no process is running it");

    // The drop command printed works: the slot (and the publication it created) go, and the WAL with them.
    Matcher drop = Pattern.compile("`(SELECT pg_drop_replication_slot\\('[^']+'\\);)`").matcher(all);
    assertThat(drop.find()).as(all).isTrue();
    Matcher publication = Pattern.compile("`(DROP PUBLICATION [^`]+;)`").matcher(all);
    assertThat(publication.find()).as(all).isTrue();
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()"))
        .isEqualTo(1);
    pg.execute(drop.group(1), publication.group(1));
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()"))
        .isZero();
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_publication")).isZero();
  }
}
