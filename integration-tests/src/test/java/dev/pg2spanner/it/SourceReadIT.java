package dev.pg2spanner.it;

import static dev.pg2spanner.it.LoadFixtures.column;
import static dev.pg2spanner.it.LoadFixtures.id;
import static dev.pg2spanner.it.LoadFixtures.notNull;
import static dev.pg2spanner.it.LoadFixtures.table;
import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.it.LoadFixtures.CollectingSink;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.read.PieceReader;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The source side of migrate against a real PostgreSQL: the shared snapshot, ctid pieces that cover every row
 * exactly once, and value conversion on the values that break naive loaders. Plans are built by hand.
 */
@WithPostgres
class SourceReadIT {

  private static SourceConnector source;

  @BeforeAll
  static void connector(PgTestDatabase pg) {
    source = new SourceConnector(new SourceConfig(pg.jdbcUrl(), null));
  }

  private static Map<Long, Value> valuesById(List<ConvertedRow> rows, String name) {
    Map<Long, Value> out = new HashMap<>();
    for (ConvertedRow row : rows) {
      Map<String, Value> values = row.mutation().asMap();
      out.put(values.get("id").getInt64(), values.get(name));
    }
    return out;
  }

  private static long sum(List<ConvertedRow> rows) {
    return rows.stream().mapToLong(r -> r.mutation().asMap().get("id").getInt64()).sum();
  }

  // ---- 1. snapshot --------------------------------------------------------------------------------------------

