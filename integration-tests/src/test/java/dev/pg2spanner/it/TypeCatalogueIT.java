package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28's acceptance: a table with one column of every built-in base, range and multirange type PostgreSQL's
 * {@code pg_type} lists (read from the catalog, so a new PostgreSQL version brings its new types), an array of each,
 * and one column per type modifier, with edge values in its rows. {@code plan} writes its plan without an error,
 * {@code migrate} with default options loads every row (no dead letter, so nothing plan did not predict), and verify
 * finds every table equal — in both Spanner dialects.
 */
@WithPostgres
@WithSpannerEmulator
class TypeCatalogueIT {

  /**
   * Edge values per type, as SQL expressions (cast to the column's type when inserted). A type listed in
   * {@link #NO_INPUT} takes NULL only; any other type without values fails the test, naming it.
   */
  private static final Map<String, List<String>> VALUES = values();

  /** Types whose input function refuses every text: a column of them can hold only NULL (or catalog data). */
  private static final Set<String> NO_INPUT = Set.of("pg_brin_bloom_summary", "pg_brin_minmax_multi_summary",
      "pg_dependencies", "pg_mcv_list", "pg_ndistinct", "gtsvector");

  /** The declarations with a type modifier, per type whose {@code typmodin} accepts one, and a value for each. */
  private static final Map<String, Map<String, String>> MODIFIERS = Map.of(
      "bit", Map.of("bit(8)", "B'10101010'"),
      "bpchar", Map.of("character(5)", "'ab'"),
      "numeric", Map.of("numeric(38,9)", "'99999999999999999999999999999.999999999'", "numeric(5,2)", "'-999.99'",
          "numeric(40,20)", "'12345678901234567890.12345678901234567890'"),
      "time", Map.of("time(0) without time zone", "'23:59:59'"),
      "timestamp", Map.of("timestamp(0) without time zone", "'2000-01-01 00:00:00'"),
      "timestamptz", Map.of("timestamp(3) with time zone", "'2000-01-01 00:00:00.123+00'"),
      "timetz", Map.of("time(2) with time zone", "'10:00:00.12+02'"),
      "varbit", Map.of("bit varying(4)", "B'1'"),
      "varchar", Map.of("character varying(10)", "'abcdefghij'"),
      "interval", Map.of("interval year to month", "'1 year 2 months'", "interval(3)", "'1.234 seconds'"));

