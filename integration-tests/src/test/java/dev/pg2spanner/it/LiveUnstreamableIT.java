package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27: planned relations logical replication cannot stream (an unlogged table, an unlogged partition) are named
 * by {@code check --live} with the fixes, and {@code migrate --live} refuses them (exit 12) before anything changes:
 * no database, no V1, no slot, no publication. A materialized view, which plan never plans, is no reason to refuse.
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveUnstreamableIT {

  @Test
  void unloggedRelationsAreNamedWithTheirFixesAndRefusedBeforeAnythingChanges(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL)",
        "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g",
        "CREATE UNLOGGED TABLE sessions (id bigint PRIMARY KEY, token text)",
        "INSERT INTO sessions VALUES (1, 't')",
        "CREATE TABLE readings (id bigint NOT NULL, at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
        "CREATE TABLE readings_2024 PARTITION OF readings FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
        "CREATE UNLOGGED TABLE readings_2025 PARTITION OF readings FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
        "INSERT INTO readings VALUES (1, '2024-06-01'), (2, '2025-06-01')",
        "CREATE MATERIALIZED VIEW item_names AS SELECT name FROM items",
        "ANALYZE");

    CliRunner.Result check = MigrateSupport.cli(List.of("check", "--source", pg.jdbcUrl(), "--live"));
    assertThat(check.exitCode()).as(check.out() + check.err()).isEqualTo(ExitCode.SOURCE_NOT_READY.exitCode());
    assertThat(check.out()).contains("FAIL  streamable")
        .contains("public.sessions (an unlogged table)").contains("`ALTER TABLE public.sessions SET LOGGED;`")
        .contains("plan --exclude-tables '^public\\.sessions$'")
        .contains("public.readings_2025 (an unlogged partition of public.readings)")
        .contains("`ALTER TABLE public.readings_2025 SET LOGGED;`")
        .doesNotContain("item_names");

    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    CliRunner.Result checkPlan = MigrateSupport.cli(List.of("check", "--source", pg.jdbcUrl(), "--live", "--plan",
        plan.toString()));
    assertThat(checkPlan.exitCode()).as(checkPlan.out()).isEqualTo(ExitCode.SOURCE_NOT_READY.exitCode());
    assertThat(checkPlan.out()).contains("public.sessions (an unlogged table)")
        .contains("public.readings_2025 (an unlogged partition of public.readings)");

    String database = "unstreamable";
    String target = spanner.id().getInstanceId().getName() + "/databases/" + database;
    Path run = dir.resolve("run");
    CliRunner.Result migrate = MigrateSupport.cli(migrateArgs(plan, pg, target, spanner.emulatorHost(), run,
        "--live"));
    assertThat(migrate.exitCode()).as(migrate.out() + migrate.err())
        .isEqualTo(ExitCode.SOURCE_NOT_READY.exitCode());
    assertThat(migrate.err()).contains("nothing was changed on the source or the target")
        .contains("public.sessions (an unlogged table)").contains("SET LOGGED")
        .contains("public.readings_2025 (an unlogged partition of public.readings)")
        .doesNotContain("CREATE PUBLICATION").doesNotContain("\tat ");
    assertThat(migrate.out()).doesNotContain("== 1/4");
    assertThat(databaseExists(spanner, database)).as("no database was created").isFalse();
    assertThat(MigrateSupport.pgLong(pg, "SELECT COUNT(*) FROM pg_publication")).isZero();
    assertThat(MigrateSupport.pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE database = current_database()")).isZero();
    assertThat(run.resolve(RunFiles.LIVE_STATE)).doesNotExist();

    // Fixed as the message says; the materialized view stays and stops nothing.
    pg.execute("ALTER TABLE sessions SET LOGGED", "ALTER TABLE readings_2025 SET LOGGED");
    CliRunner.Result ready = MigrateSupport.cli(List.of("check", "--source", pg.jdbcUrl(), "--live"));
    assertThat(ready.exitCode()).as(ready.out() + ready.err()).isZero();
    assertThat(ready.out()).contains("OK    streamable").contains("Ready");
  }

  private static boolean databaseExists(SpannerTestDatabase spanner, String database) {
    try {
      spanner.spanner().getDatabaseAdminClient().getDatabase(spanner.id().getInstanceId().getInstance(), database);
      return true;
    } catch (com.google.cloud.spanner.SpannerException e) {
      return false;
    }
  }
}