  @Test
  void readersSeeTheSnapshotNotLaterWritesAndReadConcurrently(PgTestDatabase pg) throws Exception {
    pg.execute("CREATE TABLE snap (id bigint PRIMARY KEY, v text)",
        "INSERT INTO snap SELECT g, 'v' || g FROM generate_series(1, 1000) g");
    TablePlan snap = table("public.snap", "snap", false, id(),
        column("v", "text", "v", "STRING(MAX)", ValueConversion.STRING));
    PieceReader reader = new PieceReader(Map.of("snap", TableConverter.compile(snap, GOOGLE_STANDARD_SQL)), 7);
    Piece all = LoadFixtures.whole(snap, "public", "snap");
    try (SnapshotSession session = SnapshotSession.open(source)) {
      assertThat(session.snapshotId()).isNotBlank();
      try (Connection early = session.openReader()) {
        pg.execute("INSERT INTO snap VALUES (1001, 'new')", "UPDATE snap SET v = 'changed' WHERE id = 1",
            "DELETE FROM snap WHERE id = 2");
        assertThat(pg.queryValue("SELECT count(*) FROM snap")).isEqualTo(1000L);
        try (Connection late = session.openReader(); Connection third = session.openReader()) {
          // Three readers at once, each streaming through its own cursor.
          CompletableFuture<CollectingSink> a = CompletableFuture.supplyAsync(() -> read(reader, early, all));
          CompletableFuture<CollectingSink> b = CompletableFuture.supplyAsync(() -> read(reader, late, all));
          CompletableFuture<CollectingSink> c = CompletableFuture.supplyAsync(() -> read(reader, third, all));
          for (CollectingSink sink : List.of(a.get(), b.get(), c.get())) {
            assertThat(sink.rejected).isEmpty();
            assertThat(sink.rows).hasSize(1000);
            assertThat(sum(sink.rows)).isEqualTo(500_500L);
            Map<Long, Value> v = valuesById(sink.rows, "v");
            assertThat(v.get(1L)).isEqualTo(Value.string("v1"));
            assertThat(v.get(2L)).isEqualTo(Value.string("v2"));
            assertThat(v).doesNotContainKey(1001L);
          }
        }
      }
      // The coordinator sees the snapshot too.
      try (Statement s = session.coordinator().createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) AS n FROM snap WHERE v = 'changed'")) {
        rs.next();
        assertThat(rs.getLong("n")).isZero();
      }
    }
    // Outside the snapshot the writes are there.
    assertThat(pg.queryValue("SELECT v FROM snap WHERE id = 1")).isEqualTo("changed");
  }

  private static CollectingSink read(PieceReader reader, Connection connection, Piece piece) {
    CollectingSink sink = new CollectingSink();
    try {
      reader.read(connection, piece, sink);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return sink;
  }

  // ---- 2. pieces ----------------------------------------------------------------------------------------------

  @Test
  void piecesCoverEveryRowExactlyOnce(PgTestDatabase pg) throws Exception {
    pg.execute(
        "CREATE TABLE big (id bigint PRIMARY KEY, pad text)",
        "INSERT INTO big SELECT g, repeat('x', g % 50) FROM generate_series(1, 200000) g",
        "CREATE TABLE events (id bigint, region text) PARTITION BY LIST (region)",
        "CREATE TABLE events_eu PARTITION OF events FOR VALUES IN ('eu') PARTITION BY RANGE (id)",
        "CREATE TABLE events_eu_low PARTITION OF events_eu FOR VALUES FROM (1) TO (5001)",
        "CREATE TABLE events_eu_high PARTITION OF events_eu FOR VALUES FROM (5001) TO (10001)",
        "CREATE TABLE events_us PARTITION OF events FOR VALUES IN ('us')",
        "INSERT INTO events SELECT g, CASE WHEN g <= 10000 THEN 'eu' ELSE 'us' END FROM generate_series(1, 20000) g",
        "CREATE TABLE animal (id bigint)",
        "CREATE TABLE dog (bark text) INHERITS (animal)",
        "INSERT INTO animal SELECT g FROM generate_series(1, 100) g",
        "INSERT INTO dog SELECT g, 'woof' FROM generate_series(101, 150) g",
        "CREATE TABLE nothing (id bigint PRIMARY KEY)",
        "ANALYZE");
    ColumnPlan region = column("region", "text", "region", "STRING(MAX)", ValueConversion.STRING);
    TablePlan big = table("public.big", "big", false, id(),
        column("pad", "text", "pad", "STRING(MAX)", ValueConversion.STRING));
    TablePlan events = table("public.events", "events", false, id(), region);
    TablePlan animal = table("public.animal", "animal", true, id());
    TablePlan dog = table("public.dog", "dog", false, id(),
        column("bark", "text", "bark", "STRING(MAX)", ValueConversion.STRING));
    TablePlan nothing = table("public.nothing", "nothing", false, id());
    Plan plan = LoadFixtures.plan(big, events, animal, LoadFixtures.interleaved(dog, "animal"), nothing);

    int minPieces = 40;
    try (SnapshotSession session = SnapshotSession.open(source)) {
      List<Piece> pieces = PiecePlanner.cut(session.coordinator(), plan, minPieces, 64 * 8192L);
      assertThat(pieces).hasSizeGreaterThanOrEqualTo(minPieces);
      assertThat(pieces.stream().map(Piece::id).distinct()).hasSize(pieces.size());
      assertThat(pieces.stream().filter(p -> p.table().equals("events")).map(Piece::relationName).distinct())
          .containsExactlyInAnyOrder("events_eu_low", "events_eu_high", "events_us");
      assertThat(pieces).allSatisfy(p -> assertThat(p.only()).isTrue());
      assertThat(pieces.stream().filter(p -> p.table().equals("nothing")).toList()).singleElement()
          .satisfies(p -> assertThat(p.endBlock()).isNull());
      assertThat(pieces.stream().filter(p -> p.table().equals("dog"))).allSatisfy(p -> assertThat(p.level())
          .isEqualTo(1));
      assertThat(pieces.stream().filter(p -> !p.table().equals("dog"))).allSatisfy(p -> assertThat(p.level())
          .isZero());
      // Every relation's last piece is open-ended, and no piece is larger than the cap.
      Map<String, List<Piece>> byRelation = pieces.stream().collect(Collectors.groupingBy(Piece::relationName));
      byRelation.values().forEach(list -> assertThat(list.get(list.size() - 1).endBlock()).isNull());
      assertThat(pieces).allSatisfy(p -> assertThat(p.endBlock() == null || p.endBlock() - p.firstBlock() <= 64)
          .isTrue());
      assertThat(byRelation.get("big").size()).isGreaterThan(10);

      Map<String, TableConverter> converters = TableConverter.compileAll(plan);
      PieceReader reader = new PieceReader(converters, 1000);
      Map<String, CollectingSink> byTable = new HashMap<>();
      // Two readers share the pieces, as workers would.
      try (Connection r1 = session.openReader(); Connection r2 = session.openReader()) {
        for (int i = 0; i < pieces.size(); i++) {
          Piece piece = pieces.get(i);
          CollectingSink sink = byTable.computeIfAbsent(piece.table(), t -> new CollectingSink());
          reader.read(i % 2 == 0 ? r1 : r2, piece, sink);
        }
      }
      assertThat(byTable.values()).allSatisfy(s -> assertThat(s.rejected).isEmpty());
      assertThat(byTable.get("big").rows).hasSize(200_000);
      assertThat(sum(byTable.get("big").rows)).isEqualTo(200_000L * 200_001L / 2);
      assertThat(byTable.get("events").rows).hasSize(20_000);
      assertThat(sum(byTable.get("events").rows)).isEqualTo(20_000L * 20_001L / 2);
      assertThat(byTable.get("animal").rows).hasSize(100);
      assertThat(sum(byTable.get("animal").rows)).isEqualTo(5050L);
      assertThat(byTable.get("dog").rows).hasSize(50);
      assertThat(sum(byTable.get("dog").rows)).isEqualTo(6275L);
      assertThat(byTable.get("nothing").rows).isEmpty();
      ConvertedRow one = byTable.get("big").rows.get(0);
      assertThat(one.cells()).isEqualTo(2);
      assertThat(one.key()).isEqualTo(String.valueOf(one.mutation().asMap().get("id").getInt64()));
    }
  }

  @Test
  void aPlannedTableThatNoLongerExistsIsAPlanError() {
    Plan plan = LoadFixtures.plan(table("public.gone", "gone", false, id()));
    try (SnapshotSession session = SnapshotSession.open(source)) {
      assertThatThrownBy(() -> PiecePlanner.cut(session.coordinator(), plan, 10, 1 << 20))
          .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
            assertThat(e.code()).isEqualTo(ExitCode.PLAN_INVALID);
            assertThat(e.getMessage()).isEqualTo("table public.gone in the plan no longer exists in the source; "
                + "run plan again");
          });
    }
  }

  @Test
  void tablesWithoutAKeyGetTheSameSyntheticKeyOnEveryRead(PgTestDatabase pg) throws Exception {
    pg.execute("CREATE TABLE nokey (v text)", "INSERT INTO nokey VALUES ('a'), ('a'), ('b')");
    TablePlan nokey = new TablePlan("public.nokey", false, "nokey", null, 0, List.of(
        new ColumnPlan(null, null, "synthetic_id", "STRING(36)", true, ValueConversion.SYNTHETIC, "GENERATE_UUID()",
            null),
        column("v", "text", "v", "STRING(MAX)", ValueConversion.STRING)),
        List.of(dev.pg2spanner.plan.KeyPart.asc("synthetic_id")),
        new dev.pg2spanner.plan.KeyStrategy(dev.pg2spanner.plan.KeyStrategy.Kind.SYNTHETIC, "no key", null, null,
            null, null, null), null, null, null, null, null);
    PieceReader reader = new PieceReader(Map.of("nokey", TableConverter.compile(nokey, GOOGLE_STANDARD_SQL)), 100);
    List<List<String>> reads = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (SnapshotSession session = SnapshotSession.open(source); Connection r = session.openReader()) {
        CollectingSink sink = new CollectingSink();
        reader.read(r, LoadFixtures.whole(nokey, "public", "nokey"), sink);
        reads.add(sink.rows.stream().map(row -> row.mutation().asMap().get("synthetic_id").getString()).sorted()
            .toList());
        // A row is named by the synthetic key written for it (as Beam names a failed write), not by its ctid.
        assertThat(sink.rows).allSatisfy(row -> assertThat(row.key())
            .isEqualTo("'" + row.mutation().asMap().get("synthetic_id").getString() + "'"));
      }
    }
    assertThat(reads.get(0)).hasSize(3).doesNotHaveDuplicates().allSatisfy(u -> assertThat(u).hasSize(36));
    assertThat(reads.get(1)).isEqualTo(reads.get(0));
  }

  // ---- 3. conversion fidelity ---------------------------------------------------------------------------------

  private static final String GOOD_COLUMNS = "id bigint PRIMARY KEY, b boolean, i2 smallint, o oid, r real,"
      + " d double precision, n numeric, nt numeric, m money, s text, c char(5), by bytea, dt date, tz timestamptz,"
      + " ts timestamp, j jsonb, jt json, u uuid, e mood, iv interval, t time, bt bit varying, ip inet,"
      + " ai bigint[], at text[], an numeric[], ac char(3)[], ab boolean[], af double precision[], ar real[],"
      + " atz timestamptz[], aby bytea[]";

  private static TablePlan goodPlan() {
    return table("public.good", "good", false, id(),
        column("b", "boolean", "b", "BOOL", ValueConversion.BOOL),
        column("i2", "smallint", "i2", "INT64", ValueConversion.INT64),
        column("o", "oid", "o", "INT64", ValueConversion.INT64),
        column("r", "real", "r", "FLOAT32", ValueConversion.FLOAT32),
        column("d", "double precision", "d", "FLOAT64", ValueConversion.FLOAT64),
        column("n", "numeric", "n", "NUMERIC", ValueConversion.NUMERIC),
        column("nt", "numeric", "nt", "STRING(MAX)", ValueConversion.NUMERIC_TEXT),
        column("m", "money", "m", "NUMERIC", ValueConversion.MONEY_NUMERIC),
        column("s", "text", "s", "STRING(MAX)", ValueConversion.STRING),
        column("c", "character(5)", "c", "STRING(5)", ValueConversion.STRING),
        column("by", "bytea", "by", "BYTES(MAX)", ValueConversion.BYTES),
        column("dt", "date", "dt", "DATE", ValueConversion.DATE),
        column("tz", "timestamp with time zone", "tz", "TIMESTAMP", ValueConversion.TIMESTAMP),
        column("ts", "timestamp without time zone", "ts", "TIMESTAMP", ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC),
        column("j", "jsonb", "j", "JSON", ValueConversion.JSON),
        column("jt", "json", "jt", "STRING(MAX)", ValueConversion.JSON_TEXT),
        column("u", "uuid", "u", "STRING(36)", ValueConversion.UUID_TEXT),
        column("e", "mood", "e", "STRING(MAX)", ValueConversion.ENUM_TEXT),
        column("iv", "interval", "iv", "STRING(MAX)", ValueConversion.INTERVAL_ISO8601),
        column("t", "time without time zone", "t", "STRING(MAX)", ValueConversion.TIME_TEXT),
        column("bt", "bit varying", "bt", "STRING(MAX)", ValueConversion.BIT_TEXT),
        column("ip", "inet", "ip", "STRING(MAX)", ValueConversion.TEXT_OUTPUT),
        column("ai", "bigint[]", "ai", "ARRAY<INT64>", ValueConversion.INT64),
        column("at", "text[]", "at", "ARRAY<STRING(MAX)>", ValueConversion.STRING),
        column("an", "numeric[]", "an", "ARRAY<NUMERIC>", ValueConversion.NUMERIC),
        column("ac", "character(3)[]", "ac", "ARRAY<STRING(3)>", ValueConversion.STRING),
        column("ab", "boolean[]", "ab", "ARRAY<BOOL>", ValueConversion.BOOL),
        column("af", "double precision[]", "af", "ARRAY<FLOAT64>", ValueConversion.FLOAT64),
        column("ar", "real[]", "ar", "ARRAY<FLOAT32>", ValueConversion.FLOAT32),
        column("atz", "timestamp with time zone[]", "atz", "ARRAY<TIMESTAMP>", ValueConversion.TIMESTAMP),
        column("aby", "bytea[]", "aby", "ARRAY<BYTES(MAX)>", ValueConversion.BYTES));
  }

  @Test
  void everyConversionIsExact(PgTestDatabase pg) throws Exception {
    // A database whose default zone has a DST gap at 2021-03-14 02:00-03:00; the loader must not care.
    pg.execute("ALTER DATABASE " + dev.pg2spanner.source.PgNames.quote(pg.name())
        + " SET TimeZone = 'America/New_York'");
    try (Connection c = pg.connect(); Statement s = c.createStatement()) {
      s.execute("SET TimeZone = 'America/New_York'");
      s.execute("CREATE TYPE mood AS ENUM ('happy', 'it''s')");
      s.execute("CREATE TABLE good (" + GOOD_COLUMNS + ")");
      s.execute("INSERT INTO good VALUES (1, true, -32768, 4294967295, 'NaN', '-0',"
          + " 99999999999999999999999999999.999999999, 'NaN', '92233720368547758.07', '', 'ab',"
          + " (SELECT string_agg(set_byte('\\x00'::bytea, 0, g), ''::bytea ORDER BY g) FROM generate_series(0, 255) g),"
          + " '0001-01-01', '0001-01-01 00:00:00+00', '2021-03-14 02:30:00', '{\"b\": 1, \"a\": [1, 2.50]}',"
          + " '{\"a\":1, \"a\":2}', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'it''s', '1 mon', '24:00:00', B'1010',"
          + " '192.168.0.1', '{1,NULL,3}', '{}', '{1.50,NULL,-0.000000001}', '{a,\"b c\"}', '{t,f,NULL}',"
          + " '{NaN,-0,Infinity,-Infinity,0.1}', '{1.1,-0,NaN}', '{\"2021-03-14 02:30:00\",NULL}', '{\"\\\\x00ff\",NULL}')");
      s.execute("INSERT INTO good VALUES (2, false, 32767, 0, 'Infinity', '-Infinity', -0.000000001,"
          + " '100000000000000000000000000000000000000.0000000001', '-1.23',"
          + " 'emoji 😀, RTL עברית, combining é, NUL-free \t\n', NULL, '\\x', '9999-12-31',"
          + " '9999-12-31 23:59:59.999999+00', '9999-12-31 23:59:59.999999', '[]', '[]',"
          + " '00000000-0000-0000-0000-000000000000', 'happy', '30 days', '00:00:00.000001', B'', '::1/128',"
          + " '[0:1]={7,8}', '{\"NULL\",NULL,\"a,b\",\"q\\\"x\",\"\"}', '{}', '{}', '{}', '{}', '{}', '{}', '{}')");
      s.execute("INSERT INTO good (id, r, d, tz, ts) VALUES (3, '-0', 'NaN', '2021-03-14 02:30:00',"
          + " '2021-11-07 01:30:00')");
    }
    CollectingSink sink = new CollectingSink();
    try (SnapshotSession session = SnapshotSession.open(source); Connection r = session.openReader()) {
      new PieceReader(Map.of("good", TableConverter.compile(goodPlan(), GOOGLE_STANDARD_SQL)), 2)
          .read(r, LoadFixtures.whole(goodPlan(), "public", "good"), sink);
    }
    assertThat(sink.rejected).isEmpty();
    assertThat(sink.rows).hasSize(3);
    Map<Long, Map<String, Value>> rows = new HashMap<>();
    sink.rows.forEach(row -> rows.put(row.mutation().asMap().get("id").getInt64(), row.mutation().asMap()));
    Map<String, Value> r1 = rows.get(1L);
    Map<String, Value> r2 = rows.get(2L);
    Map<String, Value> r3 = rows.get(3L);

    assertThat(r1.get("b")).isEqualTo(Value.bool(true));
    assertThat(r2.get("b")).isEqualTo(Value.bool(false));
    assertThat(r1.get("i2")).isEqualTo(Value.int64(-32768));
    assertThat(r1.get("o")).isEqualTo(Value.int64(4294967295L));
    assertThat(r1.get("r").getFloat32()).isNaN();
    assertThat(r2.get("r")).isEqualTo(Value.float32(Float.POSITIVE_INFINITY));
    assertThat(Float.floatToRawIntBits(r3.get("r").getFloat32())).isEqualTo(Float.floatToRawIntBits(-0.0f));
    assertThat(Double.doubleToRawLongBits(r1.get("d").getFloat64())).isEqualTo(Double.doubleToRawLongBits(-0.0));
    assertThat(r2.get("d")).isEqualTo(Value.float64(Double.NEGATIVE_INFINITY));
    assertThat(r3.get("d").getFloat64()).isNaN();
    assertThat(r1.get("n")).isEqualTo(Value.numeric(new BigDecimal("99999999999999999999999999999.999999999")));
    assertThat(r2.get("n")).isEqualTo(Value.numeric(new BigDecimal("-0.000000001")));
    assertThat(r1.get("nt")).isEqualTo(Value.string("NaN"));
    assertThat(r2.get("nt")).isEqualTo(Value.string("100000000000000000000000000000000000000.0000000001"));
    assertThat(r1.get("m")).isEqualTo(Value.numeric(new BigDecimal("92233720368547758.07")));
    assertThat(r2.get("m")).isEqualTo(Value.numeric(new BigDecimal("-1.23")));
    // '' and NULL stay distinct
    assertThat(r1.get("s")).isEqualTo(Value.string(""));
    assertThat(r3.get("s")).isEqualTo(Value.string(null));
    assertThat(r2.get("s")).isEqualTo(Value.string("emoji 😀, RTL עברית, combining é, NUL-free \t\n"));
    assertThat(r1.get("c")).isEqualTo(Value.string("ab   "));
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    assertThat(r1.get("by")).isEqualTo(Value.bytes(ByteArray.copyFrom(all)));
    assertThat(r2.get("by")).isEqualTo(Value.bytes(ByteArray.copyFrom(new byte[0])));
    assertThat(r3.get("by")).isEqualTo(Value.bytes(null));
    assertThat(r1.get("dt")).isEqualTo(Value.date(Date.fromYearMonthDay(1, 1, 1)));
    assertThat(r2.get("dt")).isEqualTo(Value.date(Date.fromYearMonthDay(9999, 12, 31)));
    assertThat(r1.get("tz")).isEqualTo(Value.timestamp(Timestamp.parseTimestamp("0001-01-01T00:00:00Z")));
    assertThat(r2.get("tz")).isEqualTo(Value.timestamp(Timestamp.parseTimestamp("9999-12-31T23:59:59.999999Z")));
    // timestamptz entered in New York's DST gap: whatever instant PostgreSQL stored, exactly that arrives.
    long gapMicros = ((Number) pg.queryValue("SELECT (extract(epoch FROM tz) * 1000000)::bigint FROM good "
        + "WHERE id = 3")).longValue();
    assertThat(r3.get("tz")).isEqualTo(Value.timestamp(Timestamp.ofTimeMicroseconds(gapMicros)));
    // timestamp without time zone: the wall clock as UTC, even inside the gap and the fall-back overlap.
    assertThat(r1.get("ts")).isEqualTo(Value.timestamp(Timestamp.parseTimestamp("2021-03-14T02:30:00Z")));
    assertThat(r3.get("ts")).isEqualTo(Value.timestamp(Timestamp.parseTimestamp("2021-11-07T01:30:00Z")));
    assertThat(r2.get("ts")).isEqualTo(Value.timestamp(Timestamp.parseTimestamp("9999-12-31T23:59:59.999999Z")));
    assertThat(r1.get("j")).isEqualTo(Value.json("{\"a\": [1, 2.50], \"b\": 1}"));
    assertThat(r2.get("j")).isEqualTo(Value.json("[]"));
    assertThat(r1.get("jt")).isEqualTo(Value.string("{\"a\":1, \"a\":2}"));
    assertThat(r1.get("u")).isEqualTo(Value.string("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
    assertThat(r1.get("e")).isEqualTo(Value.string("it's"));
    assertThat(r1.get("iv")).isEqualTo(Value.string("P1M"));
    assertThat(r2.get("iv")).isEqualTo(Value.string("P30D"));
    assertThat(r1.get("t")).isEqualTo(Value.string("24:00:00"));
    assertThat(r2.get("t")).isEqualTo(Value.string("00:00:00.000001"));
    assertThat(r1.get("bt")).isEqualTo(Value.string("1010"));
    assertThat(r2.get("bt")).isEqualTo(Value.string(""));
    assertThat(r1.get("ip")).isEqualTo(Value.string("192.168.0.1"));
    assertThat(r2.get("ip")).isEqualTo(Value.string("::1"));
    assertThat(r1.get("ai")).isEqualTo(Value.int64Array(Arrays.asList(1L, null, 3L)));
    assertThat(r2.get("ai")).isEqualTo(Value.int64Array(Arrays.asList(7L, 8L)));
    assertThat(r3.get("ai")).isEqualTo(Value.int64Array((Iterable<Long>) null));
    assertThat(r1.get("at")).isEqualTo(Value.stringArray(List.of()));
    assertThat(r2.get("at")).isEqualTo(Value.stringArray(Arrays.asList("NULL", null, "a,b", "q\"x", "")));
    assertThat(r1.get("an")).isEqualTo(Value.numericArray(Arrays.asList(new BigDecimal("1.5"), null,
        new BigDecimal("-0.000000001"))));
    assertThat(r1.get("ac")).isEqualTo(Value.stringArray(List.of("a  ", "b c")));
    assertThat(r1.get("ab")).isEqualTo(Value.boolArray(Arrays.asList(true, false, null)));
    List<Double> af = r1.get("af").getFloat64Array();
    assertThat(af.get(0)).isNaN();
    assertThat(Double.doubleToRawLongBits(af.get(1))).isEqualTo(Double.doubleToRawLongBits(-0.0));
    assertThat(af.subList(2, 5)).containsExactly(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.1);
    List<Float> ar = r1.get("ar").getFloat32Array();
    assertThat(ar.get(0)).isEqualTo(1.1f);
    assertThat(Float.floatToRawIntBits(ar.get(1))).isEqualTo(Float.floatToRawIntBits(-0.0f));
    assertThat(ar.get(2)).isNaN();
    long arrayGapMicros = ((Number) pg.queryValue("SELECT (extract(epoch FROM atz[1]) * 1000000)::bigint FROM good "
        + "WHERE id = 1")).longValue();
    assertThat(r1.get("atz")).isEqualTo(Value.timestampArray(Arrays.asList(
        Timestamp.ofTimeMicroseconds(arrayGapMicros), null)));
    assertThat(r1.get("aby")).isEqualTo(Value.bytesArray(Arrays.asList(
        ByteArray.copyFrom(new byte[] {0, (byte) 0xff}), null)));
    assertThat(r2.get("aby")).isEqualTo(Value.bytesArray(List.of()));
    // NULL row: every column is a typed NULL
    r3.forEach((name, value) -> {
      if (!List.of("id", "r", "d", "tz", "ts").contains(name)) {
        assertThat(value.isNull()).as(name).isTrue();
      }
    });
    ConvertedRow row1 = sink.rows.stream().filter(r -> r.key().equals("1")).findFirst().orElseThrow();
    assertThat(row1.cells()).isEqualTo(32);
    assertThat(row1.bytes()).isGreaterThan(256);

    // The same rows as each type's own text output (what logical replication sends, printed with the same session
    // settings) convert to exactly the same mutations.
    TableConverter converter = TableConverter.compile(goodPlan(), GOOGLE_STANDARD_SQL);
    String select = converter.sourceColumns().stream().map(dev.pg2spanner.source.PgNames::quote)
        .collect(Collectors.joining(", ", "SELECT ", " FROM good"));
    try (Connection c = pg.connect(); Statement s = c.createStatement()) {
      c.unwrap(org.postgresql.PGConnection.class).setPrepareThreshold(0);
      s.execute(SnapshotSession.SESSION_SETTINGS);
      try (ResultSet rs = s.executeQuery(select)) {
        int n = 0;
        while (rs.next()) {
          String[] texts = new String[converter.sourceColumns().size()];
          boolean[] sent = new boolean[texts.length];
          for (int i = 0; i < texts.length; i++) {
            texts[i] = rs.getString(i + 1);
            sent[i] = true;
          }
          TableConverter.Result streamed = converter.convertText(texts, sent, "public.good", "test", null);
          assertThat(streamed).isInstanceOf(TableConverter.Converted.class);
          ConvertedRow row = ((TableConverter.Converted) streamed).row();
          Map<String, Value> loaded = rows.get(Long.parseLong(texts[0]));
          assertThat(row.mutation().asMap()).as("row " + texts[0]).isEqualTo(loaded);
          n++;
        }
        assertThat(n).isEqualTo(3);
      }
    }
  }

  @Test
  void valuesThatDoNotFitAreRejectedNamingColumnAndReason(PgTestDatabase pg) throws Exception {
    pg.execute("CREATE TABLE bad (id bigint PRIMARY KEY, n numeric, dt date, tz timestamptz, ts timestamp,"
            + " ai int[], vc text, nn text DEFAULT 'x', f4 double precision)",
        "INSERT INTO bad (id, n) VALUES (1, 1e29), (2, 0.0000000001), (3, 'NaN')",
        "INSERT INTO bad (id, dt) VALUES (4, 'infinity'), (5, '0044-03-15 BC')",
        "INSERT INTO bad (id, tz) VALUES (6, '-infinity'), (7, '9999-12-31 23:00:00-05')",
        "INSERT INTO bad (id, ts) VALUES (8, '0001-01-01 00:00:00 BC'), (9, 'infinity')",
        "INSERT INTO bad (id, ai) VALUES (10, '{{1,2},{3,4}}')",
        "INSERT INTO bad (id, vc) VALUES (11, 'abcd'), (12, '😀😀😀')",
        "INSERT INTO bad (id, nn) VALUES (13, NULL)",
        "INSERT INTO bad (id, f4) VALUES (14, 0.1), (15, 0.5)");
    TablePlan plan = table("public.bad", "bad", false, id(),
        column("n", "numeric", "n", "NUMERIC", ValueConversion.NUMERIC),
        column("dt", "date", "dt", "DATE", ValueConversion.DATE),
        column("tz", "timestamp with time zone", "tz", "TIMESTAMP", ValueConversion.TIMESTAMP),
        column("ts", "timestamp without time zone", "ts", "TIMESTAMP", ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC),
        column("ai", "integer[]", "ai", "ARRAY<INT64>", ValueConversion.INT64),
        column("vc", "text", "vc", "STRING(3)", ValueConversion.STRING),
        notNull("nn", "text", "nn", "STRING(MAX)", ValueConversion.STRING),
        column("f4", "double precision", "f4", "FLOAT32", ValueConversion.FLOAT32));
    CollectingSink sink = new CollectingSink();
    try (SnapshotSession session = SnapshotSession.open(source); Connection r = session.openReader()) {
      new PieceReader(Map.of("bad", TableConverter.compile(plan, GOOGLE_STANDARD_SQL)), 4)
          .read(r, LoadFixtures.whole(plan, "public", "bad"), sink);
    }
    Map<String, RejectedRow> byKey = sink.rejected.stream().collect(Collectors.toMap(RejectedRow::key, x -> x));
    assertThat(byKey.keySet()).containsExactlyInAnyOrder("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11",
        "13", "14");
    assertThat(sink.rows).extracting(ConvertedRow::key).containsExactlyInAnyOrder("12", "15");
    assertThat(byKey.values()).allSatisfy(x -> assertThat(x.table()).isEqualTo("bad"));
    assertRejected(byKey.get("1"), "n", "100000000000000000000000000000", "30 integer digits");
    assertRejected(byKey.get("2"), "n", "0.0000000001", "10 fractional digits");
    assertRejected(byKey.get("3"), "n", "NaN", "no NaN or infinity");
    assertRejected(byKey.get("4"), "dt", "infinity", "outside Spanner's DATE range");
    assertRejected(byKey.get("5"), "dt", "0044-03-15 BC", "outside Spanner's DATE range");
    assertRejected(byKey.get("6"), "tz", "-infinity", "outside Spanner's TIMESTAMP range");
    assertRejected(byKey.get("7"), "tz", "10000-01-01 04:00:00", "outside Spanner's TIMESTAMP range");
    assertRejected(byKey.get("8"), "ts", "0001-01-01 00:00:00 BC", "outside Spanner's TIMESTAMP range");
    assertRejected(byKey.get("9"), "ts", "infinity", "outside Spanner's TIMESTAMP range");
    assertRejected(byKey.get("10"), "ai", "{{1,2},{3,4}}", "more than one dimension");
    assertRejected(byKey.get("11"), "vc", "abcd", "4 characters; the column holds at most 3");
    assertRejected(byKey.get("13"), "nn", null, "NOT NULL");
    assertRejected(byKey.get("14"), "f4", "0.1", "FLOAT32 without rounding");
  }

  private static void assertRejected(RejectedRow row, String column, String value, String reason) {
    assertThat(row.column()).isEqualTo(column);
    assertThat(row.valueExcerpt()).isEqualTo(value);
    assertThat(row.reason()).contains(reason);
  }
}
