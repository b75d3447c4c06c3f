package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.mapping.ColumnEvidence;
import dev.pg2spanner.mapping.EvidenceCollector;
import dev.pg2spanner.mapping.EvidenceNeed;
import dev.pg2spanner.mapping.MappingNote;
import dev.pg2spanner.mapping.TypeMapper;
import dev.pg2spanner.mapping.TypeMapping;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerType;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The evidence query against a real PostgreSQL, on values that break naive tools, and the mappings the evidence
 * leads to. Catalog inputs are built by hand so this test depends only on the mapping package.
 */
@WithPostgres
class EvidenceCollectorIT {

  private static final EvidenceCollector FULL = new EvidenceCollector(1_000_000);

  @BeforeAll
  static void data(PgTestDatabase pg) throws Exception {
    pg.execute(
        "CREATE DOMAIN amount AS numeric",
        "CREATE TABLE \"Num \"\"Values\"\"\" (id int, n numeric, fits numeric(20,12), edge numeric,"
            + " \"Mixed Case\" amount, arr numeric[])",
        "INSERT INTO \"Num \"\"Values\"\"\" VALUES"
            + " (1, 'NaN', 1.500000000000, 99999999999999999999999999999.999999999, 'NaN', '{1.5,NaN}'),"
            + " (2, 'Infinity', 12345678.123456789, -99999999999999999999999999999.999999999, 1, '{{1,2},{3,4}}'),"
            + " (3, '-Infinity', -0.000000001000, 0.000000001, 2, '[0:1]={7,8}'),"
            + " (4, 1e29, 0, 0, NULL, '{}'),"
            + " (5, 1e-10, NULL, 1, NULL, NULL),"
            + " (6, 123.45, NULL, NULL, NULL, '{NULL,2}'),"
            + " (7, NULL, NULL, NULL, NULL, NULL)",
        "CREATE TABLE times (d date, ts timestamp, tz timestamptz)",
        "INSERT INTO times VALUES"
            + " ('infinity', '9999-12-31 23:59:59.999999', '9999-12-31 23:00:00-05'),"
            + " ('-infinity', '0001-01-01 00:00:00', '0001-01-01 00:30:00+01'),"
            + " ('0044-03-15 BC', '2024-02-29 12:00:00', '2024-02-29 12:00:00+00'),"
            + " ('9999-12-31', NULL, '9999-12-31 23:59:59.999999+00'),"
            + " ('2024-02-29', NULL, NULL)",
        "CREATE TABLE docs (doc jsonb, body text, data bytea)",
        "INSERT INTO docs VALUES"
            + " ((repeat('[', 81) || repeat(']', 81))::jsonb, 'short', '\\x00ff'),"
            + " ((repeat('[', 80) || repeat(']', 80))::jsonb, repeat('x', 10485761), NULL),"
            + " ('{\"pi\": 2.2412421353246235436}', NULL, NULL),"
            + " ('{\"a\": 0.1, \"b\": 10000, \"c\": 9007199254740993, \"d\": 18446744073709551615, \"e\": 1.50}',"
            + "   'é', NULL)",
        "CREATE TABLE big (id int, n numeric)",
        "INSERT INTO big SELECT g, g / 7.0 FROM generate_series(1, 20000) g",
        "CREATE TABLE parent (n numeric)",
        "CREATE TABLE child () INHERITS (parent)",
        "INSERT INTO parent VALUES (1.25), (2.5)",
        "INSERT INTO child VALUES ('NaN'), (1e-12)");
  }

