package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.cloud.spanner.DatabaseClient;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 in the PostgreSQL dialect (LiveCatalogChangeIT is the GoogleSQL twin): a table created while streaming is
 * planned, created in the PostgreSQL-dialect target with its rows copied and its changes streamed; indexes created
 * and dropped, a planned table dropped, a table created just before cutover — all found in that dialect's catalog
 * (information_schema in schema {@code public}, not GoogleSQL's empty schema name).
 */
@WithLogicalPostgres
@WithSpannerEmulator
class LiveCatalogChangePostgresIT {

  private static final String DATABASE = "catalog-pg";

  @Test
  void tablesAndIndexesCreatedAndDroppedWhileStreamingIntoThePostgresDialectEndExact(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    LiveWorkload.createSchema(pg);
    pg.execute("CREATE INDEX tags_label ON tags (label)", "ANALYZE");
    Path plan = PostgresDialectIT.planPostgres(pg, dir.resolve("plan"));
    Path run = dir.resolve("run");
    CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
        migrateArgs(plan, pg, PostgresDialectIT.target(spanner, DATABASE), spanner.emulatorHost(), run, "--live",
            "--progress-interval", "1", "--verify-interval", "1")));
    LiveMigrateIT.awaitStreaming(run, migrate);
    DatabaseClient client = PostgresDialectIT.client(spanner, DATABASE);
    assertThat(indexes(client, "tags")).isEqualTo(1);

    try (LiveWorkload workload = new LiveWorkload(pg).start()) {
      pg.execute(
          "CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint NOT NULL, amount numeric(12,2), "
              + "note varchar(40))",
          "INSERT INTO orders SELECT g, g % 400 + 1, g * 2.5, 'before' FROM generate_series(1, 300) g",
          "CREATE INDEX orders_account ON orders (account_id)",
          "CREATE INDEX accounts_name ON accounts (name)",
          "DROP INDEX tags_label",
          "DROP TABLE scratch");
      await(migrate, "orders and the index on accounts in Spanner", () -> tableExists(client, "orders")
          && indexedColumn(client, "accounts", "name") && indexes(client, "tags") == 0
          && !tableExists(client, "scratch"));
      pg.execute("INSERT INTO orders SELECT g, 1, 1, 'after' FROM generate_series(301, 350) g",
          "UPDATE orders SET note = 'updated', amount = amount + 1 WHERE id <= 20",
          "DELETE FROM orders WHERE id BETWEEN 100 AND 119");
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
    assertThat(spannerLong(client, "SELECT count(*) FROM orders")).isEqualTo(pgLong(pg,
        "SELECT count(*) FROM orders")).isEqualTo(330);
    assertThat(spannerLong(client, "SELECT count(*) FROM orders WHERE note = 'updated'")).isEqualTo(20);
    assertThat(spannerLong(client, "SELECT count(*) FROM late")).isEqualTo(10);
    assertThat(indexedColumn(client, "orders", "account_id")).as("the new table's index").isTrue();
    assertThat(indexedColumn(client, "accounts", "name")).as("the index created on a planned table").isTrue();
    assertThat(indexes(client, "tags")).as("the index dropped").isZero();
    assertThat(tableExists(client, "scratch")).as("the table dropped").isFalse();
    for (String table : List.of("accounts", "entries", "tags", "audit")) {
      assertThat(spannerLong(client, "SELECT count(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT count(*) FROM " + table));
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

  private static boolean tableExists(DatabaseClient client, String table) {
    return spannerLong(client, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND "
        + "table_name = '" + table + "'") > 0;
  }

  private static long indexes(DatabaseClient client, String table) {
    return spannerLong(client, "SELECT count(*) FROM information_schema.indexes WHERE table_schema = 'public' AND "
        + "table_name = '" + table + "' AND index_type = 'INDEX'");
  }

  private static boolean indexedColumn(DatabaseClient client, String table, String column) {
    return spannerLong(client, "SELECT count(*) FROM information_schema.index_columns WHERE table_schema = "
        + "'public' AND table_name = '" + table + "' AND index_type = 'INDEX' AND column_name = '" + column + "'") > 0;
  }
}
