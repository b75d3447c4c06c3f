package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

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
 * Issue 30: tables whose replica identity is a unique index ({@code REPLICA IDENTITY USING INDEX}), with and without a
 * primary key. The stream names their updated and deleted rows by that index's columns only (every other column of
 * the old tuple arrives as NULL), so the applier must find rows by those columns: no delete may be dropped, no update
 * dead-lettered, no key move leave the old row behind.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveReplicaIdentityIT {

  @Test
  void rowsNamedByAUniqueIndexAreUpdatedMovedAndDeletedExactly(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute(
        "CREATE TABLE keyed (id int PRIMARY KEY, code text NOT NULL, v text)",
        "CREATE UNIQUE INDEX keyed_code ON keyed (code)",
        "ALTER TABLE keyed REPLICA IDENTITY USING INDEX keyed_code",
        "INSERT INTO keyed SELECT g, 'k' || g, 'v' || g FROM generate_series(1, 100) g",
        "CREATE TABLE keyless (code text NOT NULL, v text, n int)",
        "CREATE UNIQUE INDEX keyless_code ON keyless (code)",
        "ALTER TABLE keyless REPLICA IDENTITY USING INDEX keyless_code",
        "INSERT INTO keyless SELECT 'c' || g, 'v' || g, g FROM generate_series(1, 100) g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");

    CliRunner.Result check = MigrateSupport.cli(List.of("check", "--source", pg.jdbcUrl(), "--live"));
    assertThat(check.out()).as(check.out() + check.err()).doesNotContain("FAIL");

    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    pg.execute(
        // The index's columns unchanged: the stream sends no old tuple at all.
        "UPDATE keyed SET v = 'changed' WHERE id <= 10",
        "UPDATE keyless SET v = 'changed', n = -n WHERE n <= 10",
        // Deletes: the old tuple carries the index's columns and NULL for every other column.
        "DELETE FROM keyed WHERE id BETWEEN 11 AND 18",
        "DELETE FROM keyless WHERE n BETWEEN 11 AND 18",
        // The primary key moves while the identity stays: only a lookup by the index finds the old row.
        "UPDATE keyed SET id = id + 1000 WHERE id BETWEEN 20 AND 25",
        // The identity itself changes: the old tuple names the row by its old index values.
        "UPDATE keyed SET code = code || '-renamed' WHERE id BETWEEN 30 AND 35",
        "UPDATE keyless SET code = code || '-renamed' WHERE n BETWEEN 30 AND 35",
        // Both at once.
        "UPDATE keyed SET id = id + 2000, code = code || '-both' WHERE id BETWEEN 40 AND 42",
        "INSERT INTO keyed SELECT g, 'k' || g, 'new' FROM generate_series(101, 110) g",
        "INSERT INTO keyless SELECT 'c' || g, 'new', g FROM generate_series(101, 110) g",
        "DELETE FROM keyed WHERE id = 105",
        "DELETE FROM keyless WHERE n = 105");

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.out()).contains("2 table(s) verified: all match.").doesNotContain("rejected");
    for (String table : List.of("keyed", "keyless")) {
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table)).isEqualTo(101);
    }
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM keyed WHERE id BETWEEN 20 AND 25")).isZero();
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM keyed WHERE id BETWEEN 1020 AND 1025")).isEqualTo(6);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM keyless WHERE v = 'changed'")).isEqualTo(10);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM keyless WHERE code LIKE '%-renamed'")).isEqualTo(6);
  }
}
