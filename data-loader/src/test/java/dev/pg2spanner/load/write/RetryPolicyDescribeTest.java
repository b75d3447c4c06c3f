package dev.pg2spanner.load.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerExceptionFactory;
import org.junit.jupiter.api.Test;

/** A Spanner error reads as its status and Spanner's own words once, whatever the client version wraps around them. */
class RetryPolicyDescribeTest {

  private static String describe(ErrorCode code, String message) {
    return RetryPolicy.describe(SpannerExceptionFactory.newSpannerException(code, message));
  }

  @Test
  void classNamesAndRepeatedCodesAreStripped() {
    // Spanner client 6.102 (Beam 2.70's) and 6.104 wrap an unreachable emulator differently.
    assertThat(describe(ErrorCode.UNAVAILABLE, "UnavailableException: io.grpc.StatusRuntimeException: UNAVAILABLE: "
        + "io exception")).isEqualTo("UNAVAILABLE: io exception");
    assertThat(describe(ErrorCode.UNAVAILABLE, "com.google.api.gax.rpc.UnavailableException: "
        + "io.grpc.StatusRuntimeException: UNAVAILABLE: io exception")).isEqualTo("UNAVAILABLE: io exception");
    assertThat(describe(ErrorCode.NOT_FOUND, "Table not found: orders: Exception: is Spanner's word here"))
        .as("only leading wrappers go").isEqualTo("NOT_FOUND: Table not found: orders: Exception: is Spanner's word here");
  }
}
