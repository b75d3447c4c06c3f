package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.migrate.MigrateRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A failed run's way on, when migrate started its own emulator (its rows stop with it). */
class MigrateFailureHintTest {

  private static final Path RUN = Path.of("/work/run");

  @Test
  void theResumeHintBecomesStartAgainWhenTheEmulatorWasMigratesOwn() {
    Pg2SpannerException failed = new Pg2SpannerException(ExitCode.TARGET_CONNECTION,
        "Spanner failed reading Flyway's history table; check the target and try again."
            + MigrateRun.resumeHint(RUN));
    Pg2SpannerException shown = MigrateCommand.withOwnEmulatorHint(failed, RUN);
    assertThat(shown.code()).isEqualTo(ExitCode.TARGET_CONNECTION);
    assertThat(shown.getMessage()).startsWith("Spanner failed reading Flyway's history table")
        .contains("the rows loaded so far go with it").contains("a new --run-dir").contains(RUN.toString())
        .doesNotContain("--resume");
  }

  @Test
  void otherMessagesAreLeftAlone() {
    Pg2SpannerException failed = new Pg2SpannerException(ExitCode.PLAN_INVALID, "the plan names no tables");
    assertThat(MigrateCommand.withOwnEmulatorHint(failed, RUN)).isSameAs(failed);
  }
}
