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
}
