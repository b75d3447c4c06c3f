package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 3 end to end: plan real schemas, and the emulator accepts every generated migration through Flyway. */
class PlanCommandIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  static CliRunner.Result plan(PgTestDatabase pg, Path out, String... extra) {
    List<String> args = new ArrayList<>(List.of("plan", "--source", pg.jdbcUrl(), "--out", out.toString(),
        "--low-write-threshold", "0"));
    args.addAll(List.of(extra));
    return CliRunner.withEnv(Map.of()).run(args.toArray(String[]::new));
  }

  static List<String> findings(Path out, String code) throws Exception {
    JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
    List<String> matches = new ArrayList<>();
    for (JsonNode f : report.get("findings")) {
      if (f.get("code").asText().equals(code)) {
        matches.add(f.get("message").asText());
      }
    }
    return matches;
  }

  static void applyAll(SpannerTestDatabase spanner, Path out, Plan plan) {
    FlywayMigrator flyway = new FlywayMigrator(SpannerTarget.parse(spanner.path(), spanner.emulatorHost()),
        out.resolve("migrations"));
    assertThat(flyway.migrateTo(1)).containsExactly(1);
    assertThat(flyway.migrateTo(4)).containsExactly(2, 3, 4);
    assertThat(flyway.applied()).extracting(a -> a.version()).containsExactly(1, 2, 3, 4);
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of(
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema NOT IN ('INFORMATION_SCHEMA', 'SPANNER_SYS') "
            + "AND table_name != 'flyway_schema_history'"))) {
      rs.next();
      assertThat(rs.getLong(0)).isEqualTo(plan.tables().size());
    }
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class Pagila {

    @Test
    void planIsReviewableAndTheEmulatorAcceptsEveryMigration(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path out) throws Exception {
      pg.execute(Files.readString(Fixtures.pagilaSchema()));
      pg.execute("ANALYZE");
      CliRunner.Result r = plan(pg, out);
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("Planned").contains("report.md").contains("plan.yaml");
      for (String f : List.of("plan.yaml", "report.md", "report.html", "report.json",
          "migrations/V1__tables.sql", "migrations/V2__indexes.sql", "migrations/V3__foreign_keys.sql",
          "migrations/V4__checks.sql")) {
        assertThat(out.resolve(f)).exists();
      }
      Plan plan = PlanFiles.read(out.resolve("plan.yaml"));
      assertThat(plan.tableBySource("public.payment")).isPresent();
      assertThat(plan.tables()).noneMatch(t -> t.source().startsWith("public.payment_p"));
      assertThat(plan.tableBySource("public.film_actor").orElseThrow().interleave().parent()).isEqualTo("actor");
      assertThat(plan.tableBySource("public.film_category").orElseThrow().interleave().parent()).isEqualTo("film");
      assertThat(String.join("\n", findings(out, "NOT_MIGRATED")))
          .contains("actor_info").contains("rental_by_category").contains("last_updated").contains("film_in_stock");
      assertThat(findings(out, "PARTITIONED_TABLE")).anyMatch(m -> m.contains("public.payment"));
      assertThat(findings(out, "HOTSPOT_KEY")).anyMatch(m -> m.contains("public.customer"));
      String report = Files.readString(out.resolve("report.md"));
      assertThat(report).contains("Not migrated").contains("actor_info").contains("payment");

      applyAll(spanner, out, plan);
    }
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class CatalogZoo {

    @Test
    void everyTypeOddNameAndObjectKindIsPlannedAndAccepted(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path out) throws Exception {
      pg.execute(Fixtures.resource("fixtures/catalog-zoo.sql"));
      pg.execute("ANALYZE");
      CliRunner.Result r = plan(pg, out);
      // The zoo holds a composite column: an UNSUPPORTED_TYPE error, every file still written (exit 14).
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.PLAN_HAS_ERRORS.exitCode());
      Plan plan = PlanFiles.read(out.resolve("plan.yaml"));
      assertThat(findings(out, "NAME_CHANGED")).isNotEmpty();
      assertThat(findings(out, "NOT_MIGRATED")).isNotEmpty();
      assertThat(findings(out, "LOSSY_TYPE")).isNotEmpty();
      applyAll(spanner, out, plan);
    }
  }

  @Nested
  @WithPostgres
  class Failures {

    @Test
    void emptyDatabaseSaysThereIsNothingToMigrate(PgTestDatabase pg, @TempDir Path out) {
      CliRunner.Result r = plan(pg, out);
      assertThat(r.exitCode()).isEqualTo(ExitCode.EMPTY_SOURCE.exitCode());
      assertThat(r.err()).contains("has no tables to migrate").doesNotContain("\tat ");
    }

    @Test
    void unknownSchemaIsNamed(PgTestDatabase pg, @TempDir Path out) throws Exception {
      pg.execute("CREATE TABLE t (id int PRIMARY KEY)");
      CliRunner.Result r = plan(pg, out, "--schemas", "nope");
      assertThat(r.exitCode()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
      assertThat(r.err()).contains("schema 'nope'").doesNotContain("\tat ");
    }

    @Test
    void unreachableSourceIsOneSentence(@TempDir Path out) throws Exception {
      int port;
      try (var socket = new java.net.ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      CliRunner.Result r = CliRunner.withEnv(Map.of()).run("plan", "--source",
          "jdbc:postgresql://127.0.0.1:" + port + "/x?user=postgres", "--out", out.toString());
      assertThat(r.exitCode()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
      assertThat(r.err()).contains("cannot reach PostgreSQL").doesNotContain("\tat ");
    }

    @Test
    void roleWithoutSelectOnATableIsToldWhichTable(PgTestDatabase pg, @TempDir Path out) throws Exception {
      String role = "p2s_planner_" + Long.toHexString(System.nanoTime());
      pg.execute("CREATE TABLE open_t (id bigserial PRIMARY KEY)", "CREATE TABLE secret_t (id bigserial PRIMARY KEY)",
          "INSERT INTO secret_t DEFAULT VALUES", "CREATE ROLE " + role + " LOGIN", "GRANT SELECT ON open_t TO " + role);
      try {
        String url = pg.jdbcUrl().replaceAll("user=[^&]*", "user=" + role);
        CliRunner.Result r = CliRunner.withEnv(Map.of()).run("plan", "--source", url, "--out", out.toString());
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
        assertThat(r.err()).contains("public.secret_t").contains("GRANT SELECT").doesNotContain("\tat ");
      } finally {
        pg.execute("DROP OWNED BY " + role, "DROP ROLE " + role);
      }
    }

    @Test
    void aBadEditToThePlanIsRejectedWithTheFieldPath(PgTestDatabase pg, @TempDir Path out) throws Exception {
      pg.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, note text)", "INSERT INTO orders (note) VALUES ('a')",
          "ANALYZE");
      assertThat(plan(pg, out).exitCode()).isZero();
      Path planFile = out.resolve("plan.yaml");
      String yaml = Files.readString(planFile);
      Files.writeString(planFile, yaml.replaceFirst("kind: \"?bit-reversed\"?", "kind: shard"));
      CliRunner.Result r = CliRunner.withEnv(Map.of()).run("migrate", "--plan", planFile.toString(), "--source",
          pg.jdbcUrl());
      assertThat(r.exitCode()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
      assertThat(r.err()).contains("tables[0].keyStrategy.kind").contains("unknown key strategy 'shard'")
          .doesNotContain("\tat ");
    }
  }
}
