package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: schema changes on the source while its changes stream are followed — each translated through the
 * planner's rules into Spanner DDL, applied as a new version of the target's schema history, recorded in a plan
 * revision in the run directory — and streaming goes on; a change Spanner cannot follow stops the stream before its
 * changes are applied, naming the table and the change.
 */
class LiveSchemaChangeIT {

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class Followed {

    @Test
    void columnsAddedDroppedRenamedAndWidenedWhileStreamingEndExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, name varchar(20) NOT NULL, qty int NOT NULL, "
              + "obsolete text, label text)",
          "CREATE INDEX items_obsolete ON items (obsolete)",
          "INSERT INTO items SELECT g, 'item ' || g, g, 'old ' || g, 'l' || g FROM generate_series(1, 200) g",
          "ANALYZE");
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1",
              "--verify-interval", "1")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      pg.execute(
          "INSERT INTO items VALUES (201, 'before', 1, 'x', 'y')",
          // Added without a default: existing rows hold NULL.
          "ALTER TABLE items ADD COLUMN note text",
          "UPDATE items SET note = 'noted' WHERE id <= 10",
          // Added with a constant default: PostgreSQL gives every existing row 'new'; so must Spanner.
          "ALTER TABLE items ADD COLUMN status text NOT NULL DEFAULT 'new'",
          "INSERT INTO items (id, name, qty, status) VALUES (202, 'after status', 2, 'shipped')",
          // Dropped, with the index PostgreSQL drops along with it.
          "ALTER TABLE items DROP COLUMN obsolete",
          "UPDATE items SET qty = qty + 1000 WHERE id BETWEEN 20 AND 30",
          // Widened in place: varchar(20) to varchar(60) (Spanner STRING(20) to STRING(60)), int to bigint.
          "ALTER TABLE items ALTER COLUMN name TYPE varchar(60)",
          "ALTER TABLE items ALTER COLUMN qty TYPE bigint",
          "INSERT INTO items (id, name, qty) VALUES (203, '" + "n".repeat(50) + "', 5000000000)",
          // Renamed: Spanner keeps the column's name, the stream maps the new source name to it.
          "ALTER TABLE items RENAME COLUMN label TO tag",
          "UPDATE items SET tag = 'renamed' WHERE id <= 5",
          "DELETE FROM items WHERE id BETWEEN 100 AND 109");

      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
          + migrated.err()).isZero();
      assertThat(migrated.out()).contains("live: the source table public.items changed: column note added")
          .contains("column obsolete dropped").contains("index items_obsolete dropped")
          .contains("column label renamed to tag").contains("1 table(s) verified: all match.");

      // The target has the new shape, and every value.
      assertThat(columns(spanner)).contains("note", "status", "name STRING(60)", "label").doesNotContain("obsolete",
          "tag");
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items")).isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM items"))
          .isEqualTo(193);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE status = 'new'"))
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM items WHERE status = 'new'")).isEqualTo(192);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE note = 'noted'")).isEqualTo(10);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE label = 'renamed'")).isEqualTo(5);
      assertThat(spannerLong(spanner, "SELECT qty FROM items WHERE id = 203")).isEqualTo(5_000_000_000L);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_NAME = "
          + "'items_obsolete'")).isZero();

      // Each change is a version of the target's schema history, with its script kept in the run directory.
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM flyway_schema_history WHERE version >= '5' AND "
          + "success")).isPositive();
      try (Stream<Path> scripts = Files.list(run.resolve("migrations"))) {
        assertThat(scripts.map(p -> p.getFileName().toString()).toList()).anyMatch(f -> f.matches("V5__live_items"
            + "\\.sql"));
      }
      String revision = LiveState.read(run).orElseThrow().planRevision();
      assertThat(revision).startsWith("plan-live-");
      assertThat(Files.readString(run.resolve(revision))).containsPattern("source: tag\\n\\s+sourceType: text\\n\\s+"
          + "target: label").doesNotContain("source: obsolete");
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class NotFollowed {

    @Test
    void aTypeChangeSpannerCannotMakeInPlaceStopsTheStreamNamingTableAndChange(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, qty int)",
          "INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(1, 100) g", "ANALYZE");
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      pg.execute("INSERT INTO items VALUES (101, 'before the change', 1)");
      pg.execute("ALTER TABLE items ALTER COLUMN qty TYPE text", "INSERT INTO items VALUES (102, 'after', 'seven')");

      CliRunner.Result r = migrate.get(2, TimeUnit.MINUTES);
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
      assertThat(r.err()).contains("the source table public.items changed while its changes were streamed")
          .contains("column qty changed type from integer to text").contains("cannot change in place")
          .contains("plan --replace").doesNotContain("\tat ");
      String slot = LiveState.read(run).orElseThrow().slot();
      assertThat(r.out()).contains("replication slot " + slot).contains("pg_drop_replication_slot('" + slot + "')");
      // The change before the ALTER arrived; the one after it did not.
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id = 101")).isEqualTo(1);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id = 102")).isZero();
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
          .as("the slot stays, so nothing is lost before the user decides").isEqualTo(1);
    }
  }

  /** The columns of Spanner's items table, "name TYPE" for the STRING ones with a length, else the name. */
  private static List<String> columns(SpannerTestDatabase spanner) {
    List<String> columns = new ArrayList<>();
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT COLUMN_NAME, SPANNER_TYPE "
        + "FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'items'"))) {
      while (rs.next()) {
        String type = rs.getString("SPANNER_TYPE");
        columns.add(rs.getString("COLUMN_NAME"));
        if (type.matches("STRING\\([0-9]+\\)")) {
          columns.add(rs.getString("COLUMN_NAME") + " " + type);
        }
      }
    }
    return columns;
  }
}
