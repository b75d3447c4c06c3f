package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: a source that cannot stream (the machine's shared server runs with wal_level = replica) is refused
 * before anything changes on the source or the target, naming what to fix; check says the same as a warning, and
 * as a failure with --live.
 */
@WithPostgres
@WithSpannerEmulator
class LiveRefusalIT {

  @Test
  void aSourceWithoutLogicalDecodingIsRefusedBeforeTheTargetIsTouched(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text)", "INSERT INTO items VALUES (1, 'a')",
        "CREATE TABLE notes (body text)");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");

    CliRunner.Result r = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run,
        "--live"));
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.SOURCE_NOT_READY.exitCode());
    assertThat(r.err()).contains("not ready for a live migration (nothing was changed on the source or the target)")
        .contains("wal_level = replica").contains("ALTER SYSTEM SET wal_level = logical")
        // The table without a key is named with the fix.
        .contains("public.notes").contains("REPLICA IDENTITY FULL")
        .doesNotContain("\tat ");
    assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ''"))
        .as("no table was created on the target").isZero();
    assertThat(MigrateSupport.pgLong(pg, "SELECT COUNT(*) FROM pg_publication")).isZero();
    assertThat(Files.exists(run.resolve("live.json"))).isFalse();

    CliRunner.Result check = MigrateSupport.cli(List.of("check", "--source", pg.jdbcUrl()));
    assertThat(check.exitCode()).as(check.out()).isZero();
    assertThat(check.out()).contains("Live migration (migrate --live)").contains("migrate --live would refuse")
        .contains("wal_level");
    CliRunner.Result checkLive = MigrateSupport.cli(List.of("check", "--source", pg.jdbcUrl(), "--live"));
    assertThat(checkLive.exitCode()).as(checkLive.out()).isEqualTo(ExitCode.SOURCE_NOT_READY.exitCode());
    assertThat(checkLive.out()).contains("Not ready");
  }
}
