package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.it.LoadFixtures.CollectingSink;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.read.CopyPieceReader;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.read.PieceReader;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18: migrate reads rows with COPY ({@link CopyPieceReader}) — in binary for tables whose columns all have
 * binary decoders, else as text — while the Beam runners and verify read them through a result set
 * ({@link PieceReader}). All three must turn every row into the same mutation, or the same rejection: on the fidelity
 * fixture (every type and edge value the project knows, in a database whose time zone is not UTC, with its misfits
 * edited back to the native types so the binary path meets values Spanner cannot hold), the load fixture, a table
 * of every binary-read type with edge values, and text built to break COPY's escaping (tabs, newlines, backslashes,
 * "\N" as text, control characters, multi-byte UTF-8, in scalars and arrays), with the pieces cut small so ctid
 * bounds are exercised. In both dialects.
 */
@WithPostgres
class CopyReaderIT {

  @Test
  void copyAndResultSetReadersWriteTheSameMutationsForEveryRow(PgTestDatabase pg, @TempDir Path dir)
      throws Exception {
    fill(pg);
    // misfits' numerics beyond NUMERIC and its NaN fit a PostgreSQL-dialect numeric: three rejections fewer there.
    // bigkeys' two keys over 8 KiB are no rejection: plan measures them and gives the table a synthetic key.
    compareReaders(pg, dir.resolve("google"), 5 + 3);
    compareReaders(pg, dir.resolve("pg"), 2 + 3, "--dialect", "postgresql");
  }

