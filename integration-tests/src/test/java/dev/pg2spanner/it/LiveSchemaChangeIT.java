package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: a column added on the source while its changes stream stops the stream with an error naming the table
 * and the change — never a silently wrong row — and the run says that its slot holds WAL and how to drop it.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveSchemaChangeIT {

  @Test
  void aColumnAddedDuringStreamingStopsTheStreamNamingTableAndColumn(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL)",
        "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g", "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    pg.execute("INSERT INTO items VALUES (101, 'before the change')");
    pg.execute("ALTER TABLE items ADD COLUMN extra int", "INSERT INTO items VALUES (102, 'after', 7)");

    CliRunner.Result r = migrate.get(2, TimeUnit.MINUTES);
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ErrorCode.PLAN_INVALID.exitCode());
    assertThat(r.err()).contains("the source table public.items changed while its changes were streamed")
        .contains("column extra was added").doesNotContain("\tat ");
    String slot = LiveState.read(run).orElseThrow().slot();
    assertThat(r.out()).contains("replication slot " + slot).contains("holds")
        .contains("pg_drop_replication_slot('" + slot + "')").contains("migrate --live --resume");
    // The change before the ALTER arrived; the one after it did not.
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id = 101")).isEqualTo(1);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id = 102")).isZero();
    assertThat(MigrateSupport.pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = '" + slot
        + "'")).as("the slot stays, so nothing is lost before the user decides").isEqualTo(1);

    // cutover with no migrate running streams itself: an unreachable target is a bounded, named failure ...
    long started = System.nanoTime();
    CliRunner.Result unreachable = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString(), "--emulator",
        "127.0.0.1:9"));
    assertThat(unreachable.exitCode()).as(unreachable.out() + unreachable.err())
        .isEqualTo(ErrorCode.TARGET_CONNECTION.exitCode());
    assertThat(unreachable.err()).contains("127.0.0.1:9").contains("no migrate --live is running");
    assertThat(System.nanoTime() - started).as("it does not hang").isLessThan(TimeUnit.SECONDS.toNanos(120));
    // ... and on the real target it meets the same schema change and stops the same way, removing nothing.
    CliRunner.Result again = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ErrorCode.PLAN_INVALID.exitCode());
    assertThat(again.err()).contains("column extra was added");
    assertThat(MigrateSupport.pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots")).isEqualTo(1);
  }
}
