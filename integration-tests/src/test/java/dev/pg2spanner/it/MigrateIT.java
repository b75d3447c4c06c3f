package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5 end to end: plan and migrate real schemas with real rows onto the emulator; migrate's own verify (counts and
 * checksums of every value as Spanner holds it) must report every table equal, and the counts are checked again here.
 */
class MigrateIT {

  static CliRunner.Result planAndMigrate(PgTestDatabase pg, SpannerTestDatabase spanner, Path out) {
    CliRunner cli = CliRunner.withEnv(Map.of());
    CliRunner.Result plan = cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString(), "--low-write-threshold",
        "0");
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
    return cli.run("migrate", "--plan", out.resolve("plan.yaml").toString(), "--source", pg.jdbcUrl(), "--target",
        spanner.path(), "--emulator", spanner.emulatorHost(), "--workers", "4", "--progress-interval", "30");
  }

  static long spannerCount(SpannerTestDatabase spanner, String table) {
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT COUNT(*) FROM " + table))) {
      rs.next();
      return rs.getLong(0);
    }
  }

  static long pgCount(PgTestDatabase pg, String table) throws Exception {
    return ((Number) pg.queryValue("SELECT count(*) FROM " + table)).longValue();
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class Pagila {

    @Test
    void pagilaWithGeneratedRowsMigratesAndVerifies(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path out)
        throws Exception {
      pg.execute(Files.readString(Fixtures.pagilaSchema()));
      pg.execute(Fixtures.resource("fixtures/pagila-data.sql"));
      CliRunner.Result r = planAndMigrate(pg, spanner, out);
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("== 4/4 verify").contains("all match");
      for (String table : List.of("actor", "film", "film_actor", "customer", "rental", "payment", "staff")) {
        assertThat(spannerCount(spanner, table)).as(table).isEqualTo(pgCount(pg, "public." + table));
      }

      // The run summary page, with this run's real figures.
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^Run summary: (.+)$").matcher(r.out());
      assertThat(m.find()).as(r.out()).isTrue();
      org.jsoup.nodes.Document page = org.jsoup.Jsoup.parse(Path.of(m.group(1).trim()).toFile(), "UTF-8");
      assertThat(page.select("#phases td").eachText()).contains("1/4 tables", "2/4 load",
          "3/4 indexes, foreign keys, checks", "4/4 verify");
      String rental = String.format(java.util.Locale.ROOT, "%,d", pgCount(pg, "public.rental"));
      assertThat(page.select("#tables tr:contains(rental) td").eachText()).contains("rental", rental);
      assertThat(page.select("#verify tr:contains(rental) td").eachText()).containsExactly("rental", rental, rental,
          "equal");
      assertThat(page.select(".tile dd").eachText()).contains("completed", "equal");
    }
  }

  @Nested
  @WithPostgres
  class OwnEmulator {

    @Test
    void emulatorWithNoValueStartsTheInstalledOneForTheRun(PgTestDatabase pg, @TempDir Path out) throws Exception {
      pg.execute("CREATE TABLE notes (id bigserial PRIMARY KEY, body text)",
          "INSERT INTO notes (body) SELECT 'n' || g FROM generate_series(1, 500) g", "ANALYZE");
      CliRunner cli = CliRunner.withEnv(Map.of());
      assertThat(cli.run("plan", "--source", pg.jdbcUrl(), "--out", out.toString()).exitCode()).isZero();
      CliRunner.Result r = cli.run("migrate", "--plan", out.resolve("plan.yaml").toString(), "--source", pg.jdbcUrl(),
          "--target", "projects/p/instances/scratch/databases/notes", "--emulator");
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("started the Spanner emulator at 127.0.0.1:").contains("all match");
    }
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class LoadFixture {

    @Test
    void twoHundredThousandRowsWithHierarchyNullsAndLimitValuesArriveIntact(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
      pg.execute(Fixtures.resource("fixtures/load-fixture.sql"));
      CliRunner.Result r = planAndMigrate(pg, spanner, out);
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("== 4/4 verify").contains("all match");
      assertThat(spannerCount(spanner, "order_lines")).isEqualTo(120_000);
      assertThat(spannerCount(spanner, "orders")).isEqualTo(60_000);
      assertThat(spannerCount(spanner, "audit_events")).isEqualTo(20_002);
      try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of(
          "SELECT CHAR_LENGTH(big_text) AS t, BYTE_LENGTH(big_bytes) AS b, CAST(amount AS STRING) AS a "
              + "FROM extremes WHERE id = 1"))) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong("t")).isEqualTo(2_500_000);
        assertThat(rs.getLong("b")).isEqualTo(9L * 1024 * 1024);
        assertThat(rs.getString("a")).isEqualTo("99999999999999999999999999999.999999999");
      }
    }
  }
}