  private static void fill(PgTestDatabase pg) throws Exception {
    pg.execute("ALTER DATABASE " + pg.name() + " SET TimeZone = 'America/New_York'");
    pg.execute(Fixtures.resource("fixtures/fidelity.sql"));
    pg.execute(Fixtures.resource("fixtures/load-fixture.sql"));
    pg.execute("CREATE TABLE escapes (id int PRIMARY KEY, t text, v varchar(40), a text[], b bytea, j jsonb)",
        "INSERT INTO escapes VALUES "
            + "(1, E'tab\\there', E'new\\nline', ARRAY[E'a\\tb', E'c\\nd', 'e,f', 'g\"h', NULL], E'\\\\x00ff09', "
            + "'{\"k\": \"tab\\\\tand\\\\nnewline\"}'), "
            + "(2, E'back\\\\slash', '\\N', ARRAY['\\N', 'NULL', ''], '', '[]'), "
            + "(3, E'\\r\\b\\f\\v\\x01', 'ünïcødé ✓ 𝄞', ARRAY['𝄞', E'\\\\'], E'\\\\x5c4e', 'null'), "
            + "(4, NULL, NULL, NULL, NULL, NULL), (5, '', '', '{}', E'\\\\x', '{}')",
        "INSERT INTO escapes SELECT g, repeat(E'x\\t\\\\', g % 7), g::text, ARRAY[g::text], NULL, NULL "
            + "FROM generate_series(6, 3000) g",
        // Keys over Spanner's 8 KiB: plan gives the table a synthetic key, so every reader writes all three rows.
        "CREATE TABLE bigkeys (k text PRIMARY KEY, n int)",
        "INSERT INTO bigkeys VALUES (repeat('ab', 5000), 1), ('short', 2), (repeat(E'\\t', 9000), 3)",
        // jsonb read through COPY takes the one-pass fidelity check, the result set the full one: both must agree
        // at the pass's edges (15 and 16 characters, exponents, escapes, surrogate pairs, deep nesting).
        "CREATE TABLE jsonb_edges (id int PRIMARY KEY, j jsonb)",
        "INSERT INTO jsonb_edges VALUES (1, '[123456789012345, 1234567890123456, -0.000000000001]'), "
            + "(2, '{\"e\": 1e300, \"s\": \"\\u00e9 \\\\u0000 𝄞\", \"t\": \"\\t\"}'), "
            + "(4, '{\"k\": 1, \"k\": 2}'), "
            + "(5, '" + "[".repeat(80) + "1" + "]".repeat(80) + "')",
        // Every type the binary path decodes, at its edges: integers at their limits, floats' special values and
        // subnormals, numerics across base-10000 digit groups (more than four groups takes the BigInteger path),
        // dates and times before 2000 (negative in PostgreSQL's epoch) and at Spanner's ends, padded char(n),
        // multi-byte text, escapes in jsonb and json, uuids, an enum; and a bulk of generated rows.
        "CREATE TYPE tone AS ENUM ('lo', 'hi', 'it''s')",
        "CREATE TABLE natives (id bigint PRIMARY KEY, i2 smallint, i4 int, b bool, f4 real, f8 float8, "
            + "n numeric(38,9), nf numeric, d date, tstz timestamptz, ts timestamp(3), s text, c char(4), "
            + "vc varchar(10), nm name, by bytea, u uuid, j jsonb, js json, e tone)",
        "INSERT INTO natives VALUES "
            + "(1, -32768, -2147483648, true, 'NaN', 'NaN', 99999999999999999999999999999.999999999, 0, "
            + "'0001-01-01', '0001-01-01 00:00:00+00', '0001-01-01 00:00:00', '', '', '', '', '\\x', "
            + "'00000000-0000-0000-0000-000000000000', '{}', '{\"a\": 1, \"a\": 2}', 'lo'), "
            + "(2, 32767, 2147483647, false, 'Infinity', '-Infinity', -99999999999999999999999999999.999999999, "
            + "-0.0001, '9999-12-31', '9999-12-31 23:59:59.999999+00', '9999-12-31 23:59:59.999', "
            + "E'tab\\there\\nnew 😀', 'ab', 'ünï', 'x', '\\x00ff5c4e09', "
            + "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '{\"k\": \"\\t\\u00e9 𝄞\"}', '  [1, 2.50] ', 'it''s'), "
            + "(3, 0, 0, NULL, '-0', '-0', 0.000000001, 123456789012345678901234567.891, '1999-12-31', "
            + "'1969-12-31 23:59:59.999999+00', '1999-12-31 23:59:59.5', NULL, 'abcd', NULL, NULL, NULL, NULL, "
            + "'null', 'null', 'hi'), "
            + "(4, 1, 1, true, 1.4e-45, 4.9e-324, 10000, 100000000, '2000-01-01', '2000-01-01 00:00:00+00', "
            + "'2000-01-01 00:00:00', 'x', NULL, NULL, NULL, NULL, NULL, '12345678901234567890', "
            + "'12345678901234567890', NULL), "
            + "(5, NULL, NULL, NULL, 3.4028235e38, 1.7976931348623157e308, 0.000100000, 0.00010000, NULL, NULL, "
            + "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        "INSERT INTO natives SELECT g, (g % 65536 - 32768)::smallint, g * 7919 % 2147483647, g % 3 = 0, "
            + "g / 7.0::real, g * 1.1e-3 / 13, (g * 12345.6789 - 5e6)::numeric(38,9), g::numeric / 8, "
            + "date '1900-01-01' + g * 11, timestamptz '1960-01-01 00:00:00+00' + g * interval '1 day 1.000001 s', "
            + "timestamp '1999-06-01' + g * interval '37.123 s', repeat(chr(945 + g % 20), g % 9), "
            + "chr(65 + g % 26), g::text, 'n' || g, int8send(g), md5(g::text)::uuid, "
            + "jsonb_build_object('g', g, 's', repeat('é', g % 4)), json_build_array(g, g * 0.5), "
            + "(ARRAY['lo', 'hi', 'it''s'])[1 + g % 3]::tone FROM generate_series(6, 3000) g",
        // Columns of built-in types whose conversion is edited to ENUM_TEXT (it validates: it writes STRING): the
        // value's text, never its binary form read as a label.
        // A composite whose fields are all NULL is not NULL (though "IS NULL" says it is): "(,)" in every reader.
        "CREATE TYPE pair AS (a int, b text)",
        "CREATE TABLE composites (id int PRIMARY KEY, p pair, ps pair[], iv interval, ip inet)",
        "INSERT INTO composites VALUES (1, ROW(NULL, NULL), ARRAY[ROW(NULL, NULL)::pair, NULL], '1 mon', '10.0.0.1'), "
            + "(2, NULL, NULL, NULL, NULL), (3, ROW(1, E'x,\\\"y'), '{}', '-1 day 00:00:01', '::1/128')",
        "CREATE TABLE enum_edits (id int PRIMARY KEY, i int, ts timestamptz, n numeric, d positive_int, c char(3))",
        "INSERT INTO enum_edits VALUES (1, 42, '2020-01-01 00:00:00+00', 1.5, 7, 'a'), "
            + "(2, -1, '-infinity', 'NaN', 2147483647, ''), (3, NULL, NULL, NULL, NULL, NULL)",
        "ANALYZE");
  }

