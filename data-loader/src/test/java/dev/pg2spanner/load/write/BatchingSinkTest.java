package dev.pg2spanner.load.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerExceptionFactory;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.BatchFixtures;
import dev.pg2spanner.load.row.CommitLimits;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.row.RejectedRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchingSinkTest {

  private final List<List<Mutation>> commits = new ArrayList<>();
  private final List<RejectedRow> rejected = new ArrayList<>();
  private final List<Long> sleeps = new ArrayList<>();
  private final RetryPolicy retry = new RetryPolicy(4, Duration.ofMillis(100), Duration.ofSeconds(1), sleeps::add);

  private BatchingSink sink(WriteTarget target) {
    ProgressTracker tracker = new ProgressTracker(List.of(BatchFixtures.piece("t", 0, 0)), List.of("t"));
    return new BatchingSink(new WriteCommitter(target, retry), rejected::add, () -> false, tracker);
  }

  private BatchingSink recordingSink() {
    return sink(commits::add);
  }

  @Test
  void commitsStayUnderTheByteTarget() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 0);
    long rowBytes = 100_000;
    for (int i = 0; i < 100; i++) {
      sink.accept(BatchFixtures.row("t", i, rowBytes, 2));
    }
    assertThat(sink.finish()).isEqualTo(100);
    // 2 MiB / 100 kB = 20.97: 20 rows per commit, never 21.
    assertThat(commits).allSatisfy(c -> assertThat(c.size() * rowBytes).isLessThanOrEqualTo(
        CommitLimits.TARGET_COMMIT_BYTES));
    assertThat(commits.get(0)).hasSize(20);
    assertThat(commits.stream().mapToInt(List::size).sum()).isEqualTo(100);
    assertThat(rejected).isEmpty();
  }

  @Test
  void mutationCountIncludesTheIndexMultiplier() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 3);
    for (int i = 0; i < 2_000; i++) {
      sink.accept(BatchFixtures.row("t", i, 10, 10));
    }
    sink.finish();
    // 10 cells × (1 + 3 indexes) = 40 mutations a row: 20,000 / 40 = 500 rows a commit.
    assertThat(commits).hasSize(4).allSatisfy(c -> assertThat(c).hasSize(500));
  }

  @Test
  void withoutIndexesMoreRowsFitACommit() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 0);
    for (int i = 0; i < 2_000; i++) {
      sink.accept(BatchFixtures.row("t", i, 10, 10));
    }
    sink.finish();
    assertThat(commits).hasSize(1);
  }

  @Test
  void aRowAboveTheTargetButWithinSpannersLimitsIsCommittedAlone() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 0);
    sink.accept(BatchFixtures.row("t", 1, 10, 2));
    sink.accept(BatchFixtures.row("t", 2, 5L << 20, 2));
    sink.accept(BatchFixtures.row("t", 3, 10, 2));
    sink.finish();
    assertThat(commits).extracting(List::size).containsExactly(1, 1, 1);
    assertThat(rejected).isEmpty();
  }

  @Test
  void aRowWithTooManyMutationsIsRejected() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 3);
    sink.accept(BatchFixtures.row("t", 1, 10, 20_001)); // 80,004 mutations
    sink.accept(BatchFixtures.row("t", 2, 10, 20_000)); // exactly 80,000: allowed, alone
    assertThat(sink.finish()).isEqualTo(1);
    assertThat(rejected).singleElement().satisfies(r -> {
      assertThat(r.key()).isEqualTo("1");
      assertThat(r.table()).isEqualTo("t");
      assertThat(r.reason()).contains("80004 mutations").contains("80000");
    });
  }

  @Test
  void aRowAboveTheCommitLimitIsRejected() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 0);
    sink.accept(BatchFixtures.row("t", 1, CommitLimits.SPANNER.maxCommitBytes() + 1, 2));
    sink.finish();
    assertThat(commits).isEmpty();
    assertThat(rejected).singleElement().satisfies(r -> assertThat(r.reason()).contains("bytes per commit"));
  }

  @Test
  void aCellAboveTheCellLimitIsRejectedNamingTheColumn() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 0);
    String big = "x".repeat(CommitLimits.SPANNER.maxCellBytes() + 1);
    sink.accept(new ConvertedRow(Mutation.newInsertOrUpdateBuilder("t").set("id").to(1L).set("payload").to(big)
        .build(), "1", big.length() + 8, 2));
    // Eleven cells of 1 MiB: the row is above 10 MiB, no cell is.
    Mutation.WriteBuilder many = Mutation.newInsertOrUpdateBuilder("t").set("id").to(2L);
    for (int i = 0; i < 11; i++) {
      many.set("c" + i).to(Value.string("y".repeat(1 << 20)));
    }
    sink.accept(new ConvertedRow(many.build(), "2", 11L << 20, 12));
    sink.finish();
    assertThat(rejected).singleElement().satisfies(r -> {
      assertThat(r.key()).isEqualTo("1");
      assertThat(r.column()).isEqualTo("payload");
      assertThat(r.reason()).contains("bytes per cell");
    });
    assertThat(commits).singleElement().satisfies(c -> assertThat(c).hasSize(1));
  }

  @Test
  void aRowAndACellExactlyAtSpannersLimitsAreWritten() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 0);
    sink.accept(BatchFixtures.row("t", 1, CommitLimits.SPANNER.maxCommitBytes(), 2));
    String largest = "x".repeat(CommitLimits.SPANNER.maxCellBytes());
    sink.accept(new ConvertedRow(Mutation.newInsertOrUpdateBuilder("t").set("id").to(2L).set("payload").to(largest)
        .build(), "2", largest.length() + 8, 2));
    assertThat(sink.finish()).isEqualTo(2);
    assertThat(rejected).isEmpty();
    assertThat(commits.stream().mapToInt(List::size).sum()).isEqualTo(2);
  }

  @Test
  void sourceRejectionsPassThrough() {
    BatchingSink sink = recordingSink();
    sink.begin("t", 0);
    sink.reject(new RejectedRow("t", "9", "payload", "NaN", "NUMERIC has no NaN"));
    assertThat(rejected).extracting(RejectedRow::key).containsExactly("9");
  }

  @Test
  void bisectRejectsOnlyTheRowsSpannerRefuses() {
    WriteTarget target = mutations -> {
      for (Mutation m : mutations) {
        long id = m.asMap().get("id").getInt64();
        if (id == 17 || id == 60) {
          throw SpannerExceptionFactory.newSpannerException(ErrorCode.FAILED_PRECONDITION,
              "io.grpc.StatusRuntimeException: FAILED_PRECONDITION: id " + id + " is bad");
        }
      }
      commits.add(List.copyOf(mutations));
    };
    BatchingSink sink = sink(target);
    sink.begin("t", 0);
    for (int i = 0; i < 100; i++) {
      sink.accept(BatchFixtures.row("t", i, 10, 2));
    }
    assertThat(sink.finish()).isEqualTo(98);
    assertThat(rejected).extracting(RejectedRow::key).containsExactly("17", "60");
    assertThat(rejected.get(0).reason()).isEqualTo("Spanner refused the row: FAILED_PRECONDITION: id 17 is bad");
    assertThat(commits.stream().flatMap(List::stream).map(m -> m.asMap().get("id").getInt64()))
        .hasSize(98).doesNotHaveDuplicates().doesNotContain(17L, 60L);
  }

  @Test
  void transientFailuresAreRetriedWithBackoff() {
    int[] calls = {0};
    WriteTarget target = mutations -> {
      if (calls[0]++ < 2) {
        throw SpannerExceptionFactory.newSpannerException(ErrorCode.UNAVAILABLE, "try again");
      }
      commits.add(mutations);
    };
    BatchingSink sink = sink(target);
    sink.begin("t", 0);
    sink.accept(BatchFixtures.row("t", 1, 10, 2));
    assertThat(sink.finish()).isEqualTo(1);
    assertThat(commits).hasSize(1);
    assertThat(sleeps).hasSize(2);
    // Equal jitter: between half and all of 100 ms, then of 200 ms.
    assertThat(sleeps.get(0)).isBetween(50L, 100L);
    assertThat(sleeps.get(1)).isBetween(100L, 200L);
  }

  @Test
  void exhaustedRetriesFailTheRunWithOneSentence() {
    BatchingSink sink = sink(mutations -> {
      throw SpannerExceptionFactory.newSpannerException(ErrorCode.DEADLINE_EXCEEDED, "too slow");
    });
    sink.begin("t", 0);
    sink.accept(BatchFixtures.row("t", 1, 10, 2));
    assertThatThrownBy(sink::finish).isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
      assertThat(e.code()).isEqualTo(ExitCode.TARGET_CONNECTION);
      assertThat(e.getMessage()).contains("table t").contains("after 4 attempts").contains("DEADLINE_EXCEEDED");
    });
    assertThat(sleeps).hasSize(3);
  }

  @Test
  void aMissingTableFailsInsteadOfRejectingEveryRow() {
    BatchingSink sink = sink(mutations -> {
      throw SpannerExceptionFactory.newSpannerException(ErrorCode.NOT_FOUND, "Table not found: t");
    });
    sink.begin("t", 0);
    sink.accept(BatchFixtures.row("t", 1, 10, 2));
    sink.accept(BatchFixtures.row("t", 2, 10, 2));
    assertThatThrownBy(sink::finish).isInstanceOfSatisfying(Pg2SpannerException.class,
        e -> assertThat(e.code()).isEqualTo(ExitCode.TARGET_CONFLICT));
    assertThat(rejected).isEmpty();
  }

  @Test
  void theRefusedColumnIsTakenFromSpannersMessage() {
    assertThat(WriteCommitter.refusedColumn(SpannerExceptionFactory.newSpannerException(
        ErrorCode.FAILED_PRECONDITION, "New value exceeds the maximum size limit for this column: Strict.Code, size: 11")))
        .isEqualTo("Code");
    assertThat(WriteCommitter.refusedColumn(SpannerExceptionFactory.newSpannerException(
        ErrorCode.FAILED_PRECONDITION, "Cannot specify a null value for column: Strict.Label in table: Strict")))
        .isEqualTo("Label");
    assertThat(WriteCommitter.refusedColumn(SpannerExceptionFactory.newSpannerException(
        ErrorCode.INVALID_ARGUMENT, "bad row"))).isNull();
  }

  @Test
  void classifiesSpannerErrors() {
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.ABORTED, "x")))
        .isEqualTo(RetryPolicy.Verdict.RETRY);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.RESOURCE_EXHAUSTED, "x")))
        .isEqualTo(RetryPolicy.Verdict.RETRY);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.INTERNAL,
        "Received unexpected EOS on DATA frame from server"))).isEqualTo(RetryPolicy.Verdict.RETRY);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.INTERNAL, "boom")))
        .isEqualTo(RetryPolicy.Verdict.FAIL);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.FAILED_PRECONDITION,
        "Invalid transaction ID"))).isEqualTo(RetryPolicy.Verdict.RETRY);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.OUT_OF_RANGE, "x")))
        .isEqualTo(RetryPolicy.Verdict.REJECT_ROWS);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.NOT_FOUND,
        "Parent row for row [1,2] in table child is missing. Row cannot be written.")))
        .isEqualTo(RetryPolicy.Verdict.REJECT_ROWS);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.PERMISSION_DENIED, "x")))
        .isEqualTo(RetryPolicy.Verdict.FAIL);
    // The target's process killed under a call in flight (seen by TargetLostIT): the transport's, not the rows'.
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.UNKNOWN,
        "io.grpc.StatusRuntimeException: UNKNOWN: channel closed"))).isEqualTo(RetryPolicy.Verdict.RETRY);
    assertThat(RetryPolicy.classify(SpannerExceptionFactory.newSpannerException(ErrorCode.UNKNOWN, "boom")))
        .isEqualTo(RetryPolicy.Verdict.FAIL);
  }
}
