package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.TcpFaultProxy;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The target disappears once the load is done, while the post-load phases (Flyway's history, the index, verify) run:
 * the run has changed the target and keeps its run directory, so whatever layer fails, the message ends with the way
 * on, {@code --resume} (a rerun without it is refused), and that resume, with the target back, ends exact.
 */
@WithPostgres
@WithSpannerEmulator
class TargetLostAfterLoadIT {

  @Test
  void aBegunRunThatLosesItsTargetNamesResumeAndTheResumeEndsExact(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, c int NOT NULL, note text)",
        "INSERT INTO items SELECT g, g % 97, 'note ' || g FROM generate_series(1, 20000) g",
        "CREATE INDEX items_c_idx ON items (c)", "ANALYZE items");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    String emulator = spanner.emulatorHost();
    int colon = emulator.lastIndexOf(':');
    try (TcpFaultProxy proxy = TcpFaultProxy.start(emulator.substring(0, colon),
        Integer.parseInt(emulator.substring(colon + 1)))) {
      List<String> args = migrateArgs(plan, pg, spanner.path(), "127.0.0.1:" + proxy.port(), run, "--workers", "2");
      CompletableFuture<CliRunner.Result> first = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (!loaded(run)) {
        if (first.isDone()) {
          CliRunner.Result r = first.get();
          fail("migrate ended before its load was checkpointed whole (exit " + r.exitCode() + "):\n" + r.out()
              + r.err());
        }
        if (System.nanoTime() > deadline) {
          fail("the load did not finish within 3 minutes");
        }
        Thread.sleep(10);
      }
      proxy.down();
      CliRunner.Result failed = first.get(3, TimeUnit.MINUTES);
      assertThat(failed.exitCode()).as(failed.out() + failed.err())
          .isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
      assertThat(failed.err()).as(failed.out() + failed.err()).contains("--resume").doesNotContain("\tat ");
      assertThat(failed.out()).doesNotContain("verified: all match");

      proxy.up();
      List<String> resume = new ArrayList<>(args);
      resume.add("--resume");
      CliRunner.Result resumed = MigrateSupport.cli(resume);
      assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
      assertThat(resumed.out()).contains("1 table(s) verified: all match.");
      System.out.printf("TargetLostAfterLoadIT: stopped with \"%s\"%n", lastLine(failed.err()));
    }
    assertThat(spannerLong(spanner.client(), "SELECT COUNT(*) FROM items"))
        .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM items"));
    assertThat(spannerLong(spanner.client(), "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES "
        + "WHERE TABLE_NAME = 'items' AND INDEX_NAME = 'items_c_idx'")).isEqualTo(1);
  }

  /** Every piece the load cut is checkpointed as done. */
  private static boolean loaded(Path run) {
    try {
      Checkpoint.State state = Checkpoint.read(run);
      return state.savedPieces().isPresent() && state.done() == state.savedPieces().get().size();
    } catch (RuntimeException e) {
      return false; // written while read
    }
  }

  private static String lastLine(String text) {
    String[] lines = text.strip().split("\n");
    return lines[lines.length - 1];
  }
}
