package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's main job: the demo builds its sample database and runs every command against the emulator. */
@WithPostgres
@WithSpannerEmulator
class DemoIT {

  @Test
  void demoCreatesTheSampleDatabaseAndRunsEveryStep(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    String sample = pg.name() + "_demo";
    try {
      CliRunner.Result r = CliRunner.withEnv(Map.of()).run("demo", "--server", pg.jdbcUrl(), "--database", sample,
          "--emulator", spanner.emulatorHost(), "--out", out.toString());
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("pg2spanner check").contains("Ready").contains("pg2spanner plan")
          .contains("pg2spanner migrate").contains("pg2spanner verify").contains("Demo complete");
      try (var c = java.sql.DriverManager.getConnection(pg.jdbcUrl().replace(pg.name(), sample));
          var s = c.createStatement();
          var rs = s.executeQuery("SELECT (SELECT count(*) FROM orders) AS orders, "
              + "(SELECT count(*) FROM order_items) AS items, (SELECT count(*) FROM page_views) AS views")) {
        rs.next();
        assertThat(rs.getLong("orders")).isEqualTo(20_000);
        assertThat(rs.getLong("items")).isEqualTo(50_000);
        assertThat(rs.getLong("views")).isEqualTo(10_000);
      }
    } finally {
      pg.execute("DROP DATABASE IF EXISTS " + sample + " WITH (FORCE)");
    }
  }

  @Test
  void withNoPostgresAnsweringTheDemoRunsOnAnEmbeddedServerIntoThePostgresDialect(SpannerTestDatabase spanner,
      @TempDir Path out) {
    // Port 1 on this host: nothing listens there, as on a machine with no PostgreSQL service.
    CliRunner.Result r = CliRunner.withEnv(Map.of()).run("demo", "--server",
        "jdbc:postgresql://127.0.0.1:1/postgres?user=postgres", "--emulator", spanner.emulatorHost(), "--out",
        out.toString(), "--dialect", "postgresql");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("No PostgreSQL answers at 127.0.0.1:1").contains("embedded PostgreSQL")
        .contains("--dialect postgresql").contains("databases/shop-pg").contains("all match")
        .contains("Demo complete");
    var client = spanner.spanner().getDatabaseClient(com.google.cloud.spanner.DatabaseId.of("pg2spanner-demo",
        "demo-instance", "shop-pg"));
    assertThat(client.getDialect()).isEqualTo(com.google.cloud.spanner.Dialect.POSTGRESQL);
  }

  @Test
  void aRepeatedDemoReplacesItsOwnDatabaseAndOutput(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    String sample = pg.name() + "_again";
    try {
      for (int run = 1; run <= 2; run++) {
        CliRunner.Result r = CliRunner.withEnv(Map.of()).run("demo", "--server", pg.jdbcUrl(), "--database", sample,
            "--emulator", spanner.emulatorHost(), "--out", out.toString());
        assertThat(r.exitCode()).as("run " + run + ": " + r.out() + r.err()).isZero();
      }
    } finally {
      pg.execute("DROP DATABASE IF EXISTS " + sample + " WITH (FORCE)");
    }
  }
}
