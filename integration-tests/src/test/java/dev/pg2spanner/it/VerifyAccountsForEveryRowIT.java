package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28: verify never passes a missing row. A source row the converter refuses is not in the target; verify
 * passes it only when the run's dead-letter file lists exactly that row, and says how many rows it compared, left
 * out and could not convert.
 */
@WithPostgres
@WithSpannerEmulator
class VerifyAccountsForEveryRowIT {

  @Test
  void aRowVerifyCannotConvertIsNeverEqualUnlessTheDeadLetterFileListsIt(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE vec (id int PRIMARY KEY, taken timestamp)",
        "INSERT INTO vec VALUES (1, 'infinity'), (2, '-infinity'), (3, '2024-05-01 10:00:00')", "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    // Spanner's TIMESTAMP cannot hold infinity: a person edits the plan's text fallback away, as report.md allows.
    MigrateSupport.editColumn(plan, "public.vec", "taken", "TIMESTAMP", "TIMESTAMP_WALL_CLOCK_AS_UTC");
    Path run = dir.resolve("run");

    CliRunner.Result migrate = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run,
        "--max-bad-rows", "10"));
    assertThat(migrate.exitCode()).as(migrate.out() + migrate.err()).isZero();
    assertThat(migrate.out())
        .containsPattern("(?m)^vec +\\| +3 \\| +2 \\| +1 \\| equal")
        .contains("vec: 3 source rows, 2 rejected to the dead-letter file, 1 compared");

    // Without the dead-letter file, the two rows are missing and nobody accounts for them.
    CliRunner.Result alone = MigrateSupport.cli(verifyArgs(plan, pg, spanner));
    assertThat(alone.exitCode()).as(alone.out() + alone.err()).isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
    assertThat(alone.out())
        .containsPattern("(?m)^vec +\\| +3 \\| +0 \\| +1 \\| DIFFERENT \\| not convertible, in no dead-letter file: 1 ")
        .contains("not convertible, in no dead-letter file: 2 ")
        .contains("2 not convertible and listed in no dead-letter file")
        .contains("--dead-letter FILE, or --run-dir DIR")
        .doesNotContain("all match");

    // With the run directory (or its dead-letter file), exactly those rows are accounted for.
    for (List<String> extra : List.of(List.of("--run-dir", run.toString()),
        List.of("--dead-letter", run.resolve("dead-letter.jsonl").toString()))) {
      List<String> args = verifyArgs(plan, pg, spanner);
      args.addAll(extra);
      CliRunner.Result accounted = MigrateSupport.cli(args);
      assertThat(accounted.exitCode()).as(extra + "\n" + accounted.out() + accounted.err()).isZero();
      assertThat(accounted.out()).contains("vec: 3 source rows, 2 rejected to the dead-letter file, 1 compared")
          .contains("All 1 table(s) match.");
    }

    // A third bad row the file does not list fails again, naming it.
    pg.execute("INSERT INTO vec VALUES (4, 'infinity')");
    List<String> args = verifyArgs(plan, pg, spanner);
    args.addAll(List.of("--run-dir", run.toString()));
    CliRunner.Result unlisted = MigrateSupport.cli(args);
    assertThat(unlisted.exitCode()).as(unlisted.out() + unlisted.err())
        .isEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
    assertThat(unlisted.out()).contains("not convertible, in no dead-letter file: 4 ")
        .doesNotContain("in no dead-letter file: 1 ");

    // A dead-letter file that does not exist is named, not silently ignored.
    args = verifyArgs(plan, pg, spanner);
    args.addAll(List.of("--dead-letter", dir.resolve("nope.jsonl").toString()));
    CliRunner.Result missing = MigrateSupport.cli(args);
    assertThat(missing.exitCode()).isEqualTo(ExitCode.LOCAL_IO.exitCode());
    assertThat(missing.err()).contains("nope.jsonl does not exist");
  }

  private static List<String> verifyArgs(Path plan, PgTestDatabase pg, SpannerTestDatabase spanner) {
    return new ArrayList<>(List.of("verify", "--plan", plan.toString(), "--source", pg.jdbcUrl(), "--target",
        spanner.path(), "--emulator", spanner.emulatorHost()));
  }
}
