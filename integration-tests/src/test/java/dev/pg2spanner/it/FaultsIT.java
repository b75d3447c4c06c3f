package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8's faults: the dead-letter file on a full disk. Each ends with its documented exit code and one sentence, no stack trace, and a state a new run can repair.
 */
@WithPostgres
@WithSpannerEmulator
class FaultsIT {

  @Test
  void aFullDiskForTheDeadLetterFileIsLocalIoNamingTheFile(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE events (id int PRIMARY KEY, at timestamp)",
        "INSERT INTO events SELECT g, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 100) g",
        "UPDATE events SET at = 'infinity' WHERE id = 50", "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    // Back to TIMESTAMP, as the plan's warning allows: the infinity row must now go to the dead-letter file.
    MigrateSupport.editColumn(plan, "public.events", "at", "TIMESTAMP", "TIMESTAMP_WALL_CLOCK_AS_UTC");

    CliRunner.Result r = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run"), "--max-bad-rows", "10", "--dead-letter", "/dev/full"));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ErrorCode.LOCAL_IO.exitCode());
    assertThat(r.err()).contains("dead-letter file /dev/full").doesNotContain("\tat ").doesNotContain("Exception");
  }
}