  /**
   * Plans the database (with {@code planArgs}), edits the misfits back to the native types, then reads every piece
   * with the result set, text COPY and binary COPY: all three must give the same rows and
   * rejections.
   */
  private static void compareReaders(PgTestDatabase pg, Path dir, int rejections, String... planArgs)
      throws Exception {
    CliRunner.Result planned = PlanCommandIT.plan(pg, dir.resolve("plan"), planArgs);
    // Error findings (exit 14) still write every file.
    assertThat(planned.exitCode()).as(planned.out() + planned.err()).isIn(0,
        ExitCode.PLAN_HAS_ERRORS.exitCode());
    Path planFile = dir.resolve("plan").resolve("plan.yaml");
    // As TypeFidelityIT's reader does: values no native type holds must be rejected the same way by every reader.
    boolean postgres = planArgs.length > 0;
    MigrateSupport.editColumn(planFile, "public.misfits", "n", postgres ? "numeric" : "NUMERIC", "NUMERIC");
    MigrateSupport.editColumn(planFile, "public.misfits", "ts", postgres ? "timestamptz" : "TIMESTAMP",
        "TIMESTAMP_WALL_CLOCK_AS_UTC");
    MigrateSupport.editColumn(planFile, "public.times", "d_edge", postgres ? "date" : "DATE", "DATE");
    for (String column : List.of("i", "ts", "n", "d", "c")) {
      MigrateSupport.editColumn(planFile, "public.enum_edits", column, postgres ? "varchar" : "STRING(MAX)",
          "ENUM_TEXT");
    }
    Plan plan = PlanFiles.read(planFile);
    Map<String, TableConverter> converters = TableConverter.compileAll(plan);
    Map<String, TableConverter> textOnly = TableConverter.compileAll(plan, false);
    assertThat(converters.get("natives").copiesBinary()).as("every natives column has a binary decoder").isTrue();
    assertThat(converters.get("misfits").copiesBinary()).isTrue();
    assertThat(converters.get("enum_edits").copiesBinary()).as("ENUM_TEXT is copied as its output text, in binary")
        .isTrue();
    assertThat(converters.get("arrays").copiesBinary()).as("arrays: their output text inside the binary COPY")
        .isTrue();
    assertThat(textOnly.get("natives").copiesBinary()).isFalse();
    SourceConnector source = new SourceConnector(new SourceConfig(pg.jdbcUrl(), null));

    CollectingSink viaResultSet = new CollectingSink();
    CollectingSink viaText = new CollectingSink();
    CollectingSink viaBinary = new CollectingSink();
    long rows = 0;
    try (SnapshotSession snapshot = SnapshotSession.open(source); Connection a = snapshot.openReader();
        Connection b = snapshot.openReader(); Connection c = snapshot.openReader()) {
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, 64, 8 * 1024);
      PieceReader jdbc = new PieceReader(converters, 100);
      CopyPieceReader text = new CopyPieceReader(textOnly);
      CopyPieceReader binary = new CopyPieceReader(converters);
      for (Piece piece : pieces) {
        long read = jdbc.read(a, piece, viaResultSet);
        assertThat(text.read(b, piece, viaText)).as(piece.id()).isEqualTo(read);
        assertThat(binary.read(c, piece, viaBinary)).as(piece.id()).isEqualTo(read);
        rows += read;
      }
    }
    assertThat(rows).isGreaterThan(6000);
    assertThat(viaText.rows).hasSameSizeAs(viaResultSet.rows);
    // misfits' five values no native type holds (its sixth, a text over STRING(MAX), is Spanner's to refuse), and
    // d_edge's two infinities and one BC date. (bigkeys' oversized keys: TableConverterTest, for an edited plan.)
    assertThat(viaResultSet.rejected).as("rows Spanner cannot take: " + viaResultSet.rejected).hasSize(rejections);
    assertThat(viaBinary.rows).filteredOn(r -> r.mutation().getTable().equals("jsonb_edges")).hasSize(4)
        .allSatisfy(r -> assertThat(r.mutation().asMap().get("j").getType().getCode())
            .as("kept as JSON, so the fidelity checks ran").isIn(com.google.cloud.spanner.Type.Code.JSON,
                com.google.cloud.spanner.Type.Code.PG_JSONB));
    assertThat(viaBinary.rows).filteredOn(r -> r.mutation().getTable().equals("natives")).hasSize(3000);
    assertThat(viaBinary.rows).filteredOn(r -> r.mutation().getTable().equals("composites"))
        .anySatisfy(r -> assertThat(r.mutation().asMap().get("p").isNull()).as("ROW(NULL, NULL) is a value").isFalse());
    List<String> expected = sorted(viaResultSet.rows);
    assertSame("text COPY", sorted(viaText.rows), expected);
    assertSame("binary COPY", sorted(viaBinary.rows), expected);
    List<String> expectedRejections = sortedRejections(viaResultSet.rejected);
    assertSame("text COPY's rejections", sortedRejections(viaText.rejected), expectedRejections);
    assertSame("binary COPY's rejections", sortedRejections(viaBinary.rejected), expectedRejections);
  }

  /** Equal lists, and when not, the first differing lines each way (a whole table would not fit a report). */
  private static void assertSame(String reader, List<String> actual, List<String> expected) {
    java.util.Set<String> have = new java.util.HashSet<>(actual);
    java.util.Set<String> want = new java.util.HashSet<>(expected);
    List<String> missing = expected.stream().filter(r -> !have.contains(r)).limit(5).toList();
    List<String> extra = actual.stream().filter(r -> !want.contains(r)).limit(5).toList();
    assertThat(missing).as(reader + ": what the result set gave and " + reader + " did not (and what " + reader
        + " gave instead: " + extra + ")").isEmpty();
    assertThat(extra).as(reader + ": what " + reader + " gave and the result set did not").isEmpty();
    assertThat(actual).as(reader).hasSameSizeAs(expected).isEqualTo(expected);
  }

  private static List<String> sorted(List<ConvertedRow> rows) {
    return rows.stream().map(r -> r.mutation().getTable() + " " + r.key() + " " + r.mutation().asMap() + " "
        + r.bytes() + " " + r.cells()).sorted(Comparator.naturalOrder()).toList();
  }

  private static List<String> sortedRejections(List<RejectedRow> rows) {
    return rows.stream().map(RejectedRow::toString).sorted().toList();
  }
}