  @Test
  void numericFactsAreExactAndDecideTheMapping(PgTestDatabase pg) throws Exception {
    PgTable table = table("public", "Num \"Values\"", null, false,
        column("id", 1, PgType.builtin("int4", "integer")),
        column("n", 2, numeric(null, null)),
        column("fits", 3, numeric(20, 12)),
        column("edge", 4, numeric(null, null)),
        column("Mixed Case", 5, new PgType("public", "amount", "amount", null, null, null, false, 0,
            PgType.Kind.DOMAIN, numeric(null, null), List.of(), false, List.of())),
        column("arr", 6, numeric(null, null).asArray()));
    Map<String, ColumnEvidence> evidence = collectCountingQueries(pg, table, 1);
    assertThat(evidence).containsOnlyKeys("n", "fits", "edge", "Mixed Case", "arr"); // id needs nothing

    ColumnEvidence n = evidence.get("n");
    assertThat(n.sampled()).isFalse();
    assertThat(n.rowsExamined()).isEqualTo(7);
    assertThat(n.facts()).containsEntry(ColumnEvidence.NON_NULL, 6L)
        .containsEntry(ColumnEvidence.NUMERIC_NAN, 1L)
        .containsEntry(ColumnEvidence.NUMERIC_INFINITY, 2L)
        .containsEntry(ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, 1L) // 10^29 has 30 integer digits
        .containsEntry(ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS, 1L) // 1e-10
        .containsEntry(ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, 30L)
        .containsEntry(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, 10L);
    TypeMapping nMapping = refine(table, "n", n);
    assertThat(nMapping.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(nMapping.conversion()).isEqualTo(ValueConversion.NUMERIC_TEXT);
    assertThat(nMapping.notes()).singleElement().extracting(MappingNote::message).asString()
        .contains("1 value has more than 29 integer digits; 1 value has more than 9 fractional digits; 1 NaN; "
            + "2 ±Infinity (in all 7 rows)");

    // numeric(20,12) holding 1.500000000000: twelve stored digits, one significant. It fits.
    ColumnEvidence fits = evidence.get("fits");
    assertThat(fits.facts()).containsEntry(ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS, 0L)
        .containsEntry(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, 9L)
        .containsEntry(ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, 8L);
    TypeMapping fitsMapping = refine(table, "fits", fits);
    assertThat(fitsMapping.target()).isEqualTo(SpannerType.NUMERIC);
    assertThat(fitsMapping.notes()).singleElement().satisfies(note -> {
      assertThat(note.severity()).isEqualTo(Severity.INFO);
      assertThat(note.evidence()).containsEntry(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, 9L);
    });

    // ±(10^29 − 10^-9): the largest values Spanner NUMERIC holds.
    ColumnEvidence edge = evidence.get("edge");
    assertThat(edge.facts()).containsEntry(ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, 29L)
        .containsEntry(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, 9L)
        .containsEntry(ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, 0L);
    assertThat(refine(table, "edge", edge).target()).isEqualTo(SpannerType.NUMERIC);

    // A domain over numeric is examined as numeric.
    assertThat(evidence.get("Mixed Case").facts()).containsEntry(ColumnEvidence.NUMERIC_NAN, 1L);
    assertThat(refine(table, "Mixed Case", evidence.get("Mixed Case")).conversion())
        .isEqualTo(ValueConversion.NUMERIC_TEXT);

    // Arrays: element facts over all elements, dimension facts per value.
    ColumnEvidence arr = evidence.get("arr");
    assertThat(arr.facts()).containsEntry(ColumnEvidence.NUMERIC_NAN, 1L)
        .containsEntry(ColumnEvidence.ARRAY_MULTIDIMENSIONAL, 1L)
        .containsEntry(ColumnEvidence.ARRAY_LOWER_BOUND_NOT_1, 1L);
    TypeMapping arrMapping = refine(table, "arr", arr);
    assertThat(arrMapping.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(arrMapping.conversion()).isEqualTo(ValueConversion.TEXT_OUTPUT);
    assertThat(arrMapping.notes().get(0).message()).contains("1 value has more than one dimension");
  }

  @Test
  void temporalRangeIsCheckedInUtcWhateverTheSessionZone(PgTestDatabase pg) throws Exception {
    PgTable table = table("public", "times", null, false,
        column("d", 1, PgType.builtin("date", "date")),
        column("ts", 2, PgType.builtin("timestamp", "timestamp without time zone")),
        column("tz", 3, PgType.builtin("timestamptz", "timestamp with time zone")));
    Map<String, ColumnEvidence> evidence;
    try (Connection c = pg.connect(); Statement s = c.createStatement()) {
      // A zone far from UTC: the result must not depend on it.
      s.execute("SET TimeZone = 'Pacific/Kiritimati'");
      evidence = FULL.collect(c, table, needs(table));
    }
    assertThat(evidence.get("d").facts()).containsEntry(ColumnEvidence.TEMPORAL_INFINITY, 2L)
        .containsEntry(ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, 1L)
        .containsEntry(ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, 0L); // 9999-12-31 itself fits
    TypeMapping d = refine(table, "d", evidence.get("d"));
    assertThat(d.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(d.conversion()).isEqualTo(ValueConversion.TEXT_OUTPUT);
    assertThat(d.notes()).extracting(MappingNote::message)
        .anySatisfy(m -> assertThat(m).contains("2 ±infinity, 1 BC (in all 5 rows)"));

    // 0001-01-01 00:00 and 9999-12-31 23:59:59.999999 are Spanner's exact bounds: no change.
    assertThat(evidence.get("ts").facts()).containsEntry(ColumnEvidence.TEMPORAL_INFINITY, 0L)
        .containsEntry(ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, 0L)
        .containsEntry(ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, 0L);
    PgType ts = table.column("ts").orElseThrow().type();
    assertThat(refine(table, "ts", evidence.get("ts"))).isEqualTo(TypeMapper.map(ts, dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL));

    // '9999-12-31 23:00-05' is 10000-01-01 04:00 UTC; '0001-01-01 00:30+01' is 1 BC in UTC.
    assertThat(evidence.get("tz").facts()).containsEntry(ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, 1L)
        .containsEntry(ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, 1L)
        .containsEntry(ColumnEvidence.TEMPORAL_INFINITY, 0L);
    assertThat(refine(table, "tz", evidence.get("tz")).target()).isEqualTo(SpannerType.STRING_MAX);
  }

  @Test
  void jsonAndSizeFactsFindWhatSpannerWouldReject(PgTestDatabase pg) throws Exception {
    PgTable table = table("public", "docs", null, false,
        column("doc", 1, PgType.builtin("jsonb", "jsonb")),
        column("body", 2, PgType.builtin("text", "text")),
        column("data", 3, PgType.builtin("bytea", "bytea")));
    Map<String, ColumnEvidence> evidence = collectCountingQueries(pg, table, 1);

    // 81 nested arrays are too deep, 80 are not; only 2.2412421353246235436 is not exact as a double (10000,
    // 0.1, 1.50 are, and 9007199254740993 and 2^64−1 are kept as integers).
    assertThat(evidence.get("doc").facts()).containsEntry(ColumnEvidence.JSON_TOO_DEEP, 1L)
        .containsEntry(ColumnEvidence.JSON_INEXACT_NUMBERS, 1L)
        .containsEntry(ColumnEvidence.JSON_OVER_SIZE, 0L);
    TypeMapping doc = refine(table, "doc", evidence.get("doc"));
    assertThat(doc.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(doc.conversion()).isEqualTo(ValueConversion.JSON_TEXT);

    assertThat(evidence.get("body").facts()).containsEntry(ColumnEvidence.OVER_CELL_LIMIT, 1L)
        .containsEntry(ColumnEvidence.MAX_OCTETS, 10_485_761L);
    TypeMapping body = refine(table, "body", evidence.get("body"));
    assertThat(body.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(body.worstSeverity()).isEqualTo(Severity.ERROR);

    assertThat(evidence.get("data").facts()).containsEntry(ColumnEvidence.MAX_OCTETS, 2L)
        .containsEntry(ColumnEvidence.OVER_CELL_LIMIT, 0L);
    assertThat(refine(table, "data", evidence.get("data")).notes()).isEmpty();
  }

  @Test
  void largeTablesAreSampledAndSaySo(PgTestDatabase pg) throws Exception {
    PgTable table = table("public", "big", 20_000.0, false,
        column("id", 1, PgType.builtin("int4", "integer")),
        column("n", 2, numeric(null, null)));
    Map<String, ColumnEvidence> evidence;
    try (Connection c = pg.connect()) {
      evidence = new EvidenceCollector(2_000).collect(c, table, needs(table));
    }
    ColumnEvidence n = evidence.get("n");
    assertThat(n.sampled()).isTrue();
    // The sample is REPEATABLE, so it is never empty here.
    assertThat(n.rowsExamined()).isPositive().isLessThan(20_000);
    TypeMapping m = refine(table, "n", n);
    // g / 7.0 has 20 fractional digits: the column stays text.
    assertThat(m.conversion()).isEqualTo(ValueConversion.NUMERIC_TEXT);
    assertThat(m.notes()).isNotEmpty().extracting(MappingNote::message).allSatisfy(msg -> assertThat(msg).contains("sample"));

    // The same table under the limit is read in full.
    try (Connection c = pg.connect()) {
      ColumnEvidence full = new EvidenceCollector(20_000).collect(c, table, needs(table)).get("n");
      assertThat(full.sampled()).isFalse();
      assertThat(full.rowsExamined()).isEqualTo(20_000);
      assertThat(full.facts()).containsEntry(ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS, 17_143L);
    }
  }

  @Test
  void anInheritanceParentIsReadWithOnly(PgTestDatabase pg) throws Exception {
    PgTable parent = table("public", "parent", null, true, column("n", 1, numeric(null, null)));
    ColumnEvidence n = collectCountingQueries(pg, parent, 1).get("n");
    assertThat(n.rowsExamined()).isEqualTo(2); // not the child's two rows
    assertThat(n.facts()).containsEntry(ColumnEvidence.NUMERIC_NAN, 0L);
    assertThat(refine(parent, "n", n).target()).isEqualTo(SpannerType.NUMERIC);
  }

  @Test
  void noNeedsMeansNoQuery(PgTestDatabase pg) throws Exception {
    PgTable table = table("public", "big", 20_000.0, false,
        column("id", 1, PgType.builtin("int4", "integer")));
    assertThat(collectCountingQueries(pg, table, 0)).isEmpty();
  }

  // ---- helpers ----

  /** Collects through a connection that counts the statements run on it, and checks the count. */
  private static Map<String, ColumnEvidence> collectCountingQueries(PgTestDatabase pg, PgTable table,
      int expectedQueries) throws Exception {
    AtomicInteger queries = new AtomicInteger();
    try (Connection real = pg.connect()) {
      Connection counting = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
          new Class<?>[] {Connection.class}, countStatements(real, queries));
      Map<String, ColumnEvidence> evidence = FULL.collect(counting, table, needs(table));
      assertThat(queries.get()).as("queries for %s", table.qualifiedName()).isEqualTo(expectedQueries);
      return evidence;
    }
  }

  private static InvocationHandler countStatements(Connection real, AtomicInteger queries) {
    return (proxy, method, args) -> {
      try {
        Object result = method.invoke(real, args);
        if (result instanceof Statement statement) {
          return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {Statement.class},
              (p, m, a) -> {
                if (m.getName().startsWith("execute")) {
                  queries.incrementAndGet();
                }
                try {
                  return m.invoke(statement, a);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
        }
        if (method.getName().startsWith("prepare")) {
          queries.incrementAndGet(); // counted when prepared: prepared statements are not proxied here
        }
        return result;
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
  }

  /** What the planner would ask for: each column's first mapping's evidence. */
  private static Map<String, Set<EvidenceNeed>> needs(PgTable table) {
    Map<String, Set<EvidenceNeed>> needs = new LinkedHashMap<>();
    for (PgColumn c : table.columns()) {
      needs.put(c.name(), TypeMapper.map(c.type(), dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL).evidence());
    }
    return needs;
  }

  private static TypeMapping refine(PgTable table, String column, ColumnEvidence evidence) {
    PgType type = table.column(column).orElseThrow().type();
    return TypeMapper.refine(type, TypeMapper.map(type, dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL), evidence, dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL);
  }

  private static PgType numeric(Integer precision, Integer scale) {
    String display = precision == null ? "numeric" : "numeric(" + precision + "," + scale + ")";
    return new PgType("pg_catalog", "numeric", display, null, precision, scale, false, 0, PgType.Kind.BASE, null,
        List.of(), false, List.of());
  }

  private static PgColumn column(String name, int position, PgType type) {
    return new PgColumn(name, position, type, false, null, PgColumn.Identity.NONE, null, null, null, null, null);
  }

  private static PgTable table(String schema, String name, Double rowEstimate, boolean inheritanceParent,
      PgColumn... columns) {
    PgTableStats stats = new PgTableStats(rowEstimate, 0, 0, 0, null, null, null, null, null);
    return new PgTable(schema, name, PgTable.Kind.TABLE, new ArrayList<>(List.of(columns)), null, List.of(),
        List.of(), List.of(), List.of(), null, List.of(), inheritanceParent, null, stats);
  }
}
