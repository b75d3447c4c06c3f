package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.fallback.FallbackState;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 32: when there is no way back, fallback and cutover --back say so (exit 18) and change nothing: before cutover
 * (the source is still the database), and after {@code cutover --no-fallback} (which creates no change stream).
 */
@WithLogicalPostgres
@WithSpannerEmulator
class FallbackRefusalIT {

  @Test
  void withoutAChangeStreamFallbackAndCutoverBackRefuseAndNameTheWay(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, label text NOT NULL)",
        "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 20) g");
    Path planFile = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);

    // Before cutover: the source is still the database.
    CliRunner.Result early = MigrateSupport.cli(List.of("fallback", "--run-dir", run.toString()));
    assertThat(early.exitCode()).as(early.out() + early.err()).isEqualTo(ExitCode.FALLBACK_NOT_READY.exitCode())
        .isEqualTo(18);
    assertThat(early.out() + early.err()).contains("has not been cut over").contains("Run cutover first");

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--no-fallback", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();
    assertThat(cutover.out()).doesNotContain("recorded for fallback");
    assertThat(migrated.out()).contains("no change stream (--no-fallback)");
    assertThat(LiveState.read(run).orElseThrow().phase()).isEqualTo(LiveState.Phase.DONE);
    // No change stream on Spanner, no fallback state in the run directory.
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.CHANGE_STREAMS")).isZero();
    assertThat(FallbackState.read(run)).isEmpty();
    assertThat(Files.exists(run.resolve(FallbackState.FILE))).isFalse();

    // The application writes to Spanner; neither command can bring that back, and both say what to do instead.
    spanner.client().writeAtLeastOnce(List.of(com.google.cloud.spanner.Mutation.newInsertBuilder("items")
        .set("id").to(100L).set("label").to("on spanner").build()));
    for (List<String> command : List.of(List.of("fallback", "--run-dir", run.toString()),
        List.of("cutover", "--back", "--run-dir", run.toString()))) {
      CliRunner.Result r = MigrateSupport.cli(command);
      assertThat(r.exitCode()).as(command + ": " + r.out() + r.err()).isEqualTo(18);
      assertThat(r.out() + r.err()).as(command.toString()).contains("created no change stream (it ran with --no-fallback)")
          .contains("nothing was changed").contains("copy the rows from Spanner to the source another way")
          .contains("run cutover without --no-fallback");
    }
    assertThat(pg.queryValue("SELECT count(*) FROM items")).isEqualTo(20L);
    assertThat(pg.queryValue("SELECT count(*) FROM pg_tables WHERE tablename = 'pg2spanner_fallback_position'"))
        .isEqualTo(0L);
  }
}
