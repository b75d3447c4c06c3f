package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28, "Plan predicts what the load will refuse" and "Errors that speak Spanner": the shapes of a hostile
 * database that needed hand edits of plan.yaml and several migrate runs. Each is planned so that migrate with default
 * options loads every row and builds every object the plan keeps, with the decision and its reason in the report.
 */
@WithPostgres
@WithSpannerEmulator
class PlanFidelityIT {

  @Test
  void whatTheLoadWouldRefuseIsPlannedAroundAndMigrateNeedsNoHandEdit(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute(
        // int2vector and oidvector: PostgreSQL calls them arrays and prints them as '1 2'.
        "CREATE TABLE vec (id int PRIMARY KEY, v int2vector, o oidvector)",
        "INSERT INTO vec VALUES (1, '1 2', '3 4'), (2, '5', '6'), (3, NULL, NULL), (4, '', '')",
        // A domain over a vector: the loader does not read its text as a vector, so the probe sees refusals.
        "CREATE DOMAIN shortvec AS int2vector",
        "CREATE TABLE dom (id int PRIMARY KEY, v shortvec)",
        "INSERT INTO dom VALUES (1, '1 2'), (2, NULL)",
        // An index over text longer than Spanner's 8 KiB key limit.
        "CREATE TABLE longtext (id int PRIMARY KEY, f1 text)", "CREATE INDEX longtext_f1 ON longtext (f1)",
        "CREATE INDEX longtext_id ON longtext (id, f1)",
        "INSERT INTO longtext VALUES (1, repeat('x', 10000)), (2, repeat('y', 36036)), (3, 'short')",
        // CHECK (false) NO INHERIT keeps rows out of an inheritance parent; Spanner refuses a CHECK on no column.
        "CREATE TABLE parent (id int PRIMARY KEY, a int, CONSTRAINT no_rows CHECK (false) NO INHERIT, "
            + "CONSTRAINT positive CHECK (a > 0))",
        "CREATE TABLE child (b int) INHERITS (parent)", "INSERT INTO child VALUES (1, 1, 1)",
        "ANALYZE");
    Path out = dir.resolve("plan");
    CliRunner.Result planned = PlanCommandIT.plan(pg, out);
    assertThat(planned.exitCode()).as(planned.out() + planned.err()).isZero();
    Plan plan = PlanFiles.read(out.resolve("plan.yaml"));

    TablePlan vec = plan.tableBySource("public.vec").orElseThrow();
    assertThat(vec.column("v").orElseThrow().targetType()).isEqualTo("ARRAY<INT64>");
    assertThat(vec.column("o").orElseThrow().targetType()).isEqualTo("ARRAY<INT64>");
    // Findings state the type the plan holds, never the element's.
    assertThat(vec.findings()).extracting(Finding::message).filteredOn(m -> m.startsWith("oidvector"))
        .allSatisfy(m -> assertThat(m).startsWith("oidvector → ARRAY<INT64>"));

    ColumnPlan domain = plan.tableBySource("public.dom").orElseThrow().column("v").orElseThrow();
    assertThat(domain.targetType()).isEqualTo("STRING(MAX)");
    assertThat(domain.conversion()).isEqualTo(ValueConversion.TEXT_OUTPUT);
    assertThat(plan.tableBySource("public.dom").orElseThrow().findings())
        .filteredOn(f -> f.code() == FindingCode.LOSSY_TYPE && "v".equals(f.column())).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("the loader's converter refused 1 value in the 2 rows it "
            + "read as ARRAY<INT64> (first: '1 2': "));

    TablePlan longtext = plan.tableBySource("public.longtext").orElseThrow();
    assertThat(longtext.indexes()).extracting(i -> i.source()).isEmpty();
    assertThat(longtext.findings()).filteredOn(f -> f.code() == FindingCode.KEY_LIMIT)
        .extracting(Finding::index).containsExactlyInAnyOrder("longtext_f1", "longtext_id");
    assertThat(longtext.findings()).filteredOn(f -> "longtext_f1".equals(f.index())).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("keys of up to 36044 bytes").contains("SHA256(f1)"));

    TablePlan parent = plan.tableBySource("public.parent").orElseThrow();
    assertThat(parent.checks()).extracting(c -> c.source()).containsExactly("positive");
    assertThat(parent.findings()).filteredOn(f -> f.code() == FindingCode.CHECK_NOT_TRANSLATED).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("no_rows").contains("uses no column"));

    CliRunner.Result migrated = MigrateSupport.cli(migrateArgs(out.resolve("plan.yaml"), pg, spanner.path(),
        spanner.emulatorHost(), dir.resolve("run")));
    assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
    assertThat(migrated.out()).containsPattern("(?m)^vec +\\| +4 \\| +4 \\| equal")
        .containsPattern("(?m)^dom +\\| +2 \\| +2 \\| equal").containsPattern("(?m)^longtext +\\| +3 \\| +3 \\| equal")
        .contains("all match");
    assertThat(Files.readString(dir.resolve("run").resolve("dead-letter.jsonl"))).isEmpty();
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of(
        "SELECT v, o FROM vec WHERE id = 1"))) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getLongList(0)).containsExactly(1L, 2L);
      assertThat(rs.getLongList(1)).containsExactly(3L, 4L);
    }
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT v FROM dom WHERE id = 1"))) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(0)).isEqualTo("1 2");
    }
  }

  @Test
  void aStatementSpannerRejectsInABatchIsTheOneNamedInSpannersWordsWithItsOwnExitCode(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    // A schema of its own: the class's database holds the other test's tables too.
    pg.execute("CREATE SCHEMA rejected", "CREATE TABLE rejected.checked (id int PRIMARY KEY, x int, y int, "
        + "CONSTRAINT x_positive CHECK (x > 0), CONSTRAINT y_positive CHECK (y > 0))",
        "INSERT INTO rejected.checked VALUES (1, 1, 1)", "ANALYZE");
    CliRunner.Result planned = PlanCommandIT.plan(pg, dir.resolve("plan"), "--schemas", "rejected");
    assertThat(planned.exitCode()).as(planned.out() + planned.err()).isZero();
    Path planFile = dir.resolve("plan").resolve("plan.yaml");
    String original = Files.readString(planFile);
    // A person writes a CHECK Spanner refuses as the second of the batch; the emulator then applies none of the two.
    Files.writeString(planFile, original.replace("expression: y > 0", "expression: \"FALSE\""));
    String target = spanner.id().getInstanceId().getName() + "/databases/rejected";
    Path run = dir.resolve("run");
    CliRunner.Result failed = MigrateSupport.cli(migrateArgs(planFile, pg, target, spanner.emulatorHost(), run));
    assertThat(failed.exitCode()).as(failed.out() + failed.err()).isEqualTo(ExitCode.DDL_REJECTED.exitCode());
    assertThat(failed.err()).contains("V4__checks.sql: Spanner rejected statement 2 of 2 (check y_positive on ")
        .contains("does not use any non generated column").contains("1 of its 2 statements are applied")
        .doesNotContain("io.grpc").doesNotContain("Operation with name").doesNotContain("GrpcStatusCode")
        .doesNotContain("\tat ");

    Files.writeString(planFile, original);
    CliRunner.Result resumed = MigrateSupport.cli(migrateArgs(planFile, pg, target, spanner.emulatorHost(), run,
        "--resume"));
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    assertThat(resumed.out()).contains("all match");
    assertThat(List.of(ExitCode.values())).extracting(ExitCode::exitCode).doesNotHaveDuplicates();
  }
}
