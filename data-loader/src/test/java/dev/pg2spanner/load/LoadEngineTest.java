package dev.pg2spanner.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerExceptionFactory;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.load.write.WriteTarget;
import dev.pg2spanner.plan.Plan;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine against an in-memory target: scheduling, checkpoints, stopping. The emulator run is LoadEngineIT. */
class LoadEngineTest {

  @TempDir
  Path dir;

  private final Map<String, Mutation> written = new ConcurrentHashMap<>();
  private final AtomicInteger writes = new AtomicInteger();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger sourcesOpened = new AtomicInteger();
  private final AtomicInteger sourcesClosed = new AtomicInteger();
  private final StringWriter printed = new StringWriter();

  private final Plan plan = BatchFixtures.plan(BatchFixtures.table("parent", 1, null),
      BatchFixtures.table("child", 0, "parent"), BatchFixtures.table("other", 0, null));

  private void write(List<Mutation> mutations) {
    writes.incrementAndGet();
    for (Mutation m : mutations) {
      written.put(m.getTable() + ":" + m.asMap().get("id").getInt64(), m);
    }
  }

  private LoadEngine engine(long maxBadRows, boolean parentsFirst) {
    LoadOptions options = new LoadOptions(4, maxBadRows, dir.resolve("run"), dir.resolve("dead.jsonl"),
        parentsFirst, Duration.ofMillis(50), false);
    return new LoadEngine(this::write, RetryPolicy.DEFAULT, plan, options, new PrintWriter(printed));
  }

  /** 100 rows a piece, ids from the piece's first block; in table "other", {@code rejectIds} are rejected. */
  private Supplier<PieceSource> source(List<Long> rejectIds) {
    return () -> {
      sourcesOpened.incrementAndGet();
      return new PieceSource() {
        @Override
        public long read(Piece piece, RowSink sink) {
          events.add("start " + piece.id());
          for (long i = 0; i < 100; i++) {
            long id = piece.firstBlock() * 100 + i;
            if (piece.table().equals("other") && rejectIds.contains(id)) {
              sink.reject(new RejectedRow(piece.table(), Long.toString(id), "payload", "?", "cannot convert"));
            } else {
              sink.accept(BatchFixtures.row(piece.table(), id, 50, 2));
            }
          }
          events.add("end " + piece.id());
          return 100;
        }

        @Override
        public void close() {
          sourcesClosed.incrementAndGet();
        }
      };
    };
  }

