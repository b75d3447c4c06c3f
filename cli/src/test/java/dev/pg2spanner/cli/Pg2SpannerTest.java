package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class Pg2SpannerTest {

  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    return run(Map.of(), args);
  }

  private static Result run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Pg2Spanner.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return new Result(cl.execute(args), out.toString(), err.toString());
  }

  /** The schema converter's golden plan, copied into {@code dir}. */
  private static java.nio.file.Path goldenPlanIn(java.nio.file.Path dir) throws java.io.IOException {
    java.nio.file.Path plan = dir.resolve("plan.yaml");
    java.nio.file.Files.copy(java.nio.file.Path.of("..", "schema-converter", "src", "test", "resources", "dev",
        "pg2spanner", "plan", "plan.yaml.golden"), plan);
    return plan;
  }

  @Test
  void helpListsEverySubcommandAndEveryExitCode() {
    Result r = run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("check").contains("plan").contains("migrate").contains("verify");
    assertThat(r.out()).contains("Exit codes:").contains("Internal error").contains("Usage error");
    for (ExitCode code : ExitCode.values()) {
      assertThat(r.out()).containsPattern("(?m)^\\s*" + code.exitCode() + "\\s+\\S");
    }
  }

  @Test
  void exitCodesAreDistinctAndAvoidTheReservedOnes() {
    assertThat(Pg2Spanner.exitCodeList()).hasSize(ExitCode.values().length + 3);
    for (ExitCode code : ExitCode.values()) {
      if (code == ExitCode.INTERRUPTED) {
        // The shell's convention for a process ended by SIGINT (128 + 2): what the JVM itself returns on Ctrl-C.
        assertThat(code.exitCode()).isEqualTo(130);
      } else {
        assertThat(code.exitCode()).isGreaterThan(2).isLessThan(126);
      }
    }
  }

  @Test
  void noCommandIsAUsageErrorThatListsTheCommands() {
    Result r = run();
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("no command given").contains("migrate").contains("demo");
  }

  @Test
  void malformedTargetAndEmulatorAddressesAreUsageErrorsNamingTheOption() {
    Result path = run("check", "--source", "jdbc:postgresql://h/d", "--target", "projects/p/db");
    assertThat(path.code()).isEqualTo(2);
    assertThat(path.err()).contains("--target 'projects/p/db' is not a database path").doesNotContain("\tat ");
    Result port = run("check", "--source", "jdbc:postgresql://h/d", "--target",
        "projects/p/instances/i1/databases/d1", "--emulator", "notahost:99999");
    assertThat(port.code()).isEqualTo(2);
    assertThat(port.err()).contains("'notahost:99999'").contains("HOST:PORT");
  }

  @Test
  void versionNamesTheProduct() {
    Result r = run("--version");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("pg2spanner ");
  }

  @Test
  void unknownOptionIsAUsageErrorWithSynopsis() {
    Result r = run("check", "--source", "jdbc:postgresql://h/d", "--sauce", "x");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("Unknown options: '--sauce'").contains("Usage: pg2spanner check");
  }

  @Test
  void missingRequiredSourceIsAUsageError() {
    Result r = run("check");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--source");
  }

  @Test
  void aMissingPlanFileIsNamedBeforeAnythingConnects() {
    Result r = run("migrate", "--plan", "no/such/plan.yaml", "--source", "jdbc:postgresql://h/d");
    assertThat(r.code()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(r.err()).contains("plan.yaml").doesNotContain("\tat ");
  }

  @Test
  void aSourceReaderTheEnvironmentMisnamesStopsMigrateBeforeItBeginsAndLeavesNoRunDirectory(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    // The CLI reads the environment, not MigrateRun: the choice still stops the run before it connects anywhere.
    java.nio.file.Path plan = goldenPlanIn(dir);
    Result r = run(Map.of("PG2SPANNER_SOURCE_READER", "binary"), "migrate", "--plan", plan.toString(), "--source",
        "jdbc:postgresql://127.0.0.1:1/none", "--target",
        "projects/test-project/instances/test-instance/databases/testdb");
    assertThat(r.code()).as(r.err()).isEqualTo(ExitCode.ENVIRONMENT.exitCode());
    assertThat(r.err()).contains("PG2SPANNER_SOURCE_READER=binary names no source reader").doesNotContain("\tat ");
    assertThat(dir.resolve("run")).doesNotExist();
  }

  @Test
  void anEarlierRunCannotBeContinuedOnTheNewEmulatorMigrateStartsAndIsNotToldTo(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    // After kill -9 of a migrate that started its own emulator, that emulator and its rows are gone: the same command
    // (with or without --resume) is refused at once with the way on, before any emulator starts; the run stays.
    java.nio.file.Path plan = goldenPlanIn(dir);
    java.nio.file.Path runDir = java.nio.file.Files.createDirectories(dir.resolve("run"));
    java.nio.file.Files.writeString(runDir.resolve(dev.pg2spanner.rundir.RunFiles.PIECES), "[]");
    for (boolean resume : new boolean[] {false, true}) {
      java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("migrate", "--plan", plan.toString(),
          "--source", "jdbc:postgresql://127.0.0.1:1/none", "--target",
          "projects/test-project/instances/test-instance/databases/testdb", "--emulator", "--run-dir",
          runDir.toString()));
      if (resume) {
        args.add("--resume");
      }
      // No emulator is installed in this environment's view: a start would fail with ENVIRONMENT instead.
      Result r = run(Map.of("SPANNER_EMULATOR_BINARY", dir.resolve("no-emulator").toString()),
          args.toArray(String[]::new));
      assertThat(r.code()).as(r.err()).isEqualTo(ExitCode.RUN_STATE.exitCode());
      assertThat(r.err()).contains("holds an earlier run", "new --run-dir", "--emulator HOST:PORT")
          .doesNotContain("continue it with --resume").doesNotContain("started the Spanner emulator");
      assertThat(runDir.resolve(dev.pg2spanner.rundir.RunFiles.PIECES)).exists();
    }
  }

  @Test
  void ddlBatchOptionsBelowOneAreUsageErrorsNamingTheOption() {
    for (String option : new String[] {"--ddl-batch-size", "--ddl-concurrency"}) {
      Result r = run("migrate", "--plan", "no/such/plan.yaml", "--source", "jdbc:postgresql://h/d", "--target",
          "projects/p/instances/i/databases/d", option, "0");
      assertThat(r.code()).as(option).isEqualTo(2);
      assertThat(r.err()).contains(option + " must be at least 1, was 0").doesNotContain("\tat ");
    }
  }

  @Test
  void aBadSourceUrlIsOneSentence() {
    Result r = run("check", "--source", "postgres://localhost/app");
    assertThat(r.code()).as("a malformed value is a usage error").isEqualTo(2);
    assertThat(r.err()).contains("is not a PostgreSQL JDBC URL").doesNotContain("\tat ");
  }

  @Test
  void migrateAndVerifyTakeThePlanSourceAndTargetAlike() {
    for (String command : new String[] {"migrate", "verify"}) {
      Result noPlan = run(command, "--source", "jdbc:postgresql://db/app", "--target", "projects/p/instances/i/x");
      assertThat(noPlan.code()).as(command).isEqualTo(2);
      assertThat(noPlan.err()).as(command).contains("Missing required option: '--plan=FILE'");
      Result noSource = run(command, "--plan", "plan.yaml");
      assertThat(noSource.code()).as(command).isEqualTo(2);
      assertThat(noSource.err()).as(command).contains("Missing required option: '--source=JDBC_URL'");
      Result help = run(command, "--help");
      assertThat(help.out()).as(command).containsSubsequence("--plan=FILE", "--source=JDBC_URL",
          "--password-file=FILE", "--target=DB_PATH", "--emulator[=HOST:PORT]");
    }
  }

  @Test
  void everySubcommandHasItsOwnHelpDespiteRequiredOptions() {
    for (String command : new String[] {"check", "plan", "migrate", "verify", "demo"}) {
      Result r = run(command, "--help");
      assertThat(r.code()).as(command + ": " + r.err()).isZero();
      assertThat(r.out()).contains("Usage: pg2spanner " + command).contains("Exit codes:");
    }
  }
}
