package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.DatabaseId;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 20: a table with row-level security whose policy lets the migrating role see a third of its 3,000 rows.
 * check and plan say so, migrate refuses before touching the target (exit 4) unless the filtered copy is accepted
 * explicitly (then every output says it is filtered), a BYPASSRLS role copies and verifies all 3,000 rows, and a live
 * run refuses even with the acceptance.
 */
@WithPostgres
@WithSpannerEmulator
class RowSecurityIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SUFFIX = Long.toHexString(System.nanoTime());
  /** Neither superuser, owner nor BYPASSRLS: the policy shows it every third row. */
  private static final String READER = "p2s_rls_reader_" + SUFFIX;
  private static final String BYPASS = "p2s_rls_bypass_" + SUFFIX;

  @BeforeAll
  static void schema(PgTestDatabase pg) throws Exception {
    pg.execute("CREATE ROLE " + READER + " LOGIN",
        "CREATE ROLE " + BYPASS + " LOGIN BYPASSRLS",
        "CREATE TABLE accounts (id int PRIMARY KEY, region int NOT NULL, balance numeric(12,2) NOT NULL)",
        "INSERT INTO accounts SELECT g, g % 3, g * 1.5 FROM generate_series(1, 3000) g",
        "ALTER TABLE accounts ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY region_zero ON accounts FOR SELECT USING (region = 0)",
        "GRANT SELECT ON accounts TO " + READER + ", " + BYPASS,
        "ANALYZE");
  }

  @AfterAll
  static void dropRoles(PgTestDatabase pg) throws Exception {
    pg.execute("DROP OWNED BY " + READER + ", " + BYPASS, "DROP ROLE " + READER, "DROP ROLE " + BYPASS);
  }

  private static String as(PgTestDatabase pg, String role) {
    return pg.jdbcUrl().replaceAll("user=[^&]*", "user=" + role);
  }

  /** Another database in the test's own emulator instance (dropped with the instance). */
  private static String database(SpannerTestDatabase spanner, String name) {
    return DatabaseId.of(spanner.id().getInstanceId(), name).getName();
  }

  private static CliRunner.Result plan(PgTestDatabase pg, String role, Path out) {
    return CliRunner.withEnv(Map.of()).run("plan", "--source", as(pg, role), "--out", out.toString());
  }

  private static List<String> withSource(List<String> args, String url) {
    List<String> replaced = new ArrayList<>(args);
    replaced.set(replaced.indexOf("--source") + 1, url);
    return replaced;
  }

  private static long userTables(SpannerTestDatabase spanner) {
    return MigrateSupport.spannerLong(spanner, "SELECT COUNT(*) FROM information_schema.tables "
        + "WHERE table_schema NOT IN ('INFORMATION_SCHEMA', 'SPANNER_SYS')");
  }

  @Test
  void checkNamesTheTableAndPolicyAndIsNotReady(PgTestDatabase pg) {
    CliRunner.Result r = CliRunner.withEnv(Map.of()).run("check", "--source", as(pg, READER));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
    assertThat(r.out()).containsPattern("FAIL +every row visible +row-level security hides rows of 1 table")
        .contains("public.accounts").contains("policy region_zero (FOR SELECT TO PUBLIC USING (region = 0))")
        .contains("BYPASSRLS").contains("owner").contains("--accept-filtered-copy")
        .doesNotContain("Ready");

    CliRunner.Result bypass = CliRunner.withEnv(Map.of()).run("check", "--source", as(pg, BYPASS));
    assertThat(bypass.out()).containsPattern("OK +every row visible +BYPASSRLS");
  }

  @Test
  void planRecordsTheFindingWithItsPolicy(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    CliRunner.Result r = plan(pg, READER, dir);
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.PLAN_HAS_ERRORS.exitCode());
    assertThat(r.out()).contains("cannot read every row of 1 table(s): public.accounts");

    JsonNode report = JSON.readTree(dir.resolve("report.json").toFile());
    List<JsonNode> hidden = new ArrayList<>();
    report.get("findings").forEach(f -> {
      if (f.get("code").asText().equals("ROWS_NOT_VISIBLE")) {
        hidden.add(f);
      }
    });
    assertThat(hidden).hasSize(1);
    JsonNode finding = hidden.get(0);
    assertThat(finding.get("severity").asText()).isEqualTo("error");
    assertThat(finding.get("table").asText()).isEqualTo("public.accounts");
    assertThat(finding.get("message").asText()).contains("BYPASSRLS").contains("--accept-filtered-copy");
    assertThat(finding.get("evidence").get("role").asText()).isEqualTo(READER);
    assertThat(finding.get("evidence").get("policies").get(0).asText()).startsWith("region_zero (FOR SELECT");
    assertThat(report.get("summary").get("findingCounts").get("error").asInt()).isEqualTo(1);

    // The planning role that reads everything gets no such finding.
    CliRunner.Result clean = plan(pg, BYPASS, dir.resolve("bypass"));
    assertThat(clean.exitCode()).as(clean.out() + clean.err()).isZero();
    assertThat(PlanCommandIT.findings(dir.resolve("bypass"), "ROWS_NOT_VISIBLE")).isEmpty();
  }

  @Test
  void migrateRefusesBeforeTouchingTheTarget(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path dir) {
    Path planFile = dir.resolve("plan/plan.yaml");
    assertThat(plan(pg, BYPASS, planFile.getParent()).exitCode()).isZero();

    CliRunner.Result r = MigrateSupport.cli(withSource(migrateArgs(planFile, pg, spanner.path(),
        spanner.emulatorHost(), dir.resolve("run")), as(pg, READER)));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
    assertThat(r.err()).contains("row-level security hides rows of 1 table(s) from role " + READER)
        .contains("public.accounts").contains("region_zero").contains("stopped before touching the target")
        .contains("--accept-filtered-copy").doesNotContain("\tat ");
    assertThat(r.out()).doesNotContain("== 1/4");
    assertThat(userTables(spanner)).as("tables in the target").isZero();
  }

  @Test
  void aBypassRlsRoleMigratesAndVerifiesEveryRow(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) {
    Path planFile = dir.resolve("plan/plan.yaml");
    assertThat(plan(pg, BYPASS, planFile.getParent()).exitCode()).isZero();
    String target = database(spanner, "bypass");

    CliRunner.Result r = MigrateSupport.cli(withSource(migrateArgs(planFile, pg, target, spanner.emulatorHost(),
        dir.resolve("run")), as(pg, BYPASS)));

    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).containsPattern("(?m)^accounts +\\| +3,000 \\| +3,000 \\| equal").contains("all match")
        .doesNotContain("FILTERED").doesNotContain("filtered");
    assertThat(MigrateSupport.spannerLong(spanner.spanner().getDatabaseClient(DatabaseId.of(target)),
        "SELECT COUNT(*) FROM accounts")).isEqualTo(3000);

    CliRunner.Result verify = CliRunner.withEnv(Map.of()).run("verify", "--plan", planFile.toString(), "--source",
        as(pg, BYPASS), "--target", target, "--emulator", spanner.emulatorHost());
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    assertThat(verify.out()).contains("All 1 table(s) match.").doesNotContain("FILTERED");
  }

  @Test
  void anAcceptedFilteredCopyCompletesAndSaysItIsFiltered(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    Path planFile = dir.resolve("plan/plan.yaml");
    assertThat(plan(pg, READER, planFile.getParent()).exitCode()).isEqualTo(ExitCode.PLAN_HAS_ERRORS.exitCode());
    String target = database(spanner, "filtered");
    Path runDir = dir.resolve("run");

    CliRunner.Result r = MigrateSupport.cli(withSource(migrateArgs(planFile, pg, target, spanner.emulatorHost(),
        runDir, "--accept-filtered-copy"), as(pg, READER)));

    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("warning: filtered copy (--accept-filtered-copy)")
        .containsPattern("(?m)^accounts +\\| +1,000 \\| +1,000 \\| equal")
        .contains("verify compared the filtered view of public.accounts")
        .containsPattern("Migrated 1000 rows in [0-9.]+ s\\.\\nFILTERED COPY \\(--accept-filtered-copy\\): "
            + "public.accounts holds only the rows row-level security lets " + READER + " see");
    assertThat(MigrateSupport.spannerLong(spanner.spanner().getDatabaseClient(DatabaseId.of(target)),
        "SELECT COUNT(*) FROM accounts")).isEqualTo(1000);
    assertThat(MigrateSupport.jsonLines(runDir.resolve("progress.jsonl")))
        .anySatisfy(line -> {
          assertThat(line.get("type").asText()).isEqualTo("filtered-copy");
          assertThat(line.get("tables").get(0).asText()).isEqualTo("public.accounts");
          assertThat(line.get("role").asText()).isEqualTo(READER);
        });

    // verify as the same role compares the same filtered view, and says so.
    CliRunner.Result verify = CliRunner.withEnv(Map.of()).run("verify", "--plan", planFile.toString(), "--source",
        as(pg, READER), "--target", target, "--emulator", spanner.emulatorHost());
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    assertThat(verify.out()).contains("Compared the FILTERED VIEW of public.accounts");
    // A role that sees every row finds the 2,000 rows the filtered copy left out.
    CliRunner.Result full = CliRunner.withEnv(Map.of()).run("verify", "--plan", planFile.toString(), "--source",
        as(pg, BYPASS), "--target", target, "--emulator", spanner.emulatorHost());
    assertThat(full.exitCode()).as(full.out() + full.err()).isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
    assertThat(full.out()).containsPattern("(?m)^accounts +\\| +3,000 \\| +1,000 \\|");
  }

  @Test
  void aLiveRunRefusesAFilteredCopyEvenWhenAccepted(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) {
    Path planFile = dir.resolve("plan/plan.yaml");
    assertThat(plan(pg, READER, planFile.getParent()).exitCode()).isEqualTo(ExitCode.PLAN_HAS_ERRORS.exitCode());

    CliRunner.Result r = MigrateSupport.cli(withSource(migrateArgs(planFile, pg, spanner.path(),
        spanner.emulatorHost(), dir.resolve("run"), "--live", "--accept-filtered-copy"), as(pg, READER)));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
    assertThat(r.err()).contains("public.accounts").contains("A live migration cannot copy a filtered view")
        .contains("logical replication");
    assertThat(userTables(spanner)).as("tables in the target").isZero();
  }
}
