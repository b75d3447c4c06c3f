package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSetMetaData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17: the same plan, migrate and verify into a Spanner database in the PostgreSQL dialect, on the emulator:
 * Pagila (bit-reversed keys, an interleaved hierarchy, a hash-sharded table, numeric, arrays, enums), the
 * hard-values fixture (numeric beyond GoogleSQL's 38 digits and NaN, jsonb, arrays, a reserved and mixed-case
 * name), the application's own queries run unchanged against both databases, and the dialect refusals.
 */
class PostgresDialectIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  static String target(SpannerTestDatabase spanner, String database) {
    return spanner.id().getInstanceId().getName() + "/databases/" + database;
  }

  static DatabaseClient client(SpannerTestDatabase spanner, String database) {
    return spanner.spanner().getDatabaseClient(DatabaseId.of(spanner.id().getInstanceId(), database));
  }

  static Path planPostgres(PgTestDatabase pg, Path out, String... extra) {
    List<String> args = new ArrayList<>(List.of("--dialect", "postgresql"));
    args.addAll(List.of(extra));
    CliRunner.Result r = PlanCommandIT.plan(pg, out, args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.out() + r.err()).isIn(0, ExitCode.PLAN_HAS_ERRORS.exitCode());
    return out.resolve("plan.yaml");
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class Pagila {

    /** Queries an application would send, each run as is on PostgreSQL and on the PostgreSQL-dialect database. */
    private static final List<String> SAME_ROWS = List.of(
        "SELECT a.actor_id, a.first_name, a.last_name, count(*) AS films FROM actor a JOIN film_actor fa "
            + "ON fa.actor_id = a.actor_id GROUP BY a.actor_id, a.first_name, a.last_name "
            + "ORDER BY films DESC, a.actor_id LIMIT 10",
        "SELECT film_id, title, rental_rate FROM film WHERE rental_rate > 2.99 AND length > 100 "
            + "ORDER BY film_id LIMIT 20",
        // sum() over numeric would run on real Spanner; the emulator (1.5.28) crashes on it, so max() here.
        "SELECT customer_id, count(*) AS n, max(amount) AS most FROM payment WHERE amount > 5 GROUP BY customer_id "
            + "ORDER BY n DESC, customer_id LIMIT 10",
        "SELECT count(*) FROM rental WHERE return_date IS NULL",
        "SELECT f.film_id, f.special_features FROM film f WHERE f.film_id IN (1, 2, 3) ORDER BY f.film_id",
        "SELECT c.customer_id, c.email FROM customer c JOIN rental r ON r.customer_id = c.customer_id "
            + "WHERE r.rental_id = 42");

    @Test
    void pagilaMigratesVerifiesAndAnswersTheApplicationsQueries(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(Files.readString(Fixtures.pagilaSchema()));
      pg.execute(Fixtures.resource("fixtures/pagila-data.sql"));
      Path planFile = planPostgres(pg, dir.resolve("plan"));
      Plan plan = PlanFiles.read(planFile);
      assertThat(plan.target().dialect()).isEqualTo("POSTGRESQL");
      // The plan is in the dialect's own words, and keeps Pagila's designs: bit-reversed keys and interleaving.
      assertThat(plan.tableBySource("public.film").orElseThrow().column("rental_rate").orElseThrow().targetType())
          .isEqualTo("numeric");
      assertThat(plan.tableBySource("public.film_actor").orElseThrow().interleave()).isNotNull();
      assertThat(plan.tableBySource("public.actor").orElseThrow().keyStrategy().kind().json())
          .isEqualTo("bit-reversed");

      CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, target(spanner, "pagila-pg"),
          spanner.emulatorHost(), dir.resolve("run"), "--workers", "4"));
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("== 4/4 verify").contains("all match");

      DatabaseClient client = client(spanner, "pagila-pg");
      assertThat(client.getDialect()).isEqualTo(Dialect.POSTGRESQL);
      for (String table : List.of("actor", "film", "film_actor", "customer", "rental", "payment", "staff")) {
        assertThat(MigrateSupport.spannerLong(client, "SELECT count(*) FROM " + table)).as(table)
            .isEqualTo(MigrateSupport.pgLong(pg, "SELECT count(*) FROM public." + table));
      }
      // The schema history records the four phases, as Flyway would.
      try (ResultSet rs = client.singleUse().executeQuery(Statement.of(
          "SELECT version, success FROM flyway_schema_history ORDER BY installed_rank"))) {
        List<String> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(rs.getString(0) + ":" + rs.getBoolean(1));
        }
        assertThat(rows).containsExactly("1:true", "2:true", "3:true", "4:true");
      }
      // A new row takes its id from the bit-reversed sequence, above every migrated id's skip range.
      client.readWriteTransaction().run(tx -> tx.executeUpdate(Statement.of(
          "INSERT INTO actor (first_name, last_name, last_update) VALUES ('NEW', 'ACTOR', now())")));
      long newId = MigrateSupport.spannerLong(client, "SELECT actor_id FROM actor WHERE first_name = 'NEW'");
      assertThat(newId).isGreaterThan(MigrateSupport.pgLong(pg, "SELECT max(actor_id) FROM actor") + 1_000_000);

      try (Connection source = pg.connect()) {
        for (String sql : SAME_ROWS) {
          assertThat(spannerRows(client, sql)).as(sql).isEqualTo(pgRows(source, sql)).isNotEmpty();
        }
        // Enum order is the one difference the report predicts for these queries: ORDER BY rating follows the
        // label text in Spanner. The query still runs unchanged; the rows come back in another order.
        String byRating = "SELECT rating, count(*) FROM film GROUP BY rating ORDER BY rating";
        assertThat(spannerRows(client, byRating)).isNotEqualTo(pgRows(source, byRating))
            .containsExactlyInAnyOrderElementsOf(pgRows(source, byRating));
      }
      assertThat(PlanCommandIT.findings(dir.resolve("plan"), "LOSSY_TYPE"))
          .anyMatch(m -> m.contains("mpaa_rating") && m.contains("ORDER BY"));
    }
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class HardValues {

    @Test
    void everyHardValueArrivesOrIsReportedBeforeTheLoad(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(Files.readString(Path.of(PostgresDialectIT.class.getResource("/fixtures/fidelity.sql").toURI())));
      Path out = dir.resolve("plan");
      Path planFile = planPostgres(pg, out);
      Plan plan = PlanFiles.read(planFile);
      // numeric beyond GoogleSQL's 38 digits, and NaN, stay numeric here; ±Infinity still falls back to text.
      assertThat(typeOf(plan, "public.misfits", "n")).isEqualTo("numeric NUMERIC");
      assertThat(typeOf(plan, "public.numbers", "n389_nan")).isEqualTo("numeric NUMERIC");
      assertThat(typeOf(plan, "public.numbers", "n_free")).isEqualTo("varchar NUMERIC_TEXT");
      assertThat(typeOf(plan, "public.docs", "j")).isEqualTo("jsonb JSON");
      assertThat(typeOf(plan, "public.arrays", "na")).isEqualTo("numeric[] NUMERIC");

      Path deadLetter = dir.resolve("dead-letter.jsonl");
      CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, target(spanner, "hard-pg"),
          spanner.emulatorHost(), dir.resolve("run"), "--max-bad-rows", "10", "--dead-letter",
          deadLetter.toString()));
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("all match");
      // Only the value the plan named as too long for any Spanner string (an ERROR finding) is refused.
      List<JsonNode> dead = MigrateSupport.jsonLines(deadLetter);
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).get("table").asText()).isEqualTo("misfits");
      assertThat(dead.get(0).get("column").asText()).isEqualTo("huge");

      DatabaseClient client = client(spanner, "hard-pg");
      // A reserved, mixed-case column name, as the application writes it.
      assertThat(MigrateSupport.spannerLong(client, "SELECT count(\"Order\") FROM \"Mixed_Case\""))
          .isEqualTo(MigrateSupport.pgLong(pg, "SELECT count(\"Order\") FROM \"Mixed Case\""));
      // numeric values GoogleSQL cannot hold arrive as the same decimals (NaN included).
      try (Connection source = pg.connect()) {
        String sql = "SELECT id, n FROM misfits WHERE id <> 6 ORDER BY id";
        assertThat(spannerRows(client, sql)).isEqualTo(pgRows(source, sql));
      }
    }
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class Refusals {

    @Test
    void aPlanForOneDialectIsRefusedOnADatabaseOfTheOtherBeforeAnythingChanges(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      pg.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a')");
      Path planFile = planPostgres(pg, dir.resolve("plan"));
      // The extension's database is GoogleSQL and empty.
      CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
          dir.resolve("run")));
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(r.err()).contains("uses the GoogleSQL dialect, but the plan was written for the PostgreSQL dialect")
          .contains("--dialect googlesql");
      assertThat(MigrateSupport.spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES "
          + "WHERE TABLE_SCHEMA = ''")).isZero();

      // check --target --plan says the same.
      CliRunner.Result check = CliRunner.withEnv(Map.of()).run("check", "--source", pg.jdbcUrl(), "--target",
          spanner.path(), "--emulator", spanner.emulatorHost(), "--plan", planFile.toString());
      assertThat(check.exitCode()).as(check.out() + check.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(check.out()).contains("uses the GoogleSQL dialect");

      // And a GoogleSQL plan on a PostgreSQL-dialect database.
      spanner.admin().createDatabase(spanner.admin().newDatabaseBuilder(DatabaseId.of(spanner.id().getInstanceId(),
          "already-pg")).setDialect(Dialect.POSTGRESQL).build(), List.of()).get(1, TimeUnit.MINUTES);
      Path googlePlan = MigrateSupport.plan(pg, dir.resolve("google"));
      CliRunner.Result other = MigrateSupport.cli(migrateArgs(googlePlan, pg, target(spanner, "already-pg"),
          spanner.emulatorHost(), dir.resolve("run2")));
      assertThat(other.exitCode()).as(other.out() + other.err()).isEqualTo(ExitCode.TARGET_CONFLICT.exitCode());
      assertThat(other.err()).contains("uses the PostgreSQL dialect, but the plan was written for the GoogleSQL");

    }
  }

  /** What a hostile first try found (issue 17's review): quoted names, named schemas, NaN keys, resume. */
  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class QuotedNamesAndResume {

    @Test
    void mixedCaseSequencesNamedSchemaIndexesAndResumeWork(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute("CREATE TABLE \"Customer\" (\"CustomerId\" int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
              + "\"Name\" text, score float8, total int, doubled int GENERATED ALWAYS AS (total * 2) STORED, "
              + "created timestamp DEFAULT now())",
          // NaN and Infinity in an indexed float column: the key sampler once failed the whole plan on them.
          "CREATE INDEX ON \"Customer\" (score)",
          "INSERT INTO \"Customer\" (\"Name\", score, total) SELECT 'n' || g, CASE g % 3 WHEN 0 THEN "
              + "'NaN'::float8 WHEN 1 THEN 'Infinity'::float8 ELSE g END, g FROM generate_series(1, 300) g",
          "CREATE SCHEMA \"Sales\"",
          "CREATE TABLE \"Sales\".\"order\" (id bigint PRIMARY KEY, account_id bigint, note text)",
          "CREATE INDEX ON \"Sales\".\"order\" (account_id)",
          "INSERT INTO \"Sales\".\"order\" SELECT g, g % 7, 'x' FROM generate_series(1, 100) g",
          "ANALYZE");
      Path out = dir.resolve("plan");
      Path planFile = planPostgres(pg, out);
      Plan plan = PlanFiles.read(planFile);
      // The generated column is translated (not left for new rows to supply), and the wall-clock default is named.
      assertThat(plan.tableBySource("public.Customer").orElseThrow().column("doubled").orElseThrow()
          .generatedExpression()).isEqualTo("total * 2");
      assertThat(PlanCommandIT.findings(out, "DEFAULT_CHANGED")).anyMatch(m -> m.contains("without time zone"))
          // quoted as this dialect writes it (it said GoogleSQL's CURRENT_TIMESTAMP() before)
          .anyMatch(m -> m.contains("is created as CURRENT_TIMESTAMP, but"));

      String target = target(spanner, "quoted-pg");
      CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, target, spanner.emulatorHost(),
          dir.resolve("run")));
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("2 table(s) verified: all match.");
      // A resumed run finds its own tables by their quoted names and has nothing left to do.
      CliRunner.Result again = MigrateSupport.cli(migrateArgs(planFile, pg, target, spanner.emulatorHost(),
          dir.resolve("run"), "--resume"));
      assertThat(again.exitCode()).as(again.out() + again.err()).isZero();
      assertThat(again.out()).contains("2 table(s) verified: all match.");

      // The application inserts as it did in PostgreSQL: the key comes from the bit-reversed sequence, the
      // generated column is computed.
      DatabaseClient client = client(spanner, "quoted-pg");
      client.readWriteTransaction().run(tx -> tx.executeUpdate(Statement.of(
          "INSERT INTO \"Customer\" (\"Name\", total) VALUES ('new', 21)")));
      try (ResultSet rs = client.singleUse().executeQuery(Statement.of(
          "SELECT \"CustomerId\", doubled FROM \"Customer\" WHERE \"Name\" = 'new'"))) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(0)).isGreaterThan(1_000_000L);
        assertThat(rs.getLong(1)).isEqualTo(42);
      }
    }
  }

  private static String typeOf(Plan plan, String table, String column) {
    var c = plan.tableBySource(table).orElseThrow().columns().stream()
        .filter(x -> column.equals(x.source())).findFirst().orElseThrow();
    return c.targetType() + " " + c.conversion();
  }

  /** Rows as comparable text: numbers as plain decimals, arrays as lists, text as is. */
  private static List<List<String>> pgRows(Connection c, String sql) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          Object v = rs.getObject(i);
          if (v instanceof java.sql.Array a) {
            List<String> items = new ArrayList<>();
            for (Object o : (Object[]) a.getArray()) {
              items.add(String.valueOf(o));
            }
            row.add(items.toString());
          } else if (v instanceof Number n) {
            row.add(decimal(n.toString()));
          } else {
            row.add(String.valueOf(v));
          }
        }
        rows.add(row);
      }
    }
    return rows;
  }

  private static List<List<String>> spannerRows(DatabaseClient client, String sql) {
    List<List<String>> rows = new ArrayList<>();
    try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 0; i < rs.getColumnCount(); i++) {
          Value v = rs.getValue(i);
          if (v.isNull()) {
            row.add("null");
          } else if (v.getType().getCode() == Type.Code.ARRAY
              && v.getType().getArrayElementType().getCode() == Type.Code.STRING) {
            row.add(v.getStringArray().stream().map(String::valueOf).toList().toString());
          } else if (v.getType().getCode() == Type.Code.ARRAY) {
            row.add(v.getAsStringList().toString());
          } else if (v.getType().getCode() == Type.Code.INT64 || v.getType().getCode() == Type.Code.PG_NUMERIC
              || v.getType().getCode() == Type.Code.FLOAT64) {
            row.add(decimal(v.getAsString()));
          } else {
            row.add(v.getAsString());
          }
        }
        rows.add(row);
      }
    }
    return rows;
  }

  private static String decimal(String text) {
    try {
      return new BigDecimal(text).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException e) {
      return text; // NaN
    }
  }
}
