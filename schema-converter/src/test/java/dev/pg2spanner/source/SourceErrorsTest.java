package dev.pg2spanner.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.preflight.TableLocks;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceErrorsTest {

  private static Pg2SpannerException reading(String state, String message, SourceErrors.Blockers blockers) {
    return SourceErrors.reading(new SQLException(message, state), "public.orders", "verify",
        WayOn.stated("run verify again"), "5s", blockers);
  }

  @Test
  void aLockTimeoutNamesTheTableTheLockAndTheSessionsBehindIt() {
    Pg2SpannerException e = reading("55P03", "ERROR: canceling statement due to lock timeout",
        relation -> List.of(new TableLocks.Holder("public.orders", 4242, "app", "2026-11-30 10:00:00 UTC",
            "ALTER TABLE orders ADD COLUMN note text", true)));
    assertThat(e.code()).isEqualTo(ExitCode.SOURCE_CONNECTION);
    // The way on travels as a value beside its words.
    assertThat(e.next()).isEqualTo(NextStep.STATED);
    assertThat(e.getMessage()).contains("verify could not read public.orders")
        .contains("ACCESS EXCLUSIVE lock on it: public.orders (pid 4242, user app")
        .contains("waiting for the lock: ALTER TABLE orders ADD COLUMN note text")
        .contains("waits for verify's own snapshot").contains("waited 5s (lock_timeout)")
        .contains("SELECT pg_cancel_backend(4242)").endsWith("run verify again");
  }

  @Test
  void aWayOnThatContinuesTheRunIsTypedSo() {
    Pg2SpannerException e = SourceErrors.reading(new SQLException("server closed the connection", "08006"),
        "public.orders", "migrate", WayOn.resume("rerun with --resume"), "5s", SourceErrors.NONE);
    assertThat(e.next()).isEqualTo(NextStep.RESUME);
    assertThat(e.getMessage()).endsWith("Then rerun with --resume");
  }

  @Test
  void aLockTimeoutWhoseHolderIsGoneStillSaysWhatHappened() {
    Pg2SpannerException e = reading("55P03", "lock timeout", SourceErrors.NONE);
    assertThat(e.code()).isEqualTo(ExitCode.SOURCE_CONNECTION);
    assertThat(e.getMessage()).contains("held or waited for an ACCESS EXCLUSIVE lock").doesNotContain("pid");
    Pg2SpannerException failedLookup = reading("55P03", "lock timeout", relation -> {
      throw new SQLException("too many clients", "53300");
    });
    assertThat(failedLookup.getMessage()).contains("it was gone before it could be named");
  }

  @Test
  void everyOtherStateHasItsDocumentedCode() {
    assertThat(reading("42501", "permission denied for table orders", SourceErrors.NONE).code())
        .isEqualTo(ExitCode.SOURCE_PRIVILEGES);
    for (String state : new String[] {"08006", "57P01", "57014", "40P01", "53100", "XX000", null}) {
      Pg2SpannerException e = reading(state, "something\nwith detail", SourceErrors.NONE);
      assertThat(e.code()).as(state).isEqualTo(ExitCode.SOURCE_CONNECTION);
      assertThat(e.getMessage()).as(state).contains("public.orders").contains("something")
          .doesNotContain("with detail").endsWith("run verify again");
    }
  }
}
