package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
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

/**
 * Issue 27: with tables {@code orders}, {@code "Orders"} and {@code "ORDERS"} (and columns {@code order},
 * {@code "ORDER"}, {@code "Order"}), the names an unquoted identifier reaches in PostgreSQL keep their names in
 * Spanner, in both dialects, so the application's unchanged queries read the same table and column.
 */
@WithPostgres
@WithSpannerEmulator
class NameCollisionIT {

  private static final CliRunner CLI = CliRunner.withEnv(Map.of());

  @Test
  void unchangedQueriesReachTheSameTableAndColumnInBothDialects(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE SCHEMA shop",
        "CREATE TABLE shop.\"ORDERS\" (id int PRIMARY KEY)", "INSERT INTO shop.\"ORDERS\" SELECT generate_series(1, 7)",
        "CREATE TABLE shop.\"Orders\" (id int PRIMARY KEY)", "INSERT INTO shop.\"Orders\" SELECT generate_series(1, 5)",
        "CREATE TABLE shop.orders (id int PRIMARY KEY)", "INSERT INTO shop.orders SELECT generate_series(1, 3)",
        // The quoted columns are older than the plain one.
        "CREATE TABLE shop.readings (id int PRIMARY KEY, \"ORDER\" int, \"Order\" int, \"order\" int)",
        "INSERT INTO shop.readings VALUES (1, 100, 10, 1)", "ANALYZE");
    for (String dialect : new String[] {"googlesql", "postgresql"}) {
      Path out = dir.resolve(dialect);
      CliRunner.Result plan = CLI.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--schemas", "shop",
          "--no-named-schemas", "--dialect", dialect);
      assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
      assertThat(Files.readString(out.resolve("report.md"))).contains("shop_ORDERS_2").contains("shop_Orders_3");

      String database = "names-" + dialect.substring(0, 6);
      String target = spanner.id().getInstanceId().getName() + "/databases/" + database;
      CliRunner.Result migrate = CLI.run(migrateArgs(out.resolve("plan.yaml"), pg, target, spanner.emulatorHost(),
          dir.resolve("run-" + dialect)).toArray(String[]::new));
      assertThat(migrate.exitCode()).as(migrate.out() + migrate.err()).isZero();

      DatabaseClient client = spanner.spanner().getDatabaseClient(DatabaseId.of(spanner.id().getInstanceId(),
          database));
      boolean google = dialect.equals("googlesql");
      // The application's queries, unchanged: the plain table and the plain (reserved) column.
      assertThat(MigrateSupport.spannerLong(client, "SELECT COUNT(*) FROM shop_orders")).as(dialect).isEqualTo(3);
      assertThat(MigrateSupport.spannerLong(client, google ? "SELECT `order` FROM shop_readings WHERE id = 1"
          : "SELECT \"order\" FROM shop_readings WHERE id = 1")).as(dialect).isEqualTo(1);
      // The quoted ones are renamed, and still hold their own rows.
      assertThat(MigrateSupport.spannerLong(client, google ? "SELECT COUNT(*) FROM shop_ORDERS_2"
          : "SELECT COUNT(*) FROM \"shop_ORDERS_2\"")).as(dialect).isEqualTo(7);
      assertThat(MigrateSupport.spannerLong(client, google ? "SELECT COUNT(*) FROM shop_Orders_3"
          : "SELECT COUNT(*) FROM \"shop_Orders_3\"")).as(dialect).isEqualTo(5);
      assertThat(MigrateSupport.spannerLong(client, google ? "SELECT ORDER_2 FROM shop_readings WHERE id = 1"
          : "SELECT \"ORDER_2\" FROM shop_readings WHERE id = 1")).as(dialect).isEqualTo(100);
    }
  }
}
