package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5: migrate creates the tables (V1) before the load and the indexes (V2), foreign keys (V3) and checks (V4)
 * after it, as Flyway's history on the target and the run directory's logs show, and the finished schema holds them.
 */
@WithPostgres
@WithSpannerEmulator
class MigrateSchemaOrderIT {

  @Test
  void indexesForeignKeysAndChecksComeAfterTheData(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute(
        "CREATE TABLE customers (id bigserial PRIMARY KEY, email text NOT NULL, country text NOT NULL, "
            + "created timestamptz NOT NULL)",
        "CREATE UNIQUE INDEX customers_email_key ON customers (email)",
        "CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers (id), "
            + "total numeric(12,2) NOT NULL CONSTRAINT orders_total_positive CHECK (total >= 0), "
            + "placed_at timestamptz NOT NULL)",
        "CREATE INDEX orders_placed_at_idx ON orders (placed_at)",
        "INSERT INTO customers (email, country, created) SELECT 'c' || g || '@example.com', "
            + "CASE WHEN g % 2 = 0 THEN 'DE' ELSE 'FR' END, timestamptz '2024-01-01 00:00:00+00' + g * interval "
            + "'1 minute' FROM generate_series(1, 5000) g",
        "INSERT INTO orders (customer_id, total, placed_at) SELECT 1 + g % 5000, (g % 10000) / 100.0, "
            + "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, 20000) g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");

    CliRunner.Result r = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run,
        "--workers", "2"));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("2 table(s) verified: all match.");

    Map<String, Instant> installed = new LinkedHashMap<>();
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT version, installed_on FROM "
        + FlywayMigrator.HISTORY_TABLE + " WHERE version IS NOT NULL ORDER BY installed_rank"))) {
      while (rs.next()) {
        installed.put(rs.getString("version"), rs.getTimestamp("installed_on").toSqlTimestamp().toInstant());
      }
    }
    assertThat(installed).as("Flyway history").containsOnlyKeys("1", "2", "3", "4");

    List<JsonNode> progress = MigrateSupport.jsonLines(run.resolve("progress.jsonl"));
    JsonNode summary = progress.stream().filter(n -> n.get("type").asText().equals("summary")).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no summary in progress.jsonl"));
    assertThat(summary.get("status").asText()).isEqualTo("completed");
    Instant loadEnded = Instant.parse(summary.get("at").asText());
    List<Instant> piecesDone = MigrateSupport.jsonLines(run.resolve(Checkpoint.DONE_FILE)).stream()
        .map(n -> Instant.parse(n.get("at").asText())).sorted().toList();
    assertThat(piecesDone).isNotEmpty();

    assertThat(installed.get("1")).as("V1 (tables) before the first piece").isBefore(piecesDone.get(0));
    assertThat(piecesDone.get(piecesDone.size() - 1)).as("last piece before the load's summary")
        .isBeforeOrEqualTo(loadEnded);
    assertThat(installed.get("2")).as("V2 (indexes) after the load ended").isAfterOrEqualTo(loadEnded);
    assertThat(installed.get("3")).as("V3 (foreign keys) after V2").isAfter(installed.get("2"));
    assertThat(installed.get("4")).as("V4 (checks) after V3").isAfter(installed.get("3"));

    String ddl = String.join("\n", spanner.admin().getDatabaseDdl(spanner.id().getInstanceId().getInstance(),
        spanner.id().getDatabase()));
    assertThat(ddl)
        .containsPattern("CREATE UNIQUE (NULL_FILTERED )?INDEX \\w*customers_email_key\\w* ON customers ?\\(email\\)")
        .containsPattern("CREATE (NULL_FILTERED )?INDEX \\w*orders_placed_at_idx\\w* ON orders ?\\((placed_at_shard, )?placed_at\\)")
        .containsPattern("FOREIGN KEY ?\\(customer_id\\) REFERENCES customers ?\\(id\\)")
        .containsPattern("CHECK ?\\(.*total.*>= ?0");
  }
}
