package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6: the Beam pipeline on the DirectRunner, from real PostgreSQL to the emulator, through {@code migrate
 * --runner direct}; and {@code --runner dataflow --dry-run}, which must validate and print without contacting anything.
 */
@WithPostgres
@WithSpannerEmulator
class BeamDirectRunnerIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Every DirectRunner load here runs with Beam's encodability and immutability checks on: every element is encoded
   * and decoded by its coder and every input checked for mutation, as crossing machines on a distributed runner
   * would, on every path of the pipeline (levels, dead letters, failed mutations, the PostgreSQL dialect's view).
   */
  private static final Map<String, String> CHECKS = Map.of("PG2SPANNER_BEAM_CHECKS", "true");

  private static Path plan(PgTestDatabase pg, Path out) throws Exception {
    pg.execute(Fixtures.resource("fixtures/beam-fixture.sql"));
    CliRunner.Result plan = CliRunner.withEnv(Map.of()).run("plan", "--source", pg.jdbcUrl(), "--out",
        out.toString(), "--low-write-threshold", "0");
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
    return out.resolve("plan.yaml");
  }

  @Test
  void directRunnerLoadsEveryRowVerifiesEqualAndDeadLettersTheBadOne(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    Path plan = plan(pg, out);
    assertThat(Files.readString(plan)).as("the fixture's child must be planned as interleaved")
        .containsPattern("interleave:\\s*\\n\\s+parent: \"?customers");
    // After planning, so the plan does not adapt to it: NaN has no Spanner NUMERIC form, so the converter rejects it.
    pg.execute("INSERT INTO orders VALUES (1, 99, 'NaN', 'bad')");
    Path dead = out.resolve("dead.jsonl");

    CliRunner.Result r = CliRunner.withEnv(CHECKS).run("migrate", "--runner", "direct", "--plan", plan.toString(),
        "--source", pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost(), "--workers", "4",
        "--max-bad-rows", "1", "--dead-letter", dead.toString(), "--progress-interval", "1");

    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("pieces on the DirectRunner").contains("== 4/4 verify").contains("all match");
    // Live progress from the running job's metrics, between the load's step line and its summary.
    String load = r.out().substring(r.out().indexOf("pieces on the DirectRunner"), r.out().indexOf("loaded "));
    assertThat(load).as(r.out()).containsPattern("(?m)^load: [\\d,]+ of ~[\\d,]+ rows read \\(\\d+%\\), [\\d,]+ "
        + "written, [01] dead-lettered, [\\d,]+ rows/s written, \\d+:\\d\\d:\\d\\d$");
    assertThat(MigrateIT.spannerCount(spanner, "customers")).isEqualTo(6_000);
    assertThat(MigrateIT.spannerCount(spanner, "orders")).isEqualTo(24_000);
    // The time split from the job's metrics: the workers' own commits are counted (each piece commits its rows
    // itself, so there are at least as many commits as pieces with rows), and the DirectRunner's 4 threads give
    // the derived rest.
    java.util.regex.Matcher split = java.util.regex.Pattern.compile("Worker time: read [\\d.]+ s, batch [\\d.]+ s, "
        + "write [\\d.]+ s \\((\\d+) commits, [\\d,]+ rows each on average\\), other [\\d.]+ s \\(4 threads")
        .matcher(r.out());
    assertThat(split.find()).as(r.out()).isTrue();
    assertThat(Long.parseLong(split.group(1))).isGreaterThanOrEqualTo(3);
    List<String> lines = Files.readAllLines(dead);
    assertThat(lines).hasSize(1);
    JsonNode row = JSON.readTree(lines.get(0));
    assertThat(row.get("table").asText()).isEqualTo("orders");
    assertThat(row.get("key").asText()).isEqualTo("1, 99");
    assertThat(row.get("column").asText()).isEqualTo("amount");
    assertThat(row.get("reason").asText()).contains("NaN");
  }

  @Test
  void withBeamsEncodabilityAndImmutabilityChecksOnTheSameLoadIsExact(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    // Every element encoded and decoded by its coder and every input checked for mutation, as crossing machines on
    // a distributed runner would; a small load of every kind of value the converters produce (the checks are slow).
    pg.execute("CREATE SCHEMA checked",
        "CREATE TABLE checked.accounts (id bigint PRIMARY KEY, name text NOT NULL, balance numeric(12,2), "
            + "opened date, seen timestamptz, flags boolean[], doc jsonb, raw bytea, score float8, tags text[])",
        "CREATE TABLE checked.entries (account_id bigint REFERENCES checked.accounts (id), n int, amount numeric, "
            + "at timestamp, PRIMARY KEY (account_id, n))",
        "INSERT INTO checked.accounts SELECT g, 'name ' || g, g * 1.25, date '2024-01-01' + g, "
            + "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour', ARRAY[g % 2 = 0, NULL], "
            + "jsonb_build_object('g', g, 'half', g / 2.0), decode(md5(g::text), 'hex'), g / 3.0, "
            + "ARRAY['t' || g, NULL] FROM generate_series(1, 300) g",
        "INSERT INTO checked.entries SELECT 1 + g % 300, g, g * 0.01, timestamp '2024-01-01' + g * interval '1 minute' "
            + "FROM generate_series(1, 900) g",
        "ANALYZE");
    planAndLoadOnTheDirectRunner(pg, spanner, out, "checked", "checked");
  }

  /**
   * Plans schema {@code schema} (with {@code planOptions}), loads it with {@code --runner direct} and the checks on
   * into a database of its own, {@code database}, expects both tables verified equal, and drops the schema: the class
   * shares its source and emulator with the other tests.
   */
  private static void planAndLoadOnTheDirectRunner(PgTestDatabase pg, SpannerTestDatabase spanner, Path out,
      String schema, String database, String... planOptions) throws Exception {
    try {
      List<String> planArgs = new java.util.ArrayList<>(List.of("plan", "--source", pg.jdbcUrl(), "--out",
          out.toString(), "--schemas", schema, "--low-write-threshold", "0"));
      planArgs.addAll(List.of(planOptions));
      CliRunner.Result plan = CliRunner.withEnv(Map.of()).run(planArgs.toArray(String[]::new));
      assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
      String target = spanner.id().getInstanceId().getName() + "/databases/" + database;
      CliRunner.Result r = CliRunner.withEnv(CHECKS).run("migrate", "--runner", "direct", "--plan",
          out.resolve("plan.yaml").toString(), "--source", pg.jdbcUrl(), "--target", target, "--emulator",
          spanner.emulatorHost(), "--workers", "2");
      assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("pieces on the DirectRunner").contains("2 table(s) verified: all match.");
    } finally {
      pg.execute("DROP SCHEMA " + schema + " CASCADE");
    }
  }

  @Test
  void theDirectRunnerLoadsIntoAPostgresDialectDatabase(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    // numeric, jsonb and arrays are written as the dialect's own values.
    pg.execute("CREATE SCHEMA pgd",
        "CREATE TABLE pgd.accounts (id bigint PRIMARY KEY, \"Name\" text NOT NULL, balance numeric, doc jsonb, "
            + "tags text[], seen timestamptz)",
        "CREATE TABLE pgd.entries (account_id bigint REFERENCES pgd.accounts (id), n int, amount numeric(40,12), "
            + "PRIMARY KEY (account_id, n))",
        "INSERT INTO pgd.accounts SELECT g, 'name ' || g, g * 1.25, jsonb_build_object('g', g), ARRAY['t' || g, NULL], "
            + "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour' FROM generate_series(1, 300) g",
        "INSERT INTO pgd.entries SELECT 1 + g % 300, g, g * 1234567890123456789.000000000001 "
            + "FROM generate_series(1, 900) g",
        "ANALYZE");
    planAndLoadOnTheDirectRunner(pg, spanner, out, "pgd", "beam-pg", "--dialect", "postgresql");
  }

  @Test
  void dataflowDryRunFailsClearlyWithoutTempLocationAndPrintsTheGraphWhenComplete(PgTestDatabase pg,
      @TempDir Path out) throws Exception {
    Path plan = plan(pg, out);
    // An unreachable source and a project that does not exist: a dry run must not try either.
    String[] common = {"migrate", "--runner", "dataflow", "--dry-run", "--plan", plan.toString(), "--source",
        "jdbc:postgresql://192.0.2.1:5432/app?user=migrator", "--target",
        "projects/no-such-project/instances/inst/databases/app"};
    CliRunner cli = CliRunner.withEnv(Map.of());

    CliRunner.Result missing = cli.run(concat(common, "--project", "p", "--region", "europe-west1"));
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("--runner dataflow needs --temp-location gs://");

    CliRunner.Result local = cli.run(concat(common, "--project", "p", "--region", "europe-west1", "--temp-location",
        "/tmp/x"));
    assertThat(local.exitCode()).isEqualTo(2);
    assertThat(local.err()).contains("--temp-location must be a gs:// path");

    CliRunner.Result ok = cli.run(concat(common, "--project", "p", "--region", "europe-west1", "--temp-location",
        "gs://bucket/tmp", "--max-workers", "7", "--worker-machine-type", "n2-standard-4", "--subnetwork",
        "regions/europe-west1/subnetworks/db", "--service-account", "loader@p.iam.gserviceaccount.com",
        "--dead-letter", "gs://bucket/dead.jsonl"));
    assertThat(ok.exitCode()).as(ok.out() + ok.err()).isZero();
    assertThat(ok.out()).contains("Level 0/Pieces").contains("Level 1/Wait for level 0").contains("Level 1/Load pieces")
        .contains("LoadPiece").contains("Reshuffle").contains("Dead letters/Write").doesNotContain("Write to Spanner");
    assertThat(ok.out()).contains("runner = DataflowRunner").contains("project = p").contains("region = europe-west1")
        .contains("tempLocation = gs://bucket/tmp").contains("stagingLocation = gs://bucket/tmp/staging")
        .contains("maxNumWorkers = 7").contains("workerMachineType = n2-standard-4")
        .contains("serviceAccount = loader@p.iam.gserviceaccount.com");
  }

  private static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
