package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.completeLines;
import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5: rows updated, inserted and deleted in PostgreSQL while migrate is loading do not reach Spanner — the
 * target is the snapshot migrate exported, not a mix of before and after — and a later {@code verify}, which reads
 * a new snapshot, names those rows.
 */
@WithPostgres
@WithSpannerEmulator
class MigrateConsistencyIT {

  private static final long ROWS = 100_000;

  @Test
  void writesDuringTheLoadDoNotReachTheTarget(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    pg.execute(
        "CREATE TABLE items (id bigint PRIMARY KEY, label text NOT NULL, qty int NOT NULL, updated timestamptz)",
        "INSERT INTO items SELECT g, 'item ' || g, g % 1000, timestamptz '2024-01-01 00:00:00+00' + g * interval "
            + "'1 second' FROM generate_series(1, " + ROWS + ") g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");

    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--workers", "2")));
    // pieces.json is written after the snapshot is exported and before the first piece is read.
    Path pieces = run.resolve(Checkpoint.PIECES_FILE);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (!Files.exists(pieces)) {
      if (migrate.isDone()) {
        CliRunner.Result r = migrate.join();
        fail("migrate ended (exit " + r.exitCode() + ") before its load started:\n" + r.out() + r.err());
      }
      if (System.nanoTime() > deadline) {
        fail("the load did not start within 2 minutes");
      }
      Thread.sleep(20);
    }
    pg.execute(
        "UPDATE items SET label = 'changed' WHERE id <= 1000",
        "INSERT INTO items SELECT g, 'new ' || g, 0, now() FROM generate_series(" + (ROWS + 1) + ", " + (ROWS + 500)
            + ") g",
        "DELETE FROM items WHERE id BETWEEN 50001 AND 50100");
    // The writes are only a test of the snapshot if they committed while the load was still reading.
    long totalPieces = new ObjectMapper().readTree(pieces.toFile()).size();
    assertThat(completeLines(run.resolve(Checkpoint.DONE_FILE))).as("pieces done when the writes committed")
        .isLessThan(totalPieces);

    CliRunner.Result r = migrate.get(5, TimeUnit.MINUTES);
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("1 table(s) verified: all match.")
        .containsPattern("(?m)^items +\\| +100,000 \\| +100,000 \\| equal");

    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items")).isEqualTo(ROWS);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE label = 'changed'")).isZero();
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id <= 1000 AND label = CONCAT('item ', "
        + "CAST(id AS STRING))")).isEqualTo(1000);
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id > " + ROWS)).isZero();
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id BETWEEN 50001 AND 50100")).isEqualTo(100);

    // verify reads a new snapshot, which holds the writes: now the two sides differ, in exactly those rows.
    CliRunner.Result verify = MigrateSupport.cli(List.of("verify", "--plan", plan.toString(), "--source",
        pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost()));
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
    assertThat(verify.out()).contains("DIFFERENT").contains("1 of 1 table(s) differ.");
    assertThat(verify.err()).contains("1 of 1 table(s) differ");
    List<Long> keys = differingKeys(verify.out());
    assertThat(keys).as("differing keys listed in:\n" + verify.out()).isNotEmpty()
        .allMatch(k -> k <= 1000 || (k >= 50001 && k <= 50100) || k > ROWS);
    // Source 100,000 − 100 deleted + 500 inserted; the target still holds the snapshot's 100,000.
    assertThat(verify.out()).containsPattern("(?m)^items +\\| +100,400 \\| +100,000 \\| DIFFERENT");
  }

  /** The keys after "different: ", "missing in target: " or "extra in target: " in verify's table. */
  private static List<Long> differingKeys(String output) {
    Matcher m = Pattern.compile("(?:different|missing in target|extra in target): (\\d+)").matcher(output);
    List<Long> keys = new ArrayList<>();
    while (m.find()) {
      keys.add(Long.parseLong(m.group(1)));
    }
    return keys;
  }
}
