package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.schema.FlywayMigrator;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: the schema phases go out as batched requests. A batch that Spanner rejects at statement k names that
 * statement and keeps the ones before it; {@code --resume} sends only what is missing and Flyway's history ends with
 * one row per version. An emulator that stops during the index phase is a bounded TARGET_CONNECTION failure.
 */
@WithPostgres
@WithSpannerEmulator
class SchemaBatchIT {

  @Test
  void aBatchRejectedInTheMiddleKeepsWhatWasAppliedAndResumeSendsOnlyTheRest(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("DROP TABLE IF EXISTS slow",
        "CREATE TABLE items (id int PRIMARY KEY, a int NOT NULL, b int NOT NULL, c int NOT NULL, d int NOT NULL)",
        "CREATE INDEX items_a_idx ON items (a)", "CREATE INDEX items_b_idx ON items (b)",
        "CREATE INDEX items_c_idx ON items (c)", "CREATE INDEX items_d_idx ON items (d)",
        "INSERT INTO items SELECT g, g, g, g % 10, g FROM generate_series(1, 2000) g", "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    String original = Files.readString(plan);
    // A person makes items_c_idx UNIQUE, but c holds duplicates: Spanner rejects that index, the third of four.
    Files.writeString(plan, uniqueIndex(original, "items_c_idx"));
    Path run = dir.resolve("run");

    CliRunner.Result failed = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run));
    assertThat(failed.exitCode()).as(failed.out() + failed.err()).isEqualTo(ExitCode.DDL_REJECTED.exitCode());
    assertThat(failed.err()).contains("V2__indexes.sql: Spanner rejected statement 3 of 4 (index items_c_idx on items)")
        .contains("2 of its 4 statements are applied and the data is loaded").contains("--resume")
        .doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(ddl(spanner)).contains("items_a_idx", "items_b_idx").doesNotContain("items_c_idx", "items_d_idx");
    assertThat(history(spanner)).containsExactly("1");

