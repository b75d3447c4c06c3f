package dev.pg2spanner.beam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The workers' shared client: once one worker gives up on the database, the others' commits fail at once with its
 * message. No emulator: nothing here reaches the (unused) address, which is the point.
 */
class SpannerWritesTest {

  private static final SpannerWrites NOWHERE = new SpannerWrites(
      new dev.pg2spanner.targetdb.SpannerTarget("p", "inst", "db", "127.0.0.1:1"));

  @Test
  void afterOneWorkerGaveUpOnTheTargetTheOthersCommitsFailAtOnceWithTheSameMessage() {
    WriteTargets.Opened first = NOWHERE.open();
    WriteTargets.Opened second = NOWHERE.open();
    try {
      // A refusal of the content (another code) is not a lost target: nothing is shared.
      first.gaveUp(new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "Spanner refused a commit to table t"));
      first.gaveUp(new Pg2SpannerException(ExitCode.TARGET_CONNECTION,
          "Spanner did not accept a commit to table t after 10 attempts over 39 s"));
      assertThatThrownBy(() -> second.write(List.of(Mutation.newInsertOrUpdateBuilder("t").set("id").to(1).build())))
          .isInstanceOf(Pg2SpannerException.class)
          .hasMessage("Spanner did not accept a commit to table t after 10 attempts over 39 s")
          .satisfies(e -> assertThat(((Pg2SpannerException) e).code()).isEqualTo(ExitCode.TARGET_CONNECTION));
      assertThat(SpannerWrites.connected(NOWHERE)).as("no attempt was made: the client was never opened").isFalse();
    } finally {
      first.close();
      second.close();
    }
  }

  @Test
  void aNewJobAfterTheLastWorkerClosedStartsWithAFreshClient() {
    WriteTargets.Opened old = NOWHERE.open();
    old.gaveUp(new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "lost"));
    old.close();
    assertThat(SpannerWrites.gaveUpOn(NOWHERE)).as("the last worker closed the client").isNull();
    WriteTargets.Opened fresh = NOWHERE.open();
    try {
      assertThat(SpannerWrites.gaveUpOn(NOWHERE)).isNull();
    } finally {
      fresh.close();
    }
  }
}
