package dev.pg2spanner.fallback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which failures to open the source fallback's reconnect retries, and which it stops at (a refusal). */
class FallbackRunTest {

  private static Pg2SpannerException translated(String sqlState) {
    return new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot connect",
        new SQLException("the server said so", sqlState));
  }

  @Test
  void aSourceOutOfReachOrNotReadyIsRetried() {
    for (String state : new String[] {"08001", "08006", "08003", "57P01", "57P02", "57P03", "53300", "57014",
        "40001", "40P01"}) {
      assertThat(FallbackRun.unreachable(translated(state))).as(state).isTrue();
      assertThat(FallbackRun.unreachable(new SQLException("x", state))).as(state).isTrue();
    }
  }

  @Test
  void aSourceThatAnsweredWithARefusalIsNot() {
    // 55000: the database takes no connections; 28P01: the password; 3D000: the database is gone; 42501: a privilege
    // 08004: the server rejected the connection (pgjdbc: it asks for a password and none was given)
    for (String state : new String[] {"55000", "28P01", "28000", "3D000", "42501", "08004", "55P03"}) {
      assertThat(FallbackRun.unreachable(translated(state))).as(state).isFalse();
    }
    assertThat(FallbackRun.unreachable(new SQLException("no state"))).isFalse();
    assertThat(FallbackRun.unreachable(new IllegalStateException("x"))).isFalse();
  }

  @Test
  void theRunsApplicationNameIsItsOwnAndFitsPostgres() {
    FallbackState a = new FallbackState(1, FallbackState.STREAM, "2026-11-28T22:41:15.123456789Z", List.of(), FallbackState.Phase.RECORDING);
    FallbackState b = new FallbackState(1, FallbackState.STREAM, "2026-11-28T22:41:15.123456790Z", List.of(), FallbackState.Phase.RECORDING);
    assertThat(FallbackRun.tag(a)).isEqualTo("pg2spanner fallback 2026-11-28T22:41:15.123456789Z")
        .isNotEqualTo(FallbackRun.tag(b));
    assertThat(FallbackRun.tag(a).length()).isLessThanOrEqualTo(63); // NAMEDATALEN - 1: longer is cut by the server
  }
}