    Files.writeString(plan, original);
    CliRunner.Result resumed = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run,
        "--resume"));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    // Only the two missing indexes were sent, each named as Spanner committed it.
    assertThat(resumed.out()).contains("V2__indexes.sql (1/2) index items_c_idx on items: done")
        .contains("V2__indexes.sql (2/2) index items_d_idx on items: done")
        .contains("V2__indexes.sql: 2 statement(s) in 1 request(s)").contains("2 already present")
        .doesNotContain("index items_a_idx on items: done").contains("1 table(s) verified: all match.");
    assertThat(ddl(spanner)).contains("items_a_idx", "items_b_idx", "items_c_idx", "items_d_idx");
    assertThat(history(spanner)).containsExactly("1", "2", "3", "4");
  }

  @Test
  void theEmulatorStoppedDuringTheIndexPhaseFailsWithinAMinuteAndSaysSo(PgTestDatabase pg, @TempDir Path dir)
      throws Exception {
    pg.execute("DROP TABLE IF EXISTS items",
        "CREATE TABLE slow (id int PRIMARY KEY, a int NOT NULL, b int NOT NULL, c int NOT NULL, d text NOT NULL)");
    List<String> indexes = new ArrayList<>();
    for (String cols : List.of("a", "b", "c", "d", "a, b", "b, c", "c, d", "d, a", "a, c", "b, d", "a, b, c",
        "b, c, d")) {
      indexes.add("CREATE INDEX slow_" + cols.replace(", ", "") + "_idx ON slow (" + cols + ")");
    }
    pg.execute(indexes.toArray(String[]::new));
    pg.execute("INSERT INTO slow SELECT g, g % 1000, g % 777, g % 555, md5(g::text) FROM generate_series(1, 150000) g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    String target = "projects/pg2spanner-test/instances/schema-faults/databases/slow";
    Path run = dir.resolve("run");
    EmulatorBinaries binaries = EmulatorBinaries.locate(System.getenv()).orElseThrow();

    CliRunner.Result stopped;
    long stoppedAt;
    // A dedicated emulator: stopping the shared one would break every other test.
    try (LocalEmulator emulator = LocalEmulator.start(binaries)) {
      List<String> args = migrateArgs(plan, pg, target, emulator.hostPort(), run, "--workers", "2", "--no-verify");
      CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
      while (!loadFinished(run)) {
        assertThat(migrate).as("migrate still running when the load ends").isNotDone();
        Thread.sleep(50);
      }
      Thread.sleep(1500); // into the index request: 12 indexes over 150,000 rows take the emulator many seconds
      assertThat(migrate).as("migrate still applying V2 when the emulator stops").isNotDone();
      emulator.close();
      stoppedAt = System.nanoTime();
      stopped = migrate.get(3, TimeUnit.MINUTES);
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - stoppedAt);
    assertThat(stopped.exitCode()).as(stopped.out() + stopped.err())
        .isEqualTo(ExitCode.TARGET_CONNECTION.exitCode());
    assertThat(seconds).as("seconds from the emulator's stop to migrate's exit; " + stopped.out() + stopped.err())
        .isLessThan(60);
    assertThat(stopped.err()).contains("V2__indexes.sql: statement 1 of 12 (index slow_a_idx on slow) did not "
        + "complete").contains("stopped answering").contains("0 of its 12 statements are known to be applied and the data is loaded").contains("--resume")
        .doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(stopped.err().strip().lines().count()).as(stopped.err()).isEqualTo(1);

    // A restarted emulator holds nothing: the run cannot be resumed there, and says so.
    try (LocalEmulator fresh = LocalEmulator.start(binaries)) {
      CliRunner.Result resumed = MigrateSupport.cli(migrateArgs(plan, pg, target, fresh.hostPort(), run,
          "--resume", "--no-verify"));
      assertThat(resumed.exitCode()).as(resumed.out() + resumed.err())
          .isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(resumed.err()).contains("without --resume").doesNotContain("\tat ");
    }
  }

  private static boolean loadFinished(Path run) throws Exception {
    for (JsonNode n : MigrateSupport.jsonLines(run.resolve("progress.jsonl"))) {
      if (n.get("type").asText().equals("summary")) {
        return true;
      }
    }
    return false;
  }

  /** Sets {@code unique: true} on the index planned from source index {@code name}. */
  private static String uniqueIndex(String yaml, String name) {
    int at = yaml.indexOf("source: " + name + "\n");
    assertThat(at).as(name + " in plan.yaml").isNotNegative();
    int unique = yaml.indexOf("unique: false", at);
    assertThat(unique).as("unique: of " + name).isNotNegative();
    return yaml.substring(0, unique) + "unique: true" + yaml.substring(unique + "unique: false".length());
  }

  private static String ddl(SpannerTestDatabase spanner) {
    return String.join("\n", spanner.admin().getDatabaseDdl(spanner.id().getInstanceId().getInstance(),
        spanner.id().getDatabase()));
  }

  @Test
  void ddlBatchSizeAndConcurrencyAreTheUsersToChooseWithinWhatTheEmulatorTakes(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA batching", "CREATE TABLE batching.wide (id int PRIMARY KEY, a int, b int, c int, d int, "
        + "e int)", "CREATE INDEX wide_a ON batching.wide (a)", "CREATE INDEX wide_b ON batching.wide (b)",
        "CREATE INDEX wide_c ON batching.wide (c)", "CREATE INDEX wide_d ON batching.wide (d)",
        "CREATE INDEX wide_e ON batching.wide (e)", "INSERT INTO batching.wide SELECT g, g, g, g, g, g "
            + "FROM generate_series(1, 100) g", "ANALYZE");
    try {
      Path out = dir.resolve("plan");
      CliRunner.Result planned = PlanCommandIT.plan(pg, out, "--schemas", "batching");
      assertThat(planned.exitCode()).as(planned.out() + planned.err()).isZero();
      Path plan = out.resolve("plan.yaml");
      // Its own database: the class's other tests use the shared one.
      String target = spanner.id().getInstanceId().getName() + "/databases/batching";

      CliRunner.Result refused = MigrateSupport.cli(migrateArgs(plan, pg, target, spanner.emulatorHost(),
          dir.resolve("run-refused"), "--ddl-concurrency", "2"));
      assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(2);
      assertThat(refused.err()).contains("--ddl-concurrency 2").contains("refuses a schema change while another runs")
          .doesNotContain("\tat ");
      assertThat(refused.out()).doesNotContain("== 1/4");

      CliRunner.Result r = MigrateSupport.cli(migrateArgs(plan, pg, target, spanner.emulatorHost(),
          dir.resolve("run"), "--ddl-batch-size", "2"));
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("V2__indexes.sql: 5 statement(s) in 3 request(s)")
          .contains("1 table(s) verified: all match.");
    } finally {
      pg.execute("DROP SCHEMA batching CASCADE"); // the class's other tests plan every schema
    }
  }

  private static List<String> history(SpannerTestDatabase spanner) {
    List<String> versions = new ArrayList<>();
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT version, success FROM "
        + FlywayMigrator.HISTORY_TABLE + " ORDER BY installed_rank"))) {
      while (rs.next()) {
        assertThat(rs.getBoolean("success")).as("history row of V" + rs.getString("version")).isTrue();
        versions.add(rs.getString("version"));
      }
    }
    return versions;
  }
}