  private static List<Piece> pieces() {
    List<Piece> pieces = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      pieces.add(BatchFixtures.piece("parent", i, 0));
      pieces.add(BatchFixtures.piece("other", i, 0));
      pieces.add(BatchFixtures.piece("child", i, 1));
    }
    return pieces;
  }

  @Test
  void loadsEveryRowOnceAndAResumeLoadsNothing() throws Exception {
    LoadResult result = engine(0, true).run(pieces(), source(List.of()));
    assertThat(result.rowsWritten()).isEqualTo(1800);
    assertThat(written).hasSize(1800);
    assertThat(result.rowsRejected()).isZero();
    assertThat(result.tables()).extracting(TableLoadStats::table).containsExactly("parent", "child", "other");
    assertThat(result.tables()).allSatisfy(t -> assertThat(t.rows()).isEqualTo(600));
    assertThat(sourcesClosed.get()).isEqualTo(sourcesOpened.get()).isEqualTo(4);
    try (Checkpoint checkpoint = Checkpoint.open(dir.resolve("run"))) {
      assertThat(checkpoint.done()).hasSize(18);
      assertThat(checkpoint.savedPieces()).hasValueSatisfying(p -> assertThat(p).hasSize(18));
    }
    List<String> log = Files.readAllLines(dir.resolve("run").resolve(ProgressReporter.LOG_FILE));
    assertThat(new ObjectMapper().readTree(log.get(log.size() - 1)).get("status").asText()).isEqualTo("completed");
    assertThat(printed.toString()).contains("Loaded 1,800 rows");

    int writesBefore = writes.get();
    LoadResult again = engine(0, true).run(pieces(), source(List.of()));
    assertThat(again.rowsWritten()).isZero();
    assertThat(writes.get()).isEqualTo(writesBefore);
    assertThat(sourcesOpened.get()).isEqualTo(4); // no source connection for nothing to do
    assertThat(printed.toString()).contains("Nothing to load");
  }

  @Test
  void childPiecesStartOnlyAfterEveryParentLevelPieceEnded() throws Exception {
    engine(0, true).run(pieces(), source(List.of()));
    int lastLevel0End = -1;
    int firstChildStart = Integer.MAX_VALUE;
    for (int i = 0; i < events.size(); i++) {
      String e = events.get(i);
      if (e.startsWith("end ") && !e.contains("child")) {
        lastLevel0End = i;
      }
      if (e.startsWith("start child")) {
        firstChildStart = Math.min(firstChildStart, i);
      }
    }
    assertThat(lastLevel0End).isLessThan(firstChildStart);
  }

  @Test
  void tooManyRejectionsStopTheRunNamingTheFile() throws Exception {
    Path deadLetter = dir.resolve("dead.jsonl");
    assertThatThrownBy(() -> engine(2, false).run(pieces(), source(List.of(5L, 10L, 15L))))
        .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
          assertThat(e.code()).isEqualTo(ExitCode.DATA_REJECTED);
          assertThat(e.getMessage()).startsWith("3 rows were rejected (limit --max-bad-rows 2); see ")
              .endsWith(deadLetter.toString());
        });
    assertThat(Files.readAllLines(deadLetter)).hasSize(3);
    try (Checkpoint checkpoint = Checkpoint.open(dir.resolve("run"))) {
      // The piece with the rejections stopped before its last commit: it is not done.
      assertThat(checkpoint.isDone("other#0")).isFalse();
    }
  }

  @Test
  void aResumedRunCountsEveryRowTheWholeRunRejected() throws Exception {
    // The first process rejects two rows of "other" (level 0, all done before any child piece starts), then fails
    // on a child piece; the resume loads the child pieces and rejects one more row.
    assertThatThrownBy(() -> engine(10, true).run(pieces(), rejecting("other#1", "child#3"))).isInstanceOf(
        Pg2SpannerException.class);
    LoadResult resumed = engine(10, true).run(pieces(), rejecting("child#3", null));
    assertThat(resumed.rowsRejected()).as("the whole run's rejected rows").isEqualTo(3);
    assertThat(resumed.tables()).filteredOn(t -> t.table().equals("child")).singleElement()
        .satisfies(t -> assertThat(t.rejected()).isEqualTo(1));
    assertThat(printed.toString()).contains("3 rows rejected in the whole run");
    List<String> log = Files.readAllLines(dir.resolve("run").resolve(ProgressReporter.LOG_FILE));
    assertThat(new ObjectMapper().readTree(log.get(log.size() - 1)).get("rowsRejected").asLong()).isEqualTo(3);
  }

  /** Rejects the rows of piece {@code rejectIn} (two for "other", one otherwise); fails on {@code failOn}. */
  private static Supplier<PieceSource> rejecting(String rejectIn, String failOn) {
    return () -> new PieceSource() {
      @Override
      public long read(Piece piece, RowSink sink) throws Exception {
        if (piece.id().equals(failOn)) {
          throw new SQLException("connection reset");
        }
        if (piece.id().equals(rejectIn)) {
          sink.reject(new RejectedRow(piece.table(), piece.id() + "/1", "payload", "?", "cannot convert"));
          if (piece.table().equals("other")) {
            sink.reject(new RejectedRow(piece.table(), piece.id() + "/2", "payload", "?", "cannot convert"));
          }
        }
        return 0;
      }

      @Override
      public void close() {}
    };
  }

  @Test
  void aSourceFailureFailsTheRunAndLeavesThePieceToBeRedone() throws Exception {
    Supplier<PieceSource> failing = () -> new PieceSource() {
      @Override
      public long read(Piece piece, RowSink sink) throws Exception {
        if (piece.id().equals("other#3")) {
          throw new SQLException("connection reset");
        }
        return 0;
      }

      @Override
      public void close() {}
    };
    assertThatThrownBy(() -> engine(0, false).run(pieces(), failing))
        .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
          assertThat(e.code()).isEqualTo(ExitCode.SOURCE_CONNECTION);
          assertThat(e.getMessage()).contains("other#3").contains("connection reset").contains("--resume");
        });
    try (Checkpoint checkpoint = Checkpoint.open(dir.resolve("run"))) {
      assertThat(checkpoint.isDone("other#3")).isFalse();
    }
    // The resume finishes the job.
    LoadResult resumed = engine(0, false).run(pieces(), source(List.of()));
    assertThat(resumed.rowsWritten()).isPositive();
    try (Checkpoint checkpoint = Checkpoint.open(dir.resolve("run"))) {
      assertThat(checkpoint.done()).hasSize(18);
    }
  }

  @Test
  void whenOneWorkerSpendsItsRetriesTheOthersCommitsAndBackoffsAreCancelledAtOnce() throws Exception {
    // A lost target, as three workers see it: "parent" fails fast and spends its retries; "other" has a commit in
    // flight that only its own deadline would end (a dead connection); "child" is in a long backoff. The run must
    // stop when "parent" gives up, not when the others' deadline and backoff have run out.
    java.util.concurrent.CountDownLatch othersWaiting = new java.util.concurrent.CountDownLatch(2);
    Set<Thread> longSleepers = ConcurrentHashMap.newKeySet();
    AtomicInteger cancelledCommits = new AtomicInteger();
    WriteTarget lost = mutations -> {
      String table = mutations.get(0).getTable();
      if (table.equals("other")) {
        java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
        io.grpc.Context.current().addListener(c -> cancelled.countDown(), Runnable::run);
        othersWaiting.countDown();
        try {
          cancelled.await(2, TimeUnit.MINUTES); // the stand-in for a long commit deadline
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        cancelledCommits.incrementAndGet();
        throw SpannerExceptionFactory.newSpannerException(com.google.cloud.spanner.ErrorCode.CANCELLED,
            "the call was cancelled");
      }
      if (table.equals("child")) {
        longSleepers.add(Thread.currentThread());
        othersWaiting.countDown();
      } else {
        try {
          othersWaiting.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      throw SpannerExceptionFactory.newSpannerException(com.google.cloud.spanner.ErrorCode.UNAVAILABLE,
          "connection refused");
    };
    RetryPolicy retry = new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(10),
        ms -> Thread.sleep(longSleepers.contains(Thread.currentThread()) ? TimeUnit.MINUTES.toMillis(2) : ms));
    LoadOptions options = new LoadOptions(3, 0, dir.resolve("run"), dir.resolve("dead.jsonl"), false,
        Duration.ofMillis(50), false);
    LoadEngine engine = new LoadEngine(lost, retry, plan, options, new PrintWriter(printed));
    List<Piece> pieces = List.of(BatchFixtures.piece("parent", 0, 0), BatchFixtures.piece("other", 0, 0),
        BatchFixtures.piece("child", 0, 0));

    CompletableFuture<Throwable> run = CompletableFuture.supplyAsync(() -> {
      try {
        engine.run(pieces, source(List.of()));
        return null;
      } catch (Throwable t) {
        return t;
      }
    });
    Throwable failure = run.get(1, TimeUnit.MINUTES); // a hang guard: without the cancel, this waits 2 minutes

    assertThat(failure).isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
      assertThat(e.code()).isEqualTo(ExitCode.TARGET_CONNECTION);
      assertThat(e.getMessage()).contains("table parent").contains("after 3 attempts").contains("--resume");
    });
    assertThat(cancelledCommits.get()).isEqualTo(1);
    try (Checkpoint checkpoint = Checkpoint.open(dir.resolve("run"))) {
      assertThat(checkpoint.done()).isEmpty(); // nothing half-done is marked done: a resume redoes all three
    }
  }

  @Test
  void aPieceOfATableThePlanLacksIsRejectedBeforeLoading() {
    List<Piece> pieces = List.of(BatchFixtures.piece("ghost", 0, 0));
    assertThatThrownBy(() -> engine(0, false).run(pieces, source(List.of())))
        .isInstanceOfSatisfying(Pg2SpannerException.class,
            e -> assertThat(e.code()).isEqualTo(ExitCode.PLAN_INVALID));
  }
}