  private static Map<String, List<String>> values() {
    Map<String, List<String>> v = new LinkedHashMap<>();
    v.put("aclitem", List.of("makeaclitem(current_user::regrole::oid, current_user::regrole::oid, 'SELECT', true)"));
    v.put("bit", List.of("B'1'", "B'0'"));
    v.put("bool", List.of("true", "false"));
    v.put("box", List.of("'(1,2),(3,4)'", "'(-1e300,0),(1e300,1)'"));
    v.put("bpchar", List.of("'a'", "' '"));
    v.put("bytea", List.of("'\\x00ff'::bytea", "''::bytea"));
    v.put("char", List.of("'a'", "chr(233)::\"char\""));
    v.put("cid", List.of("'0'", "'4294967295'"));
    v.put("cidr", List.of("'10.0.0.0/8'", "'::/0'"));
    v.put("circle", List.of("'<(1,2),3>'"));
    v.put("date", List.of("'0001-01-01'", "'9999-12-31'", "'infinity'", "'4713-01-01 BC'", "'5874897-12-31'",
        "'-infinity'"));
    v.put("float4", List.of("'NaN'", "'-Infinity'", "'-0'", "'3.4028235e38'", "'1.4e-45'"));
    v.put("float8", List.of("'NaN'", "'Infinity'", "'-0'", "'1.7976931348623157e308'", "'4.9e-324'"));
    v.put("inet", List.of("'192.168.0.1'", "'::1/128'"));
    v.put("int2", List.of("-32768", "32767"));
    v.put("int2vector", List.of("'1 2'", "''", "'-32768 32767'"));
    v.put("int4", List.of("-2147483648", "2147483647"));
    v.put("int8", List.of("-9223372036854775808", "9223372036854775807"));
    v.put("interval", List.of("'1 mon'", "'30 days'", "'-178000000 years'", "'1 day -00:00:00.000001'"));
    v.put("json", List.of("'{\"a\":1,\"a\":2}'", "'[1.0000000000000000001]'", "'{}'", "'\"\\u0000\"'"));
    v.put("jsonb", List.of("'{\"n\": 2.2412421353246235436}'", "'[]'"));
    v.put("jsonpath", List.of("'$.a[*] ? (@ > 1)'"));
    v.put("line", List.of("'{1,2,3}'"));
    v.put("lseg", List.of("'[(1,2),(3,4)]'"));
    v.put("macaddr", List.of("'08:00:2b:01:02:03'"));
    v.put("macaddr8", List.of("'08:00:2b:01:02:03:04:05'"));
    v.put("money", List.of("'-92233720368547758.08'", "'92233720368547758.07'"));
    v.put("name", List.of("'a name'", "repeat('x', 63)"));
    v.put("numeric", List.of("'NaN'", "'Infinity'", "'1e-20'", "'123456789012345678901234567890.5'"));
    v.put("oid", List.of("0", "4294967295"));
    v.put("oidvector", List.of("'1 2'", "''", "'4294967295'"));
    v.put("path", List.of("'[(1,2),(3,4)]'", "'((0,0),(1,1),(2,0))'"));
    v.put("pg_lsn", List.of("'0/0'", "'FFFFFFFF/FFFFFFFF'"));
    // A column default's expression tree, as the catalog stores it (the helper table below holds one).
    v.put("pg_node_tree", List.of("(SELECT adbin FROM pg_attrdef WHERE adrelid = 'type_catalogue_defaults'::regclass)"));
    v.put("pg_snapshot", List.of("'10:20:10,14,15'"));
    v.put("point", List.of("'(1,2)'", "'(NaN,-Infinity)'"));
    v.put("polygon", List.of("'((0,0),(1,1),(2,0))'"));
    v.put("refcursor", List.of("'c'"));
    v.put("regclass", List.of("'pg_class'"));
    v.put("regcollation", List.of("'\"C\"'"));
    v.put("regconfig", List.of("'english'"));
    v.put("regdictionary", List.of("'simple'"));
    v.put("regnamespace", List.of("'pg_catalog'"));
    v.put("regoper", List.of("'||/'"));
    v.put("regoperator", List.of("'+(int4,int4)'"));
    v.put("regproc", List.of("'now'"));
    v.put("regprocedure", List.of("'abs(int4)'"));
    v.put("regrole", List.of("current_user::regrole"));
    v.put("regtype", List.of("'int4'"));
    v.put("text", List.of("''", "'emoji 😀'", "E'tab\\ttab \\\\ \"q\" {x,y}'"));
    v.put("tid", List.of("'(0,1)'", "'(4294967295,65535)'"));
    v.put("time", List.of("'24:00:00'", "'00:00:00'"));
    v.put("timestamp", List.of("'infinity'", "'0001-01-01 00:00:00'", "'9999-12-31 23:59:59.999999'",
        "'4713-01-01 00:00:00 BC'", "'294276-12-31 23:59:59'", "'-infinity'"));
    v.put("timestamptz", List.of("'infinity'", "'0001-01-01 00:00:00+00'", "'9999-12-31 23:59:59.999999+00'",
        "'4713-01-01 00:00:00+00 BC'", "'294276-12-31 23:59:59+00'", "'-infinity'"));
    v.put("timetz", List.of("'10:00:00+02'", "'24:00:00-15:59'"));
    v.put("tsquery", List.of("'a & b'"));
    v.put("tsvector", List.of("'a:1 b:2'"));
    v.put("txid_snapshot", List.of("'10:20:10,14,15'"));
    v.put("uuid", List.of("'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'"));
    v.put("varbit", List.of("B''", "B'101'"));
    v.put("varchar", List.of("''", "'x'"));
    v.put("xid", List.of("'0'", "'4294967295'"));
    v.put("xid8", List.of("'18446744073709551615'"));
    v.put("xml", List.of("'<a>1</a>'", "'plain text'"));
    v.put("int4range", List.of("'[1,5)'", "'empty'", "'(,)'"));
    v.put("int8range", List.of("'[1,5)'"));
    v.put("numrange", List.of("'[1.5,2.5]'"));
    v.put("daterange", List.of("'[2000-01-01,infinity)'"));
    v.put("tsrange", List.of("'[2000-01-01,2001-01-01)'"));
    v.put("tstzrange", List.of("'[2000-01-01 00:00+00,2001-01-01 00:00+00)'"));
    v.put("int4multirange", List.of("'{[1,2),[5,6)}'", "'{}'"));
    v.put("int8multirange", List.of("'{[1,2)}'"));
    v.put("nummultirange", List.of("'{[1,2)}'"));
    v.put("datemultirange", List.of("'{[2000-01-01,2000-02-01)}'"));
    v.put("tsmultirange", List.of("'{}'"));
    v.put("tstzmultirange", List.of("'{}'"));
    return v;
  }

  /** One column: its name, its declared type and its values (SQL expressions; fewer than the rows means NULL). */
  private record Column(String name, String type, List<String> values) {}

