package dev.pg2spanner.targetdb;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerExceptionFactory;
import dev.pg2spanner.load.write.RetryPolicy;
import org.junit.jupiter.api.Test;

class SpannerFailuresTest {

  private static SpannerException failure(ErrorCode code, String message) {
    return SpannerExceptionFactory.newSpannerException(code, message);
  }

  @Test
  void whatACommitWouldRetryAnIdempotentCallRetriesToo() {
    // A commit is judged more narrowly than a read: anything it retries must be worth retrying for a read as well,
    // or a schema phase would stop on a failure the load rides out. Not FAILED_PRECONDITION: the commit retries only
    // the emulator's races between read-write transactions, which a single read or a Flyway call does not run into.
    for (ErrorCode code : ErrorCode.values()) {
      for (String message : new String[] {"x", "channel closed", "rst_stream", "invalid transaction id"}) {
        SpannerException e = failure(code, message);
        if (RetryPolicy.classify(e) == RetryPolicy.Verdict.RETRY && code != ErrorCode.FAILED_PRECONDITION) {
          assertThat(SpannerFailures.isTransientForIdempotentCall(e)).as(code + " " + message).isTrue();
        }
      }
    }
  }

  @Test
  void refusedContentIsNeitherTransientNorAReachFailure() {
    for (ErrorCode code : new ErrorCode[] {ErrorCode.INVALID_ARGUMENT, ErrorCode.ALREADY_EXISTS, ErrorCode.NOT_FOUND,
        ErrorCode.FAILED_PRECONDITION, ErrorCode.OUT_OF_RANGE, ErrorCode.UNIMPLEMENTED}) {
      SpannerException e = failure(code, "refused");
      assertThat(SpannerFailures.isTransientForIdempotentCall(e)).as(code.name()).isFalse();
      assertThat(SpannerFailures.isReachFailure(e)).as(code.name()).isFalse();
    }
  }

  @Test
  void credentialsAndPermissionsAreReachFailuresButNotWorthRepeating() {
    for (ErrorCode code : new ErrorCode[] {ErrorCode.UNAUTHENTICATED, ErrorCode.PERMISSION_DENIED}) {
      SpannerException e = failure(code, "denied");
      assertThat(SpannerFailures.isReachFailure(e)).isTrue();
      assertThat(SpannerFailures.isTransientForIdempotentCall(e)).isFalse();
    }
    assertThat(SpannerFailures.isReachFailure(failure(ErrorCode.UNAVAILABLE, "gone"))).isTrue();
  }
}
