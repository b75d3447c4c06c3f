package dev.pg2spanner.error;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 28: errors speak Spanner, not gRPC. The inputs are messages the emulator's client produced in a migrate. */
class ErrorTextTest {

  @Test
  void anOperationsWrapperIsRemovedAndSpannersOwnWordsKept() {
    assertThat(ErrorText.clean("V2__indexes.sql: Spanner rejected statement 2 of 2 (index t_f1 on t): "
        + "FAILED_PRECONDITION: Operation with name \"projects/p/instances/i/databases/d/operations/r1cdc3d68_bb84\" "
        + "failed with status = GrpcStatusCode{transportCode=FAILED_PRECONDITION} and message = Number of bytes for "
        + "key of index t_f1 is 10008 which exceeds the maximum of 8192.; 1 of its 2 statements are applied"))
        .isEqualTo("V2__indexes.sql: Spanner rejected statement 2 of 2 (index t_f1 on t): FAILED_PRECONDITION: "
            + "Number of bytes for key of index t_f1 is 10008 which exceeds the maximum of 8192.; 1 of its 2 "
            + "statements are applied");
  }

  @Test
  void classNamesAndRepeatedStatusCodesAreRemoved() {
    assertThat(ErrorText.clean("(check never on chk): INVALID_ARGUMENT: io.grpc.StatusRuntimeException: "
        + "INVALID_ARGUMENT: Check constraint `chk`.`never` does not use any non generated column."))
        .isEqualTo("(check never on chk): INVALID_ARGUMENT: Check constraint `chk`.`never` does not use any non "
            + "generated column.");
    assertThat(ErrorText.clean("cannot read (com.google.cloud.spanner.SpannerException: NOT_FOUND: Database not "
        + "found: projects/p)")).isEqualTo("cannot read (NOT_FOUND: Database not found: projects/p)");
  }

  @Test
  void aPlainMessageIsLeftAlone() {
    String plain = "table public.t no longer exists; run pg2spanner plan again (e.g. ERROR: relation \"x\")";
    assertThat(ErrorText.clean(plain)).isEqualTo(plain);
    assertThat(ErrorText.clean(null)).isNull();
  }
}
