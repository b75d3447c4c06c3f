package dev.pg2spanner.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When continuous verification waits for a stream that is catching up. */
class ContinuousVerifierTest {

  private static final long MB = 1L << 20;

  @Test
  void aStreamCloseBehindTheSourceIsVerifiedAtOnce() {
    assertThat(ContinuousVerifier.deferForLag(0, 0)).isFalse();
    assertThat(ContinuousVerifier.deferForLag(900 * 1024, 0)).as("a steady workload's lag").isFalse();
    assertThat(ContinuousVerifier.deferForLag(ContinuousVerifier.CATCHING_UP_BYTES, 0)).isFalse();
  }

  @Test
  void aStreamCatchingUpOrNotYetMeasuredIsWaitedFor() {
    assertThat(ContinuousVerifier.deferForLag(ContinuousVerifier.CATCHING_UP_BYTES + 1, 0)).isTrue();
    assertThat(ContinuousVerifier.deferForLag(90 * MB, Duration.ofMinutes(4).toNanos())).isTrue();
    assertThat(ContinuousVerifier.deferForLag(-1, Duration.ofSeconds(3).toNanos())).as("before the first report")
        .isTrue();
  }

  @Test
  void aStreamThatStaysBehindIsVerifiedAnywayAfterTheLongestWait() {
    long longest = ContinuousVerifier.MAX_DEFER.toNanos();
    assertThat(ContinuousVerifier.deferForLag(90 * MB, longest)).isFalse();
    assertThat(ContinuousVerifier.deferForLag(-1, longest)).isFalse();
  }
}
