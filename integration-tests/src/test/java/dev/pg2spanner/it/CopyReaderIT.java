package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.it.LoadFixtures.CollectingSink;
import dev.pg2spanner.load.ConvertedRow;
import dev.pg2spanner.load.CopyPieceReader;
import dev.pg2spanner.load.Piece;
import dev.pg2spanner.load.PiecePlanner;
import dev.pg2spanner.load.PieceReader;
import dev.pg2spanner.load.RejectedRow;
import dev.pg2spanner.load.SnapshotSession;
import dev.pg2spanner.load.TableConverter;
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
 * Issue 18: migrate reads rows with COPY ({@link CopyPieceReader}) while the Beam runners and verify read them through
 * a result set ({@link PieceReader}). Both must turn every row into the same mutation, or the same rejection: on the
 * fidelity fixture (every type and edge value the project knows, in a database whose time zone is not UTC), the load
 * fixture, and text built to break COPY's escaping (tabs, newlines, backslashes, "\N" as text, control characters,
 * multi-byte UTF-8, in scalars and arrays), with the pieces cut small so ctid bounds are exercised.
 */
@WithPostgres
class CopyReaderIT {

  @Test
  void copyAndResultSetReadersWriteTheSameMutationsForEveryRow(PgTestDatabase pg, @TempDir Path dir)
      throws Exception {
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
        // Keys over Spanner's 8 KiB: both readers must reject them the same way (with the row's location).
        "CREATE TABLE bigkeys (k text PRIMARY KEY, n int)",
        "INSERT INTO bigkeys VALUES (repeat('ab', 5000), 1), ('short', 2), (repeat(E'\\t', 9000), 3)",
        // jsonb read through COPY takes the one-pass fidelity check, the result set the full one: both must agree
        // at the pass's edges (15 and 16 characters, exponents, escapes, surrogate pairs, deep nesting).
        "CREATE TABLE jsonb_edges (id int PRIMARY KEY, j jsonb)",
        "INSERT INTO jsonb_edges VALUES (1, '[123456789012345, 1234567890123456, -0.000000000001]'), "
            + "(2, '{\"e\": 1e300, \"s\": \"\\u00e9 \\\\u0000 𝄞\", \"t\": \"\\t\"}'), "
            + "(4, '{\"k\": 1, \"k\": 2}'), "
            + "(5, '" + "[".repeat(80) + "1" + "]".repeat(80) + "')",
        "ANALYZE");
    Plan plan = PlanFiles.read(MigrateSupport.plan(pg, dir.resolve("plan")));
    Map<String, TableConverter> converters = TableConverter.compileAll(plan);
    SourceConnector source = new SourceConnector(new SourceConfig(pg.jdbcUrl(), null));

    CollectingSink viaResultSet = new CollectingSink();
    CollectingSink viaCopy = new CollectingSink();
    long rows = 0;
    try (SnapshotSession snapshot = SnapshotSession.open(source); Connection a = snapshot.openReader();
        Connection b = snapshot.openReader()) {
      List<Piece> pieces = PiecePlanner.cut(snapshot.coordinator(), plan, 64, 8 * 1024);
      PieceReader jdbc = new PieceReader(converters, 100);
      CopyPieceReader copy = new CopyPieceReader(converters);
      for (Piece piece : pieces) {
        long read = jdbc.read(a, piece, viaResultSet);
        assertThat(copy.read(b, piece, viaCopy)).as(piece.id()).isEqualTo(read);
        rows += read;
      }
    }
    assertThat(rows).isGreaterThan(3000);
    assertThat(viaCopy.rows).hasSameSizeAs(viaResultSet.rows);
    assertThat(viaResultSet.rejected).as("rows Spanner cannot take").hasSize(2);
    assertThat(viaCopy.rows).filteredOn(r -> r.mutation().getTable().equals("jsonb_edges")).hasSize(4)
        .allSatisfy(r -> assertThat(r.mutation().asMap().get("j").getType())
            .as("kept as JSON, so the fidelity checks ran").isEqualTo(com.google.cloud.spanner.Type.json()));
    assertThat(sorted(viaCopy.rows)).containsExactlyElementsOf(sorted(viaResultSet.rows));
    assertThat(sortedRejections(viaCopy.rejected)).containsExactlyElementsOf(sortedRejections(viaResultSet.rejected));
  }

  private static List<String> sorted(List<ConvertedRow> rows) {
    return rows.stream().map(r -> r.mutation().getTable() + " " + r.key() + " " + r.mutation().asMap() + " "
        + r.bytes() + " " + r.cells()).sorted(Comparator.naturalOrder()).toList();
  }

  private static List<String> sortedRejections(List<RejectedRow> rows) {
    return rows.stream().map(RejectedRow::toString).sorted().toList();
  }
}
