package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseId;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 27: report.md's "Not migrated" says what is true about tables left out and about foreign partitions. */
@WithPostgres
@WithSpannerEmulator
class NotMigratedIT {

  private static final CliRunner CLI = CliRunner.withEnv(Map.of());

  @Test
  void tablesLeftOutByExcludeTablesAreListed(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA trimmed", "CREATE TABLE trimmed.keep (id int PRIMARY KEY)",
        "CREATE TABLE trimmed.scratch_a (id int PRIMARY KEY)", "CREATE TABLE trimmed.scratch_b (id int PRIMARY KEY)",
        "ANALYZE");
    Path out = dir.resolve("plan");
    CliRunner.Result plan = CLI.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--schemas", "trimmed",
        "--exclude-tables", "scratch_");
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
    String report = Files.readString(out.resolve("report.md"));
    String notMigrated = report.substring(report.indexOf("## Not migrated"));
    assertThat(notMigrated).doesNotStartWith("## Not migrated\n\nNothing")
        .contains("trimmed.scratch_a").contains("trimmed.scratch_b").contains("--exclude-tables 'scratch\\_'")
        .doesNotContain("trimmed.keep");
  }

  @Test
  void aForeignPartitionsRowsAreLoadedAndTheReportSaysSo(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA remote", "CREATE TABLE remote.archive (id int NOT NULL, at date NOT NULL)",
        "INSERT INTO remote.archive SELECT g, date '2023-06-01' FROM generate_series(1, 40) g",
        "CREATE EXTENSION IF NOT EXISTS postgres_fdw",
        // A server that is this database itself: the foreign partition reads remote.archive.
        "DO $$ BEGIN EXECUTE format('CREATE SERVER loopback FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host %L, "
            + "port %L, dbname %L)', '127.0.0.1', current_setting('port'), current_database()); "
            + "EXECUTE format('CREATE USER MAPPING FOR CURRENT_USER SERVER loopback OPTIONS (user %L)', current_user); "
            + "END $$",
        "CREATE TABLE remote.events (id int NOT NULL, at date NOT NULL) PARTITION BY RANGE (at)",
        "CREATE TABLE remote.events_2024 PARTITION OF remote.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
        "INSERT INTO remote.events SELECT g, date '2024-03-01' FROM generate_series(1, 60) g",
        "CREATE FOREIGN TABLE remote.events_2023 PARTITION OF remote.events FOR VALUES FROM ('2023-01-01') "
            + "TO ('2024-01-01') SERVER loopback OPTIONS (schema_name 'remote', table_name 'archive')",
        "ANALYZE");
    Path out = dir.resolve("plan");
    CliRunner.Result plan = CLI.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--schemas", "remote",
        "--exclude-tables", "archive");
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isIn(0, 14);
    String report = Files.readString(out.resolve("report.md"));
    assertThat(report).contains("remote.events_2023").contains("Its rows ARE migrated")
        .contains("a partition of remote.events");

    String target = spanner.id().getInstanceId().getName() + "/databases/remote";
    CliRunner.Result migrate = CLI.run(migrateArgs(out.resolve("plan.yaml"), pg, target, spanner.emulatorHost(),
        dir.resolve("run")).toArray(String[]::new));
    assertThat(migrate.exitCode()).as(migrate.out() + migrate.err()).isZero();
    assertThat(MigrateSupport.spannerLong(spanner.spanner().getDatabaseClient(DatabaseId.of(
        spanner.id().getInstanceId(), "remote")), "SELECT COUNT(*) FROM remote.events")).as("both partitions' rows")
        .isEqualTo(100);
  }
}
