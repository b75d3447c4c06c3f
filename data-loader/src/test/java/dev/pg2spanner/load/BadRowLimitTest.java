package dev.pg2spanner.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import org.junit.jupiter.api.Test;

class BadRowLimitTest {

  @Test
  void zeroStopsAtTheFirstRejectionAndNStopsAtNPlusOne() {
    assertThat(new BadRowLimit(0).exceededBy(0)).isFalse();
    assertThat(new BadRowLimit(0).exceededBy(1)).isTrue();
    assertThat(new BadRowLimit(3).exceededBy(3)).isFalse();
    assertThat(new BadRowLimit(3).exceededBy(4)).isTrue();
  }

  @Test
  void theFailureIsDataRejectedAndNamesTheLimit() {
    Pg2SpannerException e = new BadRowLimit(2).failure(3, "streamed changes", "; see /r/dead.jsonl");
    assertThat(e.code()).isEqualTo(ExitCode.DATA_REJECTED);
    assertThat(e.getMessage())
        .isEqualTo("3 streamed changes were rejected (limit --max-bad-rows 2); see /r/dead.jsonl");
  }

  @Test
  void aNegativeLimitIsRefused() {
    assertThatThrownBy(() -> new BadRowLimit(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative");
    assertThatThrownBy(() -> new LoadOptions(1, -1, java.nio.file.Path.of("r"), java.nio.file.Path.of("d"), false,
        java.time.Duration.ofSeconds(1), false)).isInstanceOf(IllegalArgumentException.class);
  }
}
