package dev.pg2spanner.it;

import static dev.pg2spanner.it.LiveKeylessIT.lastLive;
import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
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
 * Issue 30 with schema following (issue 31): a column added to a keyless table is not hashed, so the rows keep being
 * found by their hash; once a hashed column is dropped no row can be hashed as the load hashed it, and the table's
 * changes are found by a scan from then on — said once, and exact at cutover.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveKeylessSchemaIT {

  @Test
  void aDroppedHashedColumnTurnsTheLookupsToScansAndAnAddedOneKeepsTheHash(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE logs (source text NOT NULL, n int NOT NULL, detail text)",
        "ALTER TABLE logs REPLICA IDENTITY FULL",
        "INSERT INTO logs SELECT 'app' || (g % 3), g, 'd' || g FROM generate_series(1, 300) g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);

    pg.execute("ALTER TABLE logs ADD COLUMN tag text",
        "UPDATE logs SET tag = 't' WHERE n <= 10");
    JsonNode added = await(run, migrate, 10);
    assertThat(added.path("foundByHash").asLong()).as(added.toString()).isEqualTo(10);
    assertThat(added.path("lookupScans").asLong()).as(added.toString()).isZero();

    pg.execute("ALTER TABLE logs DROP COLUMN detail",
        "UPDATE logs SET tag = 'after drop' WHERE n BETWEEN 11 AND 20",
        "DELETE FROM logs WHERE n BETWEEN 21 AND 25");
    JsonNode dropped = await(run, migrate, 25);
    assertThat(dropped.path("foundByHash").asLong()).as(dropped.toString()).isEqualTo(10);
    assertThat(dropped.path("lookupScans").asLong()).as(dropped.toString()).isEqualTo(15);
    assertThat(dropped.path("rejected").asLong()).isZero();

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.out()).contains("column detail dropped")
        .contains("row hash pg2spanner_row_hash no longer maintained (a hashed column was dropped)")
        .contains("1 table(s) verified: all match.");
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM logs")).isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM logs"))
        .isEqualTo(295);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM logs WHERE tag = 'after drop'")).isEqualTo(10);
  }

  /** The first progress line with {@code changes} applied and no lag. */
  private static JsonNode await(Path run, CompletableFuture<CliRunner.Result> migrate, long changes)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    JsonNode last;
    while ((last = lastLive(run)).path("changes").asLong() < changes || last.path("lagBytes").asLong() > 0) {
      if (migrate.isDone() || System.nanoTime() > deadline) {
        fail("the changes were not applied: " + (migrate.isDone() ? migrate.get().out() : last));
      }
      Thread.sleep(200);
    }
    return last;
  }
}
