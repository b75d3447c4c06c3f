package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.cloud.spanner.DatabaseClient;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: what the change stream does not show — tables and indexes created or dropped on the source while it
 * streams — is found by comparing the catalog with the plan (on a timer and at cutover) and followed: a new table is
 * planned by the planner's rules, created in Spanner, its rows copied from a snapshot and its changes streamed from
 * there; a dropped one is dropped in Spanner after its last changes; indexes are created and dropped. What cannot be
 * followed (a new table PostgreSQL cannot identify rows of) stops the stream naming the table, and the way on it names
 * works.
 */
class LiveCatalogChangeIT {

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class Followed {

    @Test
    void tablesAndIndexesCreatedAndDroppedWhileAWorkloadRunsEndExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      followsTablesAndIndexes(pg, dir, Target.googleSql(spanner));
    }
  }

  /** The same in the PostgreSQL dialect: its catalog names schema {@code public}, not GoogleSQL's empty name. */
  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class FollowedInThePostgresDialect {

    @Test
    void tablesAndIndexesCreatedAndDroppedWhileAWorkloadRunsEndExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      followsTablesAndIndexes(pg, dir, Target.postgres(spanner, "catalog-pg"));
    }
  }

  /** Where the run writes, how it is planned for, and how its catalog is asked. */
  private record Target(String path, String emulatorHost, Supplier<DatabaseClient> client, String schema,
      boolean postgres) {
    static Target googleSql(SpannerTestDatabase spanner) {
      return new Target(spanner.path(), spanner.emulatorHost(), spanner::client, "", false);
    }

    /** A database migrate creates: its client is made when first asked, after it exists. */
    static Target postgres(SpannerTestDatabase spanner, String database) {
      return new Target(PostgresDialectIT.target(spanner, database), spanner.emulatorHost(),
          () -> PostgresDialectIT.client(spanner, database), "public", true);
    }

    Path plan(PgTestDatabase pg, Path out) {
      return postgres ? PostgresDialectIT.planPostgres(pg, out) : MigrateSupport.plan(pg, out);
    }

    long count(String sql) {
      return spannerLong(client.get(), sql);
    }

    boolean tableExists(String table) {
      return count("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '" + schema + "' AND "
          + "TABLE_NAME = '" + table + "'") > 0;
    }

    long indexes(String table) {
      return count("SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = '" + schema + "' AND "
          + "TABLE_NAME = '" + table + "' AND INDEX_TYPE = 'INDEX'");
    }

    boolean indexedColumn(String table, String column) {
      return count("SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_SCHEMA = '" + schema + "' AND "
          + "TABLE_NAME = '" + table + "' AND INDEX_TYPE = 'INDEX' AND COLUMN_NAME = '" + column + "'") > 0;
    }
  }

  private static void followsTablesAndIndexes(PgTestDatabase pg, Path dir, Target spanner) throws Exception {
    LiveWorkload.createSchema(pg);
    pg.execute("CREATE INDEX tags_label ON tags (label)", "ANALYZE");
    Path plan = spanner.plan(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1",
            "--verify-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    assertThat(spanner.indexes("tags")).isEqualTo(1);

    try (LiveWorkload workload = new LiveWorkload(pg).start()) {
      pg.execute(
          // A new table with rows from before it was streamed, and an index.
          "CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint NOT NULL, amount numeric(12,2), "
              + "note varchar(40))",
          "INSERT INTO orders SELECT g, g % 400 + 1, g * 2.5, 'before' FROM generate_series(1, 300) g",
          "CREATE INDEX orders_account ON orders (account_id)",
          // An index created and one dropped on planned tables.
          "CREATE INDEX accounts_name ON accounts (name)",
          "DROP INDEX tags_label",
          // A planned table dropped.
          "DROP TABLE scratch");
      await(migrate, "orders and the index on accounts in Spanner", () -> spanner.tableExists("orders")
          && spanner.indexedColumn("accounts", "name") && spanner.indexes("tags") == 0
          && !spanner.tableExists("scratch"));
      // Its changes after the copy are streamed.
      pg.execute("INSERT INTO orders SELECT g, 1, 1, 'after' FROM generate_series(301, 350) g",
          "UPDATE orders SET note = 'updated', amount = amount + 1 WHERE id <= 20",
          "DELETE FROM orders WHERE id BETWEEN 100 AND 119");
      // A table created just before cutover: cutover's own catalog comparison follows it.
      pg.execute("CREATE TABLE late (id int PRIMARY KEY, v text)",
          "INSERT INTO late SELECT g, 'l' || g FROM generate_series(1, 10) g");
      workload.run(50);
    }

    CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
    CliRunner.Result migrated;
    try {
      migrated = migrate.get(5, TimeUnit.MINUTES);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("migrate --live did not end after cutover (exit " + cutover.exitCode() + "):\n"
          + cutover.out() + cutover.err(), e);
    }
    assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + migrated.out()
        + migrated.err()).isZero();
    assertThat(migrated.out()).contains("table public.orders created: planned as orders")
        .contains("300 row(s) copied").contains("index accounts_name of public.accounts created")
        .contains("index tags_label of public.tags dropped").contains("table public.scratch dropped")
        .contains("table public.late created");

    assertThat(spanner.count("SELECT COUNT(*) FROM orders")).isEqualTo(pgLong(pg,
        "SELECT COUNT(*) FROM orders")).isEqualTo(330);
    assertThat(spanner.count("SELECT COUNT(*) FROM orders WHERE note = 'updated'")).isEqualTo(20);
    assertThat(spanner.count("SELECT COUNT(*) FROM late")).isEqualTo(10);
    assertThat(spanner.indexedColumn("orders", "account_id")).as("the new table's index").isTrue();
    assertThat(spanner.indexedColumn("accounts", "name")).as("the index created on a planned table").isTrue();
    assertThat(spanner.indexes("tags")).as("the index dropped").isZero();
    assertThat(spanner.tableExists("scratch")).as("the table dropped").isFalse();
    for (String table : List.of("accounts", "entries", "tags", "audit")) {
      assertThat(spanner.count("SELECT COUNT(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
    }
    // Recorded: a Flyway version and a plan revision that holds the new tables and not the dropped one.
    assertThat(spanner.count("SELECT COUNT(*) FROM flyway_schema_history WHERE version >= '5' AND success"))
        .isPositive();
    String revision = LiveState.read(run).orElseThrow().planRevision();
    assertThat(Files.readString(run.resolve(revision))).contains("source: public.orders")
        .contains("source: public.late").doesNotContain("source: public.scratch");
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class NotFollowed {

    @Test
    void aNewTableWithoutAKeyStopsTheStreamAndTheWayOnItNamesWorks(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL)",
          "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g", "ANALYZE");
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--progress-interval", "1",
              "--verify-interval", "1")));
      LiveMigrateIT.awaitStreaming(run, migrate);
      pg.execute("INSERT INTO items VALUES (101, 'before')",
          "CREATE TABLE notes (id int NOT NULL, body text)",
          "INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 20) g");

      CliRunner.Result stopped = migrate.get(3, TimeUnit.MINUTES);
      assertThat(stopped.exitCode()).as(stopped.out() + stopped.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
      assertThat(stopped.err()).contains("the source table public.notes changed")
          .contains("without a primary key or replica identity").contains("ADD PRIMARY KEY")
          .contains("migrate --live --resume").doesNotContain("\tat ");
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items WHERE id = 101")).isEqualTo(1);
      assertThat(Target.googleSql(spanner).tableExists("notes")).isFalse();

      // The way on the message names: a key on the source, then --resume.
      pg.execute("ALTER TABLE notes ADD PRIMARY KEY (id)", "INSERT INTO items VALUES (102, 'while stopped')");
      CompletableFuture<CliRunner.Result> resumed = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
          migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live", "--resume",
              "--progress-interval", "1", "--verify-interval", "1")));
      await(resumed, "notes in Spanner", () -> Target.googleSql(spanner).tableExists("notes"));
      pg.execute("INSERT INTO notes VALUES (21, 'after')", "UPDATE notes SET body = 'changed' WHERE id <= 5",
          "DELETE FROM notes WHERE id = 20");

      CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
      CliRunner.Result done = resumed.get(5, TimeUnit.MINUTES);
      assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + "\n--- migrate:\n" + done.out()
          + done.err()).isZero();
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM notes")).isEqualTo(20);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM notes WHERE body = 'changed'")).isEqualTo(5);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM items")).isEqualTo(102);
    }
  }

  private static void await(CompletableFuture<CliRunner.Result> migrate, String what, BooleanSupplier done)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (!done.getAsBoolean()) {
      if (migrate.isDone()) {
        CliRunner.Result r = migrate.get();
        fail("migrate --live ended (exit " + r.exitCode() + ") before " + what + ":\n" + r.out() + r.err());
      }
      if (System.nanoTime() > deadline) {
        fail("no " + what + " within 3 minutes");
      }
      Thread.sleep(250);
    }
  }
}
