package dev.pg2spanner.beam;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Mutation;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * The read step with an in-memory source: every piece is read once after the Reshuffle, converted rows reach the
 * mutation output, rejected rows the dead-letter output as JSON lines.
 */
class ReadPieceTest {

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

  private static void run(TestPipeline pipeline, Runnable body) throws Throwable {
    pipeline.apply(new Statement() {
      @Override
      public void evaluate() {
        body.run();
      }
    }, Description.createTestDescription(ReadPieceTest.class, "pipeline")).evaluate();
  }

  private static PieceSpec piece(String table, int rows, int level) {
    return new PieceSpec(table + "#" + rows, table, "public." + table, "public", table, true, 0, null, level, rows);
  }

  @Test
  void readPiecesTagsConvertedRowsAsMutationsAndRejectedRowsAsDeadLetterJson() throws Throwable {
    TestPipeline pipeline = TestPipeline.create();
    run(pipeline, () -> {
      PCollectionTuple out = pipeline
          .apply(Create.of(piece("a", 7, 0), piece("b", 10, 0)).withCoder(SerializableCoder.of(PieceSpec.class)))
          .apply(new LoadPipeline.ReadPieces(new FakeSources()));
      PCollection<String> keys = out.get(ReadPiece.MUTATIONS).apply(MapElements.into(TypeDescriptors.strings())
          .via(m -> m.getTable() + ":" + m.asMap().get("id").getString()));
      PAssert.that(keys).containsInAnyOrder("a:a#7/1", "a:a#7/2", "a:a#7/3", "a:a#7/4", "a:a#7/6", "a:a#7/7",
          "b:b#10/1", "b:b#10/2", "b:b#10/3", "b:b#10/4", "b:b#10/6", "b:b#10/7", "b:b#10/8", "b:b#10/9");
      PAssert.that(out.get(ReadPiece.REJECTED)).containsInAnyOrder(
          "{\"table\":\"a\",\"key\":\"a#7/5\",\"column\":\"v\",\"valueExcerpt\":\"x\",\"reason\":\"bad value 5\"}",
          "{\"table\":\"b\",\"key\":\"b#10/5\",\"column\":\"v\",\"valueExcerpt\":\"x\",\"reason\":\"bad value 5\"}",
          "{\"table\":\"b\",\"key\":\"b#10/10\",\"column\":\"v\",\"valueExcerpt\":\"x\",\"reason\":\"bad value 10\"}");
      pipeline.run().waitUntilFinish();
    });
  }

  @Test
  void theJobsMetricsCountRowsAndTheReadersTime() throws Throwable {
    TestPipeline pipeline = TestPipeline.create();
    LoadPipeline.Counts[] counts = new LoadPipeline.Counts[1];
    run(pipeline, () -> {
      pipeline
          .apply(Create.of(piece("a", 7, 0), piece("b", 10, 0)).withCoder(SerializableCoder.of(PieceSpec.class)))
          .apply(new LoadPipeline.ReadPieces(new FakeSources()));
      org.apache.beam.sdk.PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      counts[0] = LoadPipeline.counts(result);
    });
    assertThat(counts[0].rowsRead()).isEqualTo(17);
    assertThat(counts[0].rowsConverted()).isEqualTo(14);
    assertThat(counts[0].rowsRejected()).isEqualTo(3);
    // Wired up, whatever the machine's speed: the readers ran, and no SpannerIO step wrote anything.
    assertThat(counts[0].readNanos()).isPositive();
    assertThat(counts[0].emitNanos()).isPositive();
    assertThat(counts[0].commits()).isZero();
  }

  @Test
  void theTimeSplitNamesTheMeasuredPartsAndDerivesTheRestOnlyForAFixedPool() {
    LoadPipeline.Counts counts = new LoadPipeline.Counts(100, 90, 10, 0, 2_500_000_000L, 500_000_000L, 6_000, 3, 90);
    assertThat(counts.timeSplit(java.time.Duration.ofSeconds(10), 2)).isEqualTo("Worker time: read 2.5 s, "
        + "emit 0.5 s, write 6.0 s (3 commits, 30 rows each on average), other 11.0 s (2 threads x 10.0 s minus the "
        + "measured parts: the runner's bundling and shuffles, SpannerIO's batching, idle).");
    assertThat(counts.timeSplit(java.time.Duration.ofSeconds(10), 0))
        .isEqualTo("Worker time: read 2.5 s, emit 0.5 s, write 6.0 s (3 commits, 30 rows each on average).");
    assertThat(new LoadPipeline.Counts(0, 0, 0, 0, 0, 0, 0, 0, 0).timeSplit(java.time.Duration.ofSeconds(1), 2))
        .startsWith("Worker time: read 0.0 s, emit 0.0 s, write 0.0 s (0 commits), other 2.0 s");
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
  void spannerWriteUsesTheLoadersLimitsWithoutSorting() {
    var target = new dev.pg2spanner.targetdb.SpannerTarget("p", "inst", "db", "127.0.0.1:9010");
    var write = LoadPipeline.write(target);
    var data = org.apache.beam.sdk.transforms.display.DisplayData.from(write);
    Map<String, Object> items = StreamSupport.stream(data.items().spliterator(), false)
        .collect(Collectors.toMap(org.apache.beam.sdk.transforms.display.DisplayData.Item::getKey,
            i -> String.valueOf(i.getValue()), (x, y) -> x));
    assertThat(items).containsEntry("batchSizeBytes", String.valueOf(dev.pg2spanner.load.row.CommitLimits
        .TARGET_COMMIT_BYTES)).containsEntry("maxNumMutations", "20000").containsEntry("groupingFactor", "1");
  }
}
