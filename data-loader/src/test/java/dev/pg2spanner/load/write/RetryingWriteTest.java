package dev.pg2spanner.load.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerExceptionFactory;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.metrics.RunMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The commit loop the load and the live applier share: what it retries, returns, and hands to the caller's words. */
class RetryingWriteTest {

  private static final List<Mutation> ONE = List.of(Mutation.newInsertBuilder("t").set("id").to(1).build());

  /** Says which hook was called, with what. */
  private static final RetryingWrite.Failures WORDS = new RetryingWrite.Failures() {
    @Override
    public Pg2SpannerException refused(SpannerException e, boolean schemaMismatch) {
      return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED, "refused, schema " + schemaMismatch);
    }

    @Override
    public Pg2SpannerException exhausted(SpannerException last, int attempts, long seconds) {
      return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.STATED, "exhausted after " + attempts);
    }
  };

  private final List<Long> sleeps = new ArrayList<>();

  private RetryingWrite write(WriteTarget target, int attempts, Duration bound) {
    return new RetryingWrite(target, new RetryPolicy(attempts, Duration.ofMillis(100), Duration.ofSeconds(1),
        sleeps::add), () -> RunMetrics.unobserved("test"), bound);
  }

  private static WriteTarget failing(AtomicInteger calls, int times, ErrorCode code, String message) {
    return mutations -> {
      if (calls.incrementAndGet() <= times) {
        throw SpannerExceptionFactory.newSpannerException(code, message);
      }
    };
  }

  @Test
  void aTransientFailureIsRetriedUntilTheCommitSucceeds() {
    AtomicInteger calls = new AtomicInteger();
    RetryingWrite write = write(failing(calls, 2, ErrorCode.UNAVAILABLE, "try again"), 5, null);

    assertThat(write.write(ONE, "t", WORDS, () -> false)).isNull();
    assertThat(calls).hasValue(3);
    assertThat(sleeps).hasSize(2);
    assertThat(write.commits()).isEqualTo(1);
  }

  @Test
  void refusedContentIsReturnedForTheCallerToSplit() {
    AtomicInteger calls = new AtomicInteger();
    RetryingWrite write = write(failing(calls, 1, ErrorCode.INVALID_ARGUMENT, "bad value"), 5, null);

    SpannerException refused = write.write(ONE, "t", WORDS, () -> false);

    assertThat(refused.getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(calls).hasValue(1);
    assertThat(write.commits()).isZero();
  }

  @Test
  void aMissingColumnIsACallersRefusalNamedAsASchemaMismatch() {
    RetryingWrite write = write(failing(new AtomicInteger(), 9, ErrorCode.NOT_FOUND, "Column not found in table t: "
        + "gone"), 5, null);

    assertThatThrownBy(() -> write.write(ONE, "t", WORDS, () -> false)).hasMessage("refused, schema true");
    assertThat(sleeps).isEmpty();
  }

  @Test
  void theAttemptsRunOutIntoTheCallersWords() {
    AtomicInteger calls = new AtomicInteger();
    RetryingWrite write = write(failing(calls, 99, ErrorCode.UNAVAILABLE, "down"), 3, null);

    assertThatThrownBy(() -> write.write(ONE, "t", WORDS, () -> false)).hasMessage("exhausted after 3");
    assertThat(calls).hasValue(3);
  }

  @Test
  @Timeout(30) // a bound that did not hold would retry for minutes, not fail
  void theBoundEndsTheRetriesBeforeTheAttemptsRunOut() {
    AtomicInteger calls = new AtomicInteger();
    RetryingWrite write = new RetryingWrite(failing(calls, Integer.MAX_VALUE, ErrorCode.UNAVAILABLE, "down"),
        new RetryPolicy(1_000_000, Duration.ofMillis(20), Duration.ofMillis(20), Thread::sleep),
        () -> RunMetrics.unobserved("test"), Duration.ofMillis(200));

    assertThatThrownBy(() -> write.write(ONE, "t", WORDS, () -> false))
        .hasMessageStartingWith("exhausted after ");
    assertThat(calls.get()).isBetween(2, 1_000);
  }

  @Test
  @Timeout(30) // a bound that did not hold would retry for minutes, not fail
  void noBackoffSleepsPastTheBound() {
    List<Long> slept = new ArrayList<>();
    RetryingWrite write = new RetryingWrite(failing(new AtomicInteger(), Integer.MAX_VALUE, ErrorCode.UNAVAILABLE,
        "down"), new RetryPolicy(1_000, Duration.ofSeconds(1), Duration.ofSeconds(1), millis -> {
          slept.add(millis);
          Thread.sleep(millis);
        }), () -> RunMetrics.unobserved("test"), Duration.ofMillis(200));

    assertThatThrownBy(() -> write.write(ONE, "t", WORDS, () -> false)).hasMessageStartingWith("exhausted after ");
    assertThat(slept).isNotEmpty().allSatisfy(millis -> assertThat(millis).isLessThanOrEqualTo(200L));
  }

  @Test
  void aStoppingRunAbandonsTheCommitInsteadOfRetrying() {
    AtomicInteger calls = new AtomicInteger();
    RetryingWrite write = write(failing(calls, 99, ErrorCode.UNAVAILABLE, "down"), 5, null);

    assertThatThrownBy(() -> write.write(ONE, "t", WORDS, () -> calls.get() >= 2)).isInstanceOf(Stopped.class);
    assertThat(calls).hasValue(2);
  }

  @Test
  void anInterruptInTheBackoffIsTheCallersToNameAndIsKept() {
    RetryingWrite write = new RetryingWrite(failing(new AtomicInteger(), 99, ErrorCode.UNAVAILABLE, "down"),
        new RetryPolicy(5, Duration.ofMillis(1), Duration.ofMillis(1), millis -> {
          throw new InterruptedException();
        }), () -> RunMetrics.unobserved("test"), null);
    RetryingWrite.Failures named = new RetryingWrite.Failures() {
      @Override
      public Pg2SpannerException refused(SpannerException e, boolean schemaMismatch) {
        return WORDS.refused(e, schemaMismatch);
      }

      @Override
      public Pg2SpannerException exhausted(SpannerException last, int attempts, long seconds) {
        return WORDS.exhausted(last, attempts, seconds);
      }

      @Override
      public RuntimeException interrupted(InterruptedException e) {
        return new IllegalStateException("interrupted, named by the caller");
      }
    };

    try {
      assertThatThrownBy(() -> write.write(ONE, "t", named, () -> false))
          .hasMessage("interrupted, named by the caller");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThatThrownBy(() -> write.write(ONE, "t", WORDS, () -> false)).isInstanceOf(Stopped.class);
    Thread.interrupted();
  }
}
