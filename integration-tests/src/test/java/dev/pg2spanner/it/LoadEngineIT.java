package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.LoadEngine;
import dev.pg2spanner.load.LoadOptions;
import dev.pg2spanner.load.LoadResult;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.TableLoadStats;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load engine against the real emulator, with a deterministic fake source (the PostgreSQL side is tested on
 * its own): every row lands once, a rerun loads nothing, rejections are dead-lettered and counted, and interleaved
 * children are loaded only after their parents.
 */
@WithSpannerEmulator
class LoadEngineIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @BeforeAll
  static void createTables(SpannerTestDatabase spanner) throws Exception {
    spanner.updateDdl(List.of(
        "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(40), Payload STRING(MAX)) PRIMARY KEY (SingerId)",
        "CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, Title STRING(MAX) NOT NULL) "
            + "PRIMARY KEY (SingerId, AlbumId), INTERLEAVE IN PARENT Singers ON DELETE CASCADE",
        "CREATE TABLE Events (EventId INT64 NOT NULL, Kind STRING(20)) PRIMARY KEY (EventId)",
        "CREATE TABLE Strict (Id INT64 NOT NULL, Code STRING(10), Label STRING(MAX) NOT NULL) PRIMARY KEY (Id)"));
  }

  private static ColumnPlan column(String name, String type, boolean notNull) {
    ValueConversion conversion = type.equals("INT64") ? ValueConversion.INT64 : ValueConversion.STRING;
    return new ColumnPlan(name.toLowerCase(), "text", name, type, notNull, conversion, null, null);
  }

  private static TablePlan table(String name, List<ColumnPlan> columns, List<String> key, String parent,
      int indexes) {
    List<IndexPlan> idx = new ArrayList<>();
    for (int i = 0; i < indexes; i++) {
      idx.add(new IndexPlan(null, name + "ByX" + i, List.of(KeyPart.asc(columns.get(1).target())), false, false,
          null, null));
    }
    return new TablePlan("public." + name.toLowerCase(), false, name, 1000.0, 1000L, columns,
        key.stream().map(KeyPart::asc).toList(), KeyStrategy.keep("test"),
        parent == null ? null : new Interleave(parent, Interleave.OnDelete.CASCADE, null), idx, null, null, null);
  }

  private static final Plan PLAN = new Plan(Plan.FORMAT_VERSION, "pg2spanner test", Instant.now(),
      new Plan.Source("localhost:5432/test", "15", List.of("public"), "fingerprint"),
      new Plan.Target("GOOGLE_STANDARD_SQL", false, 1),
      List.of(
          table("Singers", List.of(column("SingerId", "INT64", true), column("Name", "STRING(40)", false),
              column("Payload", "STRING(MAX)", false)), List.of("SingerId"), null, 1),
          table("Albums", List.of(column("SingerId", "INT64", true), column("AlbumId", "INT64", true),
              column("Title", "STRING(MAX)", true)), List.of("SingerId", "AlbumId"), "Singers", 0),
          table("Events", List.of(column("EventId", "INT64", true), column("Kind", "STRING(20)", false)),
              List.of("EventId"), null, 0),
          table("Strict", List.of(column("Id", "INT64", true), column("Code", "STRING(10)", false),
              column("Label", "STRING(MAX)", true)), List.of("Id"), null, 0)),
      null, null);

  /** Piece {@code n} of {@code table} covers ids [firstBlock, endBlock): the fake source uses blocks as ids. */
  private static Piece piece(String table, int n, long rowsPerPiece, int level) {
    long first = n * rowsPerPiece;
    return new Piece(table + "#" + n, table, "public." + table.toLowerCase(), "public", table.toLowerCase(), false,
        first, first + rowsPerPiece, level, rowsPerPiece);
  }

  private static ConvertedRow singer(long id) {
    String name = "singer " + id;
    String payload = "payload-" + Long.toHexString(id * 0x9E3779B97F4A7C15L);
    return new ConvertedRow(Mutation.newInsertOrUpdateBuilder("Singers").set("SingerId").to(id).set("Name").to(name)
        .set("Payload").to(payload).build(), Long.toString(id), 8 + name.length() + payload.length(), 3);
  }

  private static ConvertedRow album(long id) {
    long singer = id % 20_000; // every album's parent is one of the 20,000 singers
    String title = "album " + id;
    return new ConvertedRow(Mutation.newInsertOrUpdateBuilder("Albums").set("SingerId").to(singer).set("AlbumId")
        .to(id).set("Title").to(title).build(), singer + "," + id, 16 + title.length(), 3);
  }

  private static ConvertedRow event(long id) {
    return new ConvertedRow(Mutation.newInsertOrUpdateBuilder("Events").set("EventId").to(id).set("Kind")
        .to(id % 2 == 0 ? "even" : "odd").build(), Long.toString(id), 12, 2);
  }

  /**
   * A source producing one row per id of the piece's block range, through {@code rows} per table; records when
   * each piece starts and ends.
   */
  private static final class FakeSource implements PieceSource {
    final Function<String, LongFunction<ConvertedRow>> rows;
    final Set<Long> rejectIds;
    final List<String> events;

    FakeSource(Function<String, LongFunction<ConvertedRow>> rows, Set<Long> rejectIds, List<String> events) {
      this.rows = rows;
      this.rejectIds = rejectIds;
      this.events = events;
    }

    @Override
    public long read(Piece piece, RowSink sink) {
      events.add("start " + piece.id());
      LongFunction<ConvertedRow> make = rows.apply(piece.table());
      long n = 0;
      for (long id = piece.firstBlock(); id < piece.endBlock(); id++, n++) {
        if (rejectIds.contains(id)) {
          sink.reject(new RejectedRow(piece.table(), Long.toString(id), "Kind", "\u0000", "text contains NUL"));
        } else {
          sink.accept(make.apply(id));
        }
      }
      events.add("end " + piece.id());
      return n;
    }

    @Override
    public void close() {}
  }

  private static LongFunction<ConvertedRow> rowsOf(String table) {
    switch (table) {
      case "Singers":
        return LoadEngineIT::singer;
      case "Albums":
        return LoadEngineIT::album;
      case "Events":
        return LoadEngineIT::event;
      default:
        throw new IllegalArgumentException(table);
    }
  }

  private LoadOptions options(String run, long maxBadRows) {
    return new LoadOptions(4, maxBadRows, dir.resolve(run), dir.resolve(run + "-dead.jsonl"), true,
        Duration.ofMillis(200), false);
  }

  private static long count(SpannerTestDatabase spanner, String sql) {
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of(sql))) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(0);
    }
  }

  @Test
  void loadsEveryRowOnceParentsFirstAndAResumeLoadsNothing(SpannerTestDatabase spanner) throws Exception {
    // 50,000 rows over 40 pieces: 20 of singers, 10 of interleaved albums (level 1), 10 of events.
    List<Piece> pieces = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      pieces.add(piece("Singers", i, 1_000, 0));
    }
    for (int i = 0; i < 10; i++) {
      pieces.add(piece("Albums", i, 1_500, 1));
      pieces.add(piece("Events", i, 1_500, 0));
    }
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    StringWriter printed = new StringWriter();
    LoadResult result = new LoadEngine(spanner.client(), PLAN, options("full", 0), new PrintWriter(printed))
        .run(pieces, () -> new FakeSource(LoadEngineIT::rowsOf, Set.of(), events));

    assertThat(result.rowsWritten()).isEqualTo(50_000);
    assertThat(result.rowsRejected()).isZero();
    assertThat(result.tables()).extracting(TableLoadStats::table, TableLoadStats::rows)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("Singers", 20_000L),
            org.assertj.core.groups.Tuple.tuple("Albums", 15_000L),
            org.assertj.core.groups.Tuple.tuple("Events", 15_000L));
    assertThat(count(spanner, "SELECT COUNT(*) FROM Singers")).isEqualTo(20_000);
    assertThat(count(spanner, "SELECT COUNT(*) FROM Albums")).isEqualTo(15_000);
    assertThat(count(spanner, "SELECT COUNT(*) FROM Events")).isEqualTo(15_000);
    // Every id exactly once: the sums of 0..n-1 (a lost row and a stray one cannot cancel out with the count).
    assertThat(count(spanner, "SELECT SUM(SingerId) FROM Singers")).isEqualTo(19_999L * 20_000 / 2);
    assertThat(count(spanner, "SELECT SUM(AlbumId) FROM Albums")).isEqualTo(14_999L * 15_000 / 2);
    assertThat(count(spanner, "SELECT SUM(EventId) FROM Events")).isEqualTo(14_999L * 15_000 / 2);
    assertThat(count(spanner, "SELECT COUNT(*) FROM Singers WHERE Name = CONCAT('singer ', CAST(SingerId AS STRING))"))
        .isEqualTo(20_000);

    // Interleaved children only after the whole parent level.
    int lastParentLevelEnd = -1;
    int firstChildStart = Integer.MAX_VALUE;
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).startsWith("end ") && !events.get(i).contains("Albums")) {
        lastParentLevelEnd = i;
      }
      if (events.get(i).startsWith("start Albums")) {
        firstChildStart = Math.min(firstChildStart, i);
      }
    }
    assertThat(lastParentLevelEnd).isLessThan(firstChildStart);
    // Not in key order: the first pieces alternate tables.
    List<String> starts = events.stream().filter(e -> e.startsWith("start ")).toList();
    assertThat(starts.subList(0, 4)).anyMatch(s -> s.contains("Events")).anyMatch(s -> s.contains("Singers"));

    List<String> progress = Files.readAllLines(dir.resolve("full").resolve("progress.jsonl"));
    JsonNode summary = JSON.readTree(progress.get(progress.size() - 1));
    assertThat(summary.get("type").asText()).isEqualTo("summary");
    assertThat(summary.get("rowsWritten").asLong()).isEqualTo(50_000);
    assertThat(printed.toString()).contains("Loaded 50,000 rows");

    // Rerun with the same run directory: every piece is done, nothing is read or written.
    List<String> rerunEvents = Collections.synchronizedList(new ArrayList<>());
    LoadResult rerun = new LoadEngine(spanner.client(), PLAN, options("full", 0), new PrintWriter(new StringWriter()))
        .run(pieces, () -> new FakeSource(LoadEngineIT::rowsOf, Set.of(), rerunEvents));
    assertThat(rerun.rowsWritten()).isZero();
    assertThat(rerun.commits()).isZero();
    assertThat(rerunEvents).isEmpty();
    assertThat(count(spanner, "SELECT COUNT(*) FROM Singers")).isEqualTo(20_000);
  }

  @Test
  void moreSourceRejectionsThanAllowedStopTheRun(SpannerTestDatabase spanner) throws Exception {
    List<Piece> pieces = List.of(piece("Events", 100, 1_000, 0), piece("Events", 101, 1_000, 0));
    LoadOptions options = options("rejects", 2);
    assertThatThrownBy(() -> new LoadEngine(spanner.client(), PLAN, options, new PrintWriter(new StringWriter()))
        .run(pieces, () -> new FakeSource(LoadEngineIT::rowsOf, Set.of(100_010L, 100_500L, 100_900L),
            Collections.synchronizedList(new ArrayList<>()))))
        .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
          assertThat(e.code()).isEqualTo(ExitCode.DATA_REJECTED);
          assertThat(e.getMessage()).isEqualTo("3 rows were rejected (limit --max-bad-rows 2); see "
              + options.deadLetterFile());
        });
    List<String> lines = Files.readAllLines(options.deadLetterFile());
    assertThat(lines).hasSize(3);
    assertThat(lines).extracting(l -> JSON.readTree(l).get("key").asText())
        .containsExactly("100010", "100500", "100900");
    try (Checkpoint checkpoint = Checkpoint.open(options.runDirectory())) {
      assertThat(checkpoint.isDone("Events#100")).isFalse();
    }
  }

  @Test
  void rowsSpannerRefusesAreDeadLetteredWhileTheirBatchMatesCommit(SpannerTestDatabase spanner) throws Exception {
    LongFunction<ConvertedRow> strict = id -> {
      String code = id == 100 ? "ELEVENCHARS" : "c" + (id % 1000); // STRING(10) overflow
      Mutation.WriteBuilder row = Mutation.newInsertOrUpdateBuilder("Strict").set("Id").to(id).set("Code").to(code);
      if (id == 700) {
        row.set("Label").to((String) null); // NULL into NOT NULL
      } else {
        row.set("Label").to("label " + id);
      }
      return new ConvertedRow(row.build(), Long.toString(id), 40, 3);
    };
    List<Piece> pieces = List.of(piece("Strict", 0, 1_000, 0));
    LoadOptions options = options("refused", 10);
    LoadResult result = new LoadEngine(spanner.client(), PLAN, options, new PrintWriter(new StringWriter()))
        .run(pieces, () -> new FakeSource(t -> strict, Set.of(), Collections.synchronizedList(new ArrayList<>())));

    assertThat(result.rowsWritten()).isEqualTo(998);
    assertThat(result.rowsRejected()).isEqualTo(2);
    assertThat(count(spanner, "SELECT COUNT(*) FROM Strict")).isEqualTo(998);
    assertThat(count(spanner, "SELECT COUNT(*) FROM Strict WHERE Id IN (100, 700)")).isZero();
    List<JsonNode> dead = new ArrayList<>();
    for (String line : Files.readAllLines(options.deadLetterFile())) {
      dead.add(JSON.readTree(line));
    }
    assertThat(dead).extracting(n -> n.get("key").asText()).containsExactlyInAnyOrder("100", "700");
    assertThat(dead).allSatisfy(n -> {
      assertThat(n.get("table").asText()).isEqualTo("Strict");
      assertThat(n.get("reason").asText()).startsWith("Spanner refused the row: ");
    });
    // Spanner's own words, not ours.
    JsonNode overflow = dead.stream().filter(n -> n.get("key").asText().equals("100")).findFirst().orElseThrow();
    assertThat(overflow.get("reason").asText()).contains("Strict.Code");
    assertThat(overflow.get("column").asText()).isEqualTo("Code");
    JsonNode nullInNotNull = dead.stream().filter(n -> n.get("key").asText().equals("700")).findFirst().orElseThrow();
    assertThat(nullInNotNull.get("column").asText()).isEqualTo("Label");
    try (Checkpoint checkpoint = Checkpoint.open(options.runDirectory())) {
      assertThat(checkpoint.isDone("Strict#0")).isTrue();
    }
  }
}