  @Test
  void everyBuiltInTypeAndModifierIsPlannedLoadedAndVerifiedExactlyInBothDialects(PgTestDatabase pg,
      SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    List<Column> columns = catalogueColumns(pg);
    int rows = columns.stream().mapToInt(c -> c.values().size()).max().orElseThrow() + 1; // the last: all NULL
    pg.execute("CREATE TABLE type_catalogue_defaults (v int DEFAULT 42 + 1)",
        "CREATE TABLE type_catalogue (id int PRIMARY KEY, " + columns.stream()
            .map(c -> "\"" + c.name() + "\" " + c.type()).collect(Collectors.joining(", ")) + ")");
    for (int r = 0; r < rows; r++) {
      int row = r;
      pg.execute("INSERT INTO type_catalogue VALUES (" + (r + 1) + ", " + columns.stream()
          .map(c -> row < c.values().size() ? "(" + c.values().get(row) + ")::" + c.type() : "NULL")
          .collect(Collectors.joining(", ")) + ")");
    }
    pg.execute("DROP TABLE type_catalogue_defaults", "ANALYZE");

    for (String dialect : List.of("googlesql", "postgresql")) {
      Path out = dir.resolve("plan-" + dialect);
      CliRunner.Result planned = PlanCommandIT.plan(pg, out, "--dialect", dialect);
      assertThat(planned.exitCode()).as(dialect + ": " + planned.out() + planned.err()).isZero();
      Plan plan = PlanFiles.read(out.resolve("plan.yaml"));
      assertThat(plan.tables()).hasSize(1);
      assertThat(plan.tables().get(0).columns()).hasSize(columns.size() + 1);
      assertThat(Stream.concat(plan.findings().stream(), plan.tables().get(0).findings().stream())
          .filter(f -> f.severity() == dev.pg2spanner.finding.Severity.ERROR).map(Finding::message))
          .as(dialect).isEmpty();

      Path run = dir.resolve("run-" + dialect);
      CliRunner.Result migrated = MigrateSupport.cli(migrateArgs(out.resolve("plan.yaml"), pg,
          spanner.id().getInstanceId().getName() + "/databases/types-" + dialect.substring(0, 6),
          spanner.emulatorHost(), run));
      assertThat(migrated.exitCode()).as(dialect + ": " + migrated.out() + migrated.err()).isZero();
      // Every row loaded: no value was refused, so none was refused that plan did not predict.
      assertThat(Files.readString(run.resolve("dead-letter.jsonl"))).as(dialect).isEmpty();
      assertThat(migrated.out()).as(dialect)
          .containsPattern("(?m)^type_catalogue +\\| +" + rows + " \\| +" + rows + " \\| equal")
          .contains("1 table(s) verified: all match.");
      // What plan moved to text after the loader's converter refused values says so, with the first one.
      assertThat(plan.tables().get(0).findings()).filteredOn(f -> f.code() == FindingCode.LOSSY_TYPE
          && "c_json".equals(f.column()) && f.message().contains("converter refused")).as(dialect)
          .hasSize(1);
    }
  }

  /**
   * Every base type of pg_catalog that is not merely another type's array, every built-in range and multirange type,
   * an array of each that has one, and one column per declaration in {@link #MODIFIERS}.
   */
  private static List<Column> catalogueColumns(PgTestDatabase pg) throws Exception {
    List<Column> columns = new ArrayList<>();
    Set<String> withoutValues = new TreeSet<>();
    Set<String> withoutModifiers = new TreeSet<>();
    try (Connection c = pg.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT t.typname, format_type(t.oid, NULL) AS declared, t.typarray <> 0 AS has_array, "
            + "t.typmodin <> 0 AS has_modifier FROM pg_type t "
            + "WHERE t.typnamespace = 'pg_catalog'::regnamespace AND t.typtype IN ('b', 'r', 'm') "
            + "AND NOT EXISTS (SELECT 1 FROM pg_type a WHERE a.typarray = t.oid) ORDER BY t.typname")) {
      while (rs.next()) {
        String name = rs.getString("typname");
        String declared = rs.getString("declared");
        List<String> values = VALUES.getOrDefault(name, List.of());
        if (values.isEmpty() && !NO_INPUT.contains(name)) {
          withoutValues.add(name);
        }
        columns.add(new Column("c_" + name, declared, values));
        if (rs.getBoolean("has_array")) {
          List<String> arrays = new ArrayList<>();
          if (!values.isEmpty()) {
            arrays.add("ARRAY[(" + values.get(0) + ")::" + declared + ", NULL]");
          }
          arrays.add("'{}'");
          columns.add(new Column("c_" + name + "_arr", declared + "[]", arrays));
        }
        if (rs.getBoolean("has_modifier")) {
          Map<String, String> modifiers = MODIFIERS.get(name);
          if (modifiers == null) {
            withoutModifiers.add(name);
            continue;
          }
          int i = 0;
          for (Map.Entry<String, String> m : new java.util.TreeMap<>(modifiers).entrySet()) {
            columns.add(new Column("c_" + name + "_m" + ++i, m.getKey(), List.of(m.getValue())));
          }
        }
      }
    }
    // A new PostgreSQL version's type gets its column from the catalog; its edge values must be written here.
    assertThat(withoutValues).as("base types with no edge values in VALUES").isEmpty();
    assertThat(withoutModifiers).as("types with a type modifier and no declaration in MODIFIERS").isEmpty();
    return columns;
  }
}
