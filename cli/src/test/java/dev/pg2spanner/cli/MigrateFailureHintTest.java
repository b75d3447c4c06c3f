package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.migrate.MigrateRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A failed run's way on, when migrate started its own emulator (its rows stop with it). */
class MigrateFailureHintTest {

  private static final Path RUN = Path.of("/work/run");

  @Test
  void theResumeHintBecomesStartAgainWhenTheEmulatorWasMigratesOwn() {
    Pg2SpannerException failed = new MigrateRun.Resumable(new Pg2SpannerException(ExitCode.TARGET_CONNECTION,
        "Spanner failed reading Flyway's history table; check the target and try again."), RUN);
    assertThat(failed.getMessage()).endsWith(MigrateRun.resumeHint(RUN));
    Pg2SpannerException shown = MigrateCommand.withOwnEmulatorHint(failed, RUN);
    assertThat(shown.code()).isEqualTo(ExitCode.TARGET_CONNECTION);
    assertThat(shown.next()).isEqualTo(NextStep.STATED);
    assertThat(shown.getMessage()).startsWith("Spanner failed reading Flyway's history table")
        .contains("the rows loaded so far go with it").contains("a new --run-dir").contains(RUN.toString())
        .doesNotContain("--resume");
  }

  @Test
  void aLayersOwnResumeAdviceIsCorrectedWhenTheEmulatorWasMigratesOwn() {
    // What a load whose source link went dark said (found by hand: the run's own emulator had stopped with it, and
    // the --resume it advised was then refused).
    Pg2SpannerException failed = new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
        "migrate could not read "
        + "public.big (piece big#public.big:5660-5943): the connection to PostgreSQL was lost or the server is "
        + "shutting down (Database connection failed when starting copy); check that the server is up. Then rerun "
        + "the same migrate command with --resume (finished pieces are kept)");
    Pg2SpannerException shown = MigrateCommand.withOwnEmulatorHint(failed, RUN);
    assertThat(shown.code()).isEqualTo(ExitCode.SOURCE_CONNECTION);
    assertThat(shown.getMessage()).startsWith("migrate could not read public.big")
        .endsWith("(finished pieces are kept). But --resume cannot continue this run: the Spanner emulator this run started stops with it, and "
            + "the rows loaded so far go with it: start again with the same migrate command and a new --run-dir (or "
            + "delete " + RUN + " first).");
  }

  @Test
  void otherMessagesAreLeftAlone() {
    Pg2SpannerException failed = new Pg2SpannerException(ExitCode.PLAN_INVALID, "the plan names no tables");
    assertThat(MigrateCommand.withOwnEmulatorHint(failed, RUN)).isSameAs(failed);
    // Decided by the way on the message gives, not by its words: one that names --resume only to say it does not
    // apply ("run migrate without --resume") is not a way on through --resume.
    Pg2SpannerException without = new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.STATED, "--resume: run "
        + "directory /work/run holds no earlier load to continue; run migrate without --resume");
    assertThat(MigrateCommand.withOwnEmulatorHint(without, RUN)).isSameAs(without);
    assertThat(MigrateCommand.withBeamHint(without, RUN, "direct", "d")).isSameAs(without);
  }

  @Test
  void ctrlCDuringABeamLoadSaysStartOverNotResume() {
    String shown = MigrateCommand.beamStopped(RUN, "direct", "projects/p/instances/i/databases/d on the emulator at "
        + "127.0.0.1:9010");
    assertThat(shown).startsWith("pg2spanner: migrate was stopped.").contains("keeps no checkpoint")
        .contains("rm -r " + RUN).contains("drop projects/p/instances/i/databases/d")
        .contains("(--resume is for --runner in-process)").doesNotContain("No rows were loaded")
        .doesNotContain("add --resume");
  }

  @Test
  void aBeamRunsResumeAdviceBecomesStartOverIntoAnEmptyDatabase() {
    Pg2SpannerException failed = new MigrateRun.Resumable(new Pg2SpannerException(ExitCode.TARGET_CONNECTION,
        "Spanner failed reading Flyway's history table; check the target and try again."), RUN);
    Pg2SpannerException shown = MigrateCommand.withBeamHint(failed, RUN, "direct", "projects/p/instances/i/databases/d");
    assertThat(shown.code()).isEqualTo(ExitCode.TARGET_CONNECTION);
    assertThat(shown.getMessage()).startsWith("Spanner failed reading Flyway's history table")
        .contains("start over into an empty database").contains("drop projects/p/instances/i/databases/d")
        .doesNotContain("rerun the same command with --resume");
    // The load's own failure already says so: left as it is.
    Pg2SpannerException load = new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.STATED, "... then run "
        + "migrate again into an empty database (a Beam load has no --resume).");
    assertThat(MigrateCommand.withBeamHint(load, RUN, "direct", "d")).isSameAs(load);
  }
}
