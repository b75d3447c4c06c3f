package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: a live run whose target lost its data (an emulator restarted, a database recreated) is not resumed into
 * it: {@code --resume} refuses before it creates or writes anything, naming what is gone and how to start over.
 * And a TRUNCATE of an interleaved hierarchy is applied in commits the target can bear.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveTargetResetIT {

  @Test
  void aResumeIntoATargetThatWasResetIsRefusedAndATruncatedHierarchyIsApplied(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute(
        "CREATE TABLE parents (id bigint PRIMARY KEY, name text NOT NULL)",
        "CREATE TABLE children (parent_id bigint NOT NULL REFERENCES parents (id) ON DELETE CASCADE, seq int NOT NULL, "
            + "note text, PRIMARY KEY (parent_id, seq))",
        "CREATE INDEX children_note ON children (note)",
        "INSERT INTO parents SELECT g, 'p' || g FROM generate_series(1, 600) g",
        "INSERT INTO children SELECT p, s, 'n' || s FROM generate_series(1, 600) p, generate_series(1, 20) s",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    assertThat(Files.readString(plan)).as("children is interleaved in parents").contains("parent: parents");

    // 1. A TRUNCATE ... CASCADE of the hierarchy while streaming (12,600 rows, an index): applied, then cut over.
    String kept = DatabaseId.of(spanner.id().getInstanceId(), "hierarchy").getName();
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, kept, spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    pg.execute("TRUNCATE parents CASCADE",
        "INSERT INTO parents SELECT g, 'again ' || g FROM generate_series(1, 5) g",
        "INSERT INTO children SELECT p, 1, 'again' FROM generate_series(1, 5) p");
    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    DatabaseClient hierarchy = spanner.spanner().getDatabaseClient(DatabaseId.of(kept));
    assertThat(spannerLong(hierarchy, "SELECT COUNT(*) FROM parents")).isEqualTo(5);
    assertThat(spannerLong(hierarchy, "SELECT COUNT(*) FROM children")).isEqualTo(5);

    // 2. A run streaming into its own database, killed; then the database is dropped (a reset target).
    pg.execute("TRUNCATE parents CASCADE",
        "INSERT INTO parents SELECT g, 'p' || g FROM generate_series(1, 50) g");
    String resetPath = DatabaseId.of(spanner.id().getInstanceId(), "reset-target").getName();
    Path resetRun = dir.resolve("reset-run");
    List<String> command = new ArrayList<>(List.of(MigrateResumeIT.javaExecutable(), "-cp",
        MigrateResumeIT.cliClasspath(), "dev.pg2spanner.cli.Pg2Spanner"));
    command.addAll(migrateArgs(plan, pg, resetPath, spanner.emulatorHost(), resetRun, "--live",
        "--progress-interval", "1"));
    Path log = dir.resolve("killed.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (!(Files.exists(resetRun.resolve(LiveState.FILE))
          && LiveState.read(resetRun).orElseThrow().phase() == LiveState.Phase.STREAM)) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          fail("migrate --live did not stream:\n" + Files.readString(log));
        }
        Thread.sleep(100);
      }
      pg.execute("UPDATE parents SET name = 'changed' WHERE id <= 10");
      Thread.sleep(2_000);
    } finally {
      process.destroyForcibly();
      assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
    }
    spanner.spanner().getDatabaseAdminClient().dropDatabase(spanner.id().getInstanceId().getInstance(),
        "reset-target");

    CliRunner.Result resumed = MigrateSupport.cli(migrateArgs(plan, pg, resetPath, spanner.emulatorHost(),
        resetRun, "--live", "--resume"));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err())
        .isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
    assertThat(resumed.err()).contains("no longer holds the live run").contains("its tables are gone")
        .contains("pg_drop_replication_slot(").contains("new --run-dir");
    try {
      spanner.spanner().getDatabaseAdminClient().getDatabase(spanner.id().getInstanceId().getInstance(),
          "reset-target");
      fail("the refused resume created the target database again");
    } catch (SpannerException e) {
      assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND);
    }
    assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()")).as("the slot is left for the user to drop")
        .isEqualTo(1);
  }
}
