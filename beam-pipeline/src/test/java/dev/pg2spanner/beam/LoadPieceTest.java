package dev.pg2spanner.beam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerExceptionFactory;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.source.Piece;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/**
 * The load step with an in-memory source and target: every piece is read once after the Reshuffle and its rows are
 * committed where they were read, with the in-process loader's batching and commit loop; rejected rows, from the
 * converters or refused by the target, reach the dead-letter output as the in-process dead-letter file's JSON lines.
 */
class LoadPieceTest {

  /** A source whose piece "t#k" holds rows 1..k of table t; rows divisible by 5 are rejected. */
  static final class FakeSources implements PieceSourceFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public PieceSource open() {
      return new PieceSource() {
        @Override
        public long read(Piece piece, RowSink sink) {
          int rows = Integer.parseInt(piece.id().substring(piece.id().indexOf('#') + 1));
          for (long i = 1; i <= rows; i++) {
            if (i % 5 == 0) {
              sink.reject(new RejectedRow(piece.table(), piece.id() + "/" + i, "v", "x", "bad value " + i));
            } else {
              Mutation m = Mutation.newInsertOrUpdateBuilder(piece.table()).set("id").to(piece.id() + "/" + i)
                  .build();
              sink.accept(new ConvertedRow(m, piece.id() + "/" + i, 8, 1));
            }
          }
          return rows;
        }

        @Override
        public void close() {}
      };
    }
  }

  /** What the kept targets of one test received: commits of "table:id" keys, by the test's name. */
  static final Map<String, Queue<List<String>>> COMMITS = new ConcurrentHashMap<>();
  /** Targets opened and closed, by the test's name (every DoFn instance must close what it opened). */
  static final Map<String, AtomicInteger> OPEN = new ConcurrentHashMap<>();

  /**
   * A target that keeps each commit; it refuses (as Spanner refuses a value) every batch holding the key
   * {@code refuse}, and with {@code missingTable} refuses every commit as a table Spanner does not have.
   */
  record KeptTargets(String test, String refuse, boolean missingTable) implements WriteTargets {
    private static final long serialVersionUID = 1L;

    @Override
    public Opened open() {
      OPEN.computeIfAbsent(test, t -> new AtomicInteger()).incrementAndGet();
      return new Opened() {
        @Override
        public void write(List<Mutation> mutations) {
          List<String> keys = mutations.stream().map(m -> m.getTable() + ":" + m.asMap().get("id").getString())
              .toList();
          if (missingTable) {
            throw SpannerExceptionFactory.newSpannerException(ErrorCode.NOT_FOUND, "Table not found: "
                + mutations.get(0).getTable());
          }
          if (keys.stream().anyMatch(k -> k.endsWith(":" + refuse))) {
            throw SpannerExceptionFactory.newSpannerException(ErrorCode.FAILED_PRECONDITION,
                "Check constraint `chk` is violated for key (" + refuse + ")");
          }
          COMMITS.computeIfAbsent(test, t -> new ConcurrentLinkedQueue<>()).add(keys);
        }

        @Override
        public void close() {
          OPEN.get(test).decrementAndGet();
        }
      };
    }
  }

  private static LoadPipeline.LoadPieces load(WriteTargets targets) {
    return new LoadPipeline.LoadPieces(new LoadPiece(new FakeSources(), targets, Map.of("a", 0, "b", 2)));
  }

  private static void run(TestPipeline pipeline, Runnable body) throws Throwable {
    pipeline.apply(new Statement() {
      @Override
      public void evaluate() {
        body.run();
      }
    }, Description.createTestDescription(LoadPieceTest.class, "pipeline")).evaluate();
  }

  private static PieceSpec piece(String table, int rows, int level) {
    return new PieceSpec(table + "#" + rows, table, "public." + table, "public", table, true, 0, null, level, rows);
  }

  @Test
  void eachPiecesRowsAreCommittedWhereReadAndRejectedRowsBecomeDeadLetterJson() throws Throwable {
    TestPipeline pipeline = TestPipeline.create();
    run(pipeline, () -> {
      PCollectionTuple out = pipeline
          .apply(Create.of(piece("a", 7, 0), piece("b", 10, 0)).withCoder(SerializableCoder.of(PieceSpec.class)))
          .apply(load(new KeptTargets("commit", "none", false)));
      // One count per piece: the rows it committed (the level's "written" signal).
      PAssert.that(out.get(LoadPiece.WRITTEN)).containsInAnyOrder(6L, 8L);
      PAssert.that(out.get(LoadPiece.REJECTED)).containsInAnyOrder(
          "{\"table\":\"a\",\"key\":\"a#7/5\",\"column\":\"v\",\"valueExcerpt\":\"x\",\"reason\":\"bad value 5\"}",
          "{\"table\":\"b\",\"key\":\"b#10/5\",\"column\":\"v\",\"valueExcerpt\":\"x\",\"reason\":\"bad value 5\"}",
          "{\"table\":\"b\",\"key\":\"b#10/10\",\"column\":\"v\",\"valueExcerpt\":\"x\",\"reason\":\"bad value 10\"}");
      pipeline.run().waitUntilFinish();
    });
    // Both pieces fit one commit each, and a commit never mixes tables (a piece is one table).
    assertThat(COMMITS.get("commit")).containsExactlyInAnyOrder(
        List.of("a:a#7/1", "a:a#7/2", "a:a#7/3", "a:a#7/4", "a:a#7/6", "a:a#7/7"),
        List.of("b:b#10/1", "b:b#10/2", "b:b#10/3", "b:b#10/4", "b:b#10/6", "b:b#10/7", "b:b#10/8", "b:b#10/9"));
    assertThat(OPEN.get("commit")).hasValue(0);
  }

  @Test
  void aRowTheTargetRefusesIsBisectedOutAndDeadLetteredWithTheTargetsReason() throws Throwable {
    TestPipeline pipeline = TestPipeline.create();
    LoadPipeline.Counts[] counts = new LoadPipeline.Counts[1];
    run(pipeline, () -> {
      PCollectionTuple out = pipeline
          .apply(Create.of(piece("b", 10, 0)).withCoder(SerializableCoder.of(PieceSpec.class)))
          .apply(load(new KeptTargets("refuse", "b#10/7", false)));
      PAssert.that(out.get(LoadPiece.WRITTEN)).containsInAnyOrder(7L);
      PAssert.that(out.get(LoadPiece.REJECTED)).satisfies(lines -> {
        assertThat(lines).hasSize(3).anySatisfy(line -> assertThat(line)
            .startsWith("{\"table\":\"b\",\"key\":\"b#10/7\",")
            .contains("Spanner refused the row: FAILED_PRECONDITION").contains("Check constraint `chk`"));
        return null;
      });
      org.apache.beam.sdk.PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      counts[0] = LoadPipeline.counts(result);
    });
    // Its batch-mates were committed: every row but the refused one and the two the converters rejected.
    assertThat(COMMITS.get("refuse").stream().flatMap(List::stream)).containsExactlyInAnyOrder("b:b#10/1",
        "b:b#10/2", "b:b#10/3", "b:b#10/4", "b:b#10/6", "b:b#10/8", "b:b#10/9");
    assertThat(counts[0].rowsConverted()).isEqualTo(8);
    assertThat(counts[0].rowsFailed()).isEqualTo(1);
    assertThat(counts[0].rowsWritten()).isEqualTo(7);
    assertThat(counts[0].rowsCommitted()).isEqualTo(7);
    assertThat(counts[0].deadLetters()).isEqualTo(3);
  }

  @Test
  void aTargetWithoutTheTableFailsTheJobWithTheBeamWayOnNotResume() {
    TestPipeline pipeline = TestPipeline.create();
    assertThatThrownBy(() -> run(pipeline, () -> {
      pipeline.apply(Create.of(piece("a", 3, 0)).withCoder(SerializableCoder.of(PieceSpec.class)))
          .apply(load(new KeptTargets("missing", "none", true)));
      try {
        pipeline.run().waitUntilFinish();
      } catch (RuntimeException e) {
        LoadPipeline.rethrowOwn(e);
        throw e;
      }
    })).isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("Spanner refused a commit to table a (NOT_FOUND: Table not found: a)")
        .hasMessageEndingWith("then " + LoadPiece.WAY_ON.words() + ".")
        .hasMessageNotContaining("--resume.");
  }

  @Test
  void theJobsMetricsCountRowsCommitsAndTheTimeSplit() throws Throwable {
    TestPipeline pipeline = TestPipeline.create();
    LoadPipeline.Counts[] counts = new LoadPipeline.Counts[1];
    run(pipeline, () -> {
      pipeline
          .apply(Create.of(piece("a", 7, 0), piece("b", 10, 0)).withCoder(SerializableCoder.of(PieceSpec.class)))
          .apply(load(new KeptTargets("metrics", "none", false)));
      org.apache.beam.sdk.PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      counts[0] = LoadPipeline.counts(result);
    });
    assertThat(counts[0].rowsRead()).isEqualTo(17);
    assertThat(counts[0].rowsConverted()).isEqualTo(14);
    assertThat(counts[0].rowsRejected()).isEqualTo(3);
    assertThat(counts[0].rowsFailed()).isZero();
    assertThat(counts[0].commits()).isEqualTo(2);
    assertThat(counts[0].rowsCommitted()).isEqualTo(14);
    // Wired up, whatever the machine's speed: the readers ran.
    assertThat(counts[0].readNanos()).isPositive();
  }

  @Test
  void theTimeSplitNamesTheMeasuredPartsAndDerivesTheRestOnlyForAFixedPool() {
    LoadPipeline.Counts counts = new LoadPipeline.Counts(100, 90, 10, 0, 2_500_000_000L, 500_000_000L,
        6_000_000_000L, 3, 90);
    assertThat(counts.timeSplit(java.time.Duration.ofSeconds(10), 2)).isEqualTo("Worker time: read 2.5 s, "
        + "batch 0.5 s, write 6.0 s (3 commits, 30 rows each on average), other 11.0 s (2 threads x 10.0 s minus the "
        + "measured parts: the runner's bundling and shuffles, idle).");
    assertThat(counts.timeSplit(java.time.Duration.ofSeconds(10), 0))
        .isEqualTo("Worker time: read 2.5 s, batch 0.5 s, write 6.0 s (3 commits, 30 rows each on average).");
    assertThat(new LoadPipeline.Counts(0, 0, 0, 0, 0, 0, 0, 0, 0).timeSplit(java.time.Duration.ofSeconds(1), 2))
        .startsWith("Worker time: read 0.0 s, batch 0.0 s, write 0.0 s (0 commits), other 2.0 s");
  }

  @Test
  void piecesSurviveTheCoderAndAreGroupedByLevelInOrder() {
    Piece parent = new Piece("p#public.p:0-8", "p", "public.p", "public", "p", true, 0, 8L, 0, 100);
    Piece tail = new Piece("p#public.p:8-", "p", "public.p", "public", "p", true, 8, null, 0, 10);
    Piece child = new Piece("c#public.c:0-", "c", "public.c", "public", "c", true, 0, null, 1, 50);
    Map<Integer, List<PieceSpec>> levels = LoadPipeline.byLevel(List.of(child, parent, tail));
    assertThat(levels.keySet()).containsExactly(0, 1);
    assertThat(levels.get(0)).extracting(PieceSpec::toPiece).containsExactly(parent, tail);
    assertThat(levels.get(1)).extracting(PieceSpec::toPiece).containsExactly(child);
  }

  @Test
  void createThenReshuffleDeliversEveryPieceExactlyOnce() throws Throwable {
    TestPipeline pipeline = TestPipeline.create();
    List<PieceSpec> pieces = new ArrayList<>();
    for (int i = 1; i <= 50; i++) {
      pieces.add(piece("t", i, 0));
    }
    run(pipeline, () -> {
      PCollection<String> ids = pipeline
          .apply(Create.of(pieces).withCoder(SerializableCoder.of(PieceSpec.class)))
          .apply(org.apache.beam.sdk.transforms.Reshuffle.viaRandomKey())
          .apply(MapElements.into(TypeDescriptors.strings()).via(PieceSpec::id));
      PAssert.that(ids).containsInAnyOrder(pieces.stream().map(PieceSpec::id).collect(Collectors.toList()));
      pipeline.run().waitUntilFinish();
    });
  }

  @Test
  void eachTablesIndexCountComesFromThePlan() {
    var index = new dev.pg2spanner.plan.IndexPlan("accounts_email", "AccountsByEmail",
        List.of(dev.pg2spanner.plan.KeyPart.asc("email")), true, false, List.of(), null);
    assertThat(LoadPipeline.indexCounts(List.of(table("Accounts", List.of(index, index)), table("Notes", List.of()))))
        .isEqualTo(Map.of("Accounts", 2, "Notes", 0));
  }

  private static dev.pg2spanner.plan.TablePlan table(String target, List<dev.pg2spanner.plan.IndexPlan> indexes) {
    return new dev.pg2spanner.plan.TablePlan("public." + target.toLowerCase(java.util.Locale.ROOT), false, target,
        1.0, 8, List.of(), List.of(), dev.pg2spanner.plan.KeyStrategy.keep("test"), null, indexes, List.of(),
        List.of(), List.of(), List.of(), null);
  }
}
