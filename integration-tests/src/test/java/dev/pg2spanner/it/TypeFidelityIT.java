package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Type;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8: every value of {@code fixtures/fidelity.sql} goes through {@code plan} and {@code migrate} and is read
 * back from Spanner, column by column, and compared with the source under the mapping's rule (docs/type-mapping.md):
 * numerics as decimals (never through double), floats bit by bit, timestamps as UTC microseconds, strings and bytes
 * exactly, '' apart from NULL, arrays element by element, JSON semantically (by PostgreSQL's jsonb equality). Every
 * value that cannot be stored exactly is named in report.json before the load and arrives as its exact text (the
 * documented fallback) or, once a person edits the plan back to the native type, in the dead-letter file.
 */
@WithPostgres
@WithSpannerEmulator
class TypeFidelityIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The source key column of each fixture table. */
  private static final Map<String, String> KEYS = Map.of("public.numbers", "id", "public.times", "id",
      "public.texts", "id", "public.docs", "id", "public.arrays", "id", "public.Mixed Case", "Order",
      "public.misfits", "id");

  /** table/column → the plan's (targetType, conversion) for the columns whose values do not all fit natively. */
  private static final Map<String, String> FALLBACKS = Map.ofEntries(
      Map.entry("public.numbers/n389_nan", "STRING(MAX) NUMERIC_TEXT"),
      Map.entry("public.numbers/n_free", "STRING(MAX) NUMERIC_TEXT"),
      Map.entry("public.times/tstz_edge", "STRING(MAX) TEXT_OUTPUT"),
      Map.entry("public.times/d_edge", "STRING(MAX) TEXT_OUTPUT"),
      Map.entry("public.times/t", "STRING(MAX) TIME_TEXT"), Map.entry("public.times/ttz", "STRING(MAX) TIME_TEXT"),
      Map.entry("public.times/iv", "STRING(MAX) INTERVAL_ISO8601"),
      Map.entry("public.docs/j_odd", "STRING(MAX) JSON_TEXT"),
      // json with a repeated key: Spanner JSON would keep one, so the plan keeps the exact text (issue 15).
      Map.entry("public.docs/js", "STRING(MAX) JSON_TEXT"),
      Map.entry("public.arrays/m2", "STRING(MAX) TEXT_OUTPUT"),
      Map.entry("public.texts/addr", "STRING(MAX) TEXT_OUTPUT"));

  /** Native columns whose extremes must arrive natively (the evidence found nothing that does not fit). */
  private static final Map<String, String> NATIVE = Map.of("public.numbers/n389", "NUMERIC NUMERIC",
      "public.numbers/f4", "FLOAT32 FLOAT32", "public.numbers/f8", "FLOAT64 FLOAT64",
      "public.times/tstz", "TIMESTAMP TIMESTAMP", "public.times/ts_wall", "TIMESTAMP TIMESTAMP_WALL_CLOCK_AS_UTC",
      "public.times/d", "DATE DATE", "public.texts/b", "BYTES(MAX) BYTES", "public.docs/j", "JSON JSON",
      "public.arrays/fa", "ARRAY<FLOAT64> FLOAT64", "public.arrays/na", "ARRAY<NUMERIC> NUMERIC");

  /** misfits rows (key) the converter must refuse once the plan is edited back, with the refused column. */
  private static final Map<String, String> MISFITS = Map.of("1", "n", "2", "n", "3", "n", "4", "ts", "5", "ts",
      "6", "huge");

  @Test
  void everyValueArrivesExactlyOrIsReportedAndDeadLettered(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    // A TimeZone with a DST gap: '2021-03-14 02:30:00' does not exist in New York, and must still arrive as itself.
    pg.execute("ALTER DATABASE " + PgNames.quote(pg.name()) + " SET TimeZone TO 'America/New_York'");
    pg.execute(Files.readString(Path.of(TypeFidelityIT.class.getResource("/fixtures/fidelity.sql").toURI())));

    Path out = dir.resolve("plan");
    Path planFile = MigrateSupport.plan(pg, out);
    Plan plan = PlanFiles.read(planFile);
    String yaml = Files.readString(planFile);

    // (a) Before the load: the plan chose exact text for every column holding values Spanner's type cannot hold,
    // and report.json names each such column (and the native-type misfits a person will edit back).
    for (Map.Entry<String, String> e : FALLBACKS.entrySet()) {
      assertThat(typeOf(plan, e.getKey())).as(e.getKey() + " in\n" + yaml).isEqualTo(e.getValue());
    }
    for (Map.Entry<String, String> e : NATIVE.entrySet()) {
      assertThat(typeOf(plan, e.getKey())).as(e.getKey() + " in\n" + yaml).isEqualTo(e.getValue());
    }
    JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
    Set<String> reported = new HashSet<>();
    for (JsonNode f : report.get("findings")) {
      if (f.get("code").asText().equals("LOSSY_TYPE") && f.hasNonNull("column")) {
        reported.add(f.get("table").asText() + "/" + f.get("column").asText());
      }
    }
    List<String> mustBeReported = new ArrayList<>(FALLBACKS.keySet());
    mustBeReported.addAll(List.of("public.misfits/n", "public.misfits/ts", "public.misfits/huge"));
    assertThat(reported).containsAll(mustBeReported);
    assertThat(PlanCommandIT.findings(out, "LOSSY_TYPE"))
        .anyMatch(m -> m.contains("1 value has more than 29 integer digits"))
        .anyMatch(m -> m.contains("1 ±infinity, 1 BC"))
        .anyMatch(m -> m.contains("1 value is longer than 2,621,440 characters"));

    // A person edits misfits back to the native types, as the warnings explain: those values must dead-letter.
    MigrateSupport.editColumn(planFile, "public.misfits", "n", "NUMERIC", "NUMERIC");
    MigrateSupport.editColumn(planFile, "public.misfits", "ts", "TIMESTAMP", "TIMESTAMP_WALL_CLOCK_AS_UTC");

    Path deadLetter = dir.resolve("dead-letter.jsonl");
    CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run"), "--workers", "2", "--max-bad-rows", "10", "--dead-letter", deadLetter.toString()));
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();

    // (b) During the load: exactly the misfits rows, each with the column and a reason, are dead-lettered.
    Map<String, String> dead = new TreeMap<>();
    List<JsonNode> lines = MigrateSupport.jsonLines(deadLetter);
    for (JsonNode line : lines) {
      assertThat(line.get("table").asText()).as("every dead-letter line: " + lines).isEqualTo("misfits");
      assertThat(line.get("reason").asText()).isNotBlank();
      dead.put(line.get("key").asText(), line.path("column").asText(""));
    }
    assertThat(dead).as("dead-letter lines: " + lines).isEqualTo(new TreeMap<>(MISFITS));
    // Row 6's text is 2.7 M characters: under the 10 MiB cell limit, over STRING(MAX)'s 2,621,440 characters. The
    // plan named it before the load (asserted above); Spanner refuses the row, and it is dead-lettered with the reason.
    assertThat(lines).anyMatch(l -> l.get("key").asText().equals("6")
        && l.get("reason").asText().contains("exceeds the maximum size limit"));

    // Every other value, read back from Spanner, equals the source.
    Plan migrated = PlanFiles.read(planFile);
    try (Connection c = pg.connect()) {
      try (java.sql.Statement s = c.createStatement()) {
        // The session settings migrate reads with, so PostgreSQL's text forms are the ones it stored.
        s.execute("SET TimeZone = 'UTC'");
        s.execute("SET DateStyle = 'ISO, YMD'");
        s.execute("SET IntervalStyle = 'iso_8601'");
        s.execute("SET extra_float_digits = 3");
      }
      List<String> jsonPairs = new ArrayList<>();
      int compared = 0;
      for (TablePlan table : migrated.tables()) {
        compared += compareTable(c, spanner, table, dead.keySet(), jsonPairs);
      }
      assertThat(compared).as("cells compared").isGreaterThan(150);
      assertJsonEqual(c, jsonPairs);
    }

    // Spot checks of the hazards by name, so a change to the generic comparison cannot hide them.
    assertThat(MigrateSupport.spannerLong(spanner, "SELECT COUNT(DISTINCT ts_wall) FROM times"))
        .as("no two wall-clock times collapse across the DST gap").isEqualTo(4);
    assertThat(MigrateSupport.spannerLong(spanner, "SELECT COUNT(*) FROM times WHERE ts_wall = "
        + "TIMESTAMP '2021-03-14 02:30:00+00'")).as("the non-existent New York time arrives as itself").isEqualTo(1);
    assertThat(MigrateSupport.spannerLong(spanner, "SELECT COUNTIF(id = 1 AND iv = 'P1M') "
        + "+ COUNTIF(id = 2 AND iv = 'P30D') + COUNTIF(id = 1 AND t = '24:00:00') FROM times")).isEqualTo(3);
    assertThat(MigrateSupport.spannerLong(spanner, "SELECT COUNTIF(id = 3 AND s = '') "
        + "+ COUNTIF(id = 4 AND s IS NULL) + COUNTIF(id = 2 AND vc = '') + COUNTIF(id = 3 AND vc IS NULL) "
        + "FROM texts"))
        .as("'' and NULL stay distinct").isEqualTo(4);
    assertThat(MigrateSupport.spannerLong(spanner, "SELECT COUNT(*) FROM numbers WHERE IS_NAN(f8) OR f8 = 0"))
        .isEqualTo(2);
    assertThat(MigrateSupport.spannerLong(spanner, "SELECT COUNT(*) FROM texts WHERE id = 6 AND "
        + "LENGTH(b) = 256")).isEqualTo(1);
  }

  private static String typeOf(Plan plan, String tableSlashColumn) {
    String[] parts = tableSlashColumn.split("/");
    ColumnPlan col = plan.tableBySource(parts[0]).orElseThrow().columns().stream()
        .filter(cp -> parts[1].equals(cp.source())).findFirst().orElseThrow();
    return col.targetType() + " " + col.conversion();
  }

  /** Compares every cell of one table; returns how many were compared. JSON pairs are collected for PostgreSQL. */
  private static int compareTable(Connection c, SpannerTestDatabase spanner, TablePlan table, Set<String> deadKeys,
      List<String> jsonPairs) throws Exception {
    String sourceKey = KEYS.get(table.source());
    String[] st = table.source().split("\\.", 2);
    String keyTarget = table.columns().stream().filter(cp -> sourceKey.equals(cp.source())).findFirst()
        .orElseThrow().target();
    List<ColumnPlan> columns = table.columns().stream().filter(cp -> cp.source() != null).toList();
    List<String> selects = new ArrayList<>();
    selects.add(PgNames.quote(sourceKey) + "::text AS k");
    for (int i = 0; i < columns.size(); i++) {
      selects.add(sourceExpression(columns.get(i)) + " AS c" + i);
    }
    // Source: key → one canonical value per column (a List<String> for arrays).
    Map<String, List<Object>> source = new TreeMap<>();
    try (java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SELECT " + String.join(", ", selects) + " FROM "
            + PgNames.qualified(st[0], st[1]) + skipDead(table, sourceKey, deadKeys))) {
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
          if (columns.get(i).targetType().startsWith("ARRAY<")) {
            java.sql.Array a = rs.getArray("c" + i);
            row.add(a == null ? null : Arrays.asList((Object[]) a.getArray()));
          } else {
            row.add(rs.getString("c" + i));
          }
        }
        source.put(rs.getString("k"), row);
      }
    }
    Map<String, List<Object>> target = new TreeMap<>();
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of(
        "SELECT * FROM " + SpannerNames.quote(table.target())))) {
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (ColumnPlan col : columns) {
          row.add(targetValue(rs, col));
        }
        target.put(String.valueOf(rs.getLong(keyTarget)), row);
      }
    }
    assertThat(target.keySet()).as("keys of " + table.target()).isEqualTo(source.keySet());
    int compared = 0;
    for (String key : source.keySet()) {
      for (int i = 0; i < columns.size(); i++) {
        ColumnPlan col = columns.get(i);
        String where = table.source() + "." + col.source() + " at " + sourceKey + "=" + key;
        Object expected = source.get(key).get(i);
        Object actual = target.get(key).get(i);
        if (expected == null || actual == null) {
          assertThat(actual).as(where + " (NULL stays NULL, '' stays '')").isEqualTo(expected);
        } else if (col.targetType().equals("JSON")) {
          jsonPairs.add(where);
          jsonPairs.add(expected.toString());
          jsonPairs.add(actual.toString());
        } else if (isNumeric(col)) {
          assertThat(decimals(actual)).as(where).isEqualTo(decimals(expected));
        } else {
          assertThat(actual).as(where).isEqualTo(expected);
        }
        compared++;
      }
    }
    return compared;
  }

  /** The dead-lettered misfits rows are left out: their values have no canonical Spanner form to compare. */
  private static String skipDead(TablePlan table, String sourceKey, Set<String> deadKeys) {
    if (!table.source().equals("public.misfits") || deadKeys.isEmpty()) {
      return "";
    }
    return " WHERE " + PgNames.quote(sourceKey) + "::text NOT IN ("
        + deadKeys.stream().map(PgNames::literal).collect(Collectors.joining(", ")) + ")";
  }

  private static boolean isNumeric(ColumnPlan col) {
    return col.targetType().equals("NUMERIC") || col.targetType().equals("ARRAY<NUMERIC>");
  }

  /** Decimal text compared as a number (1.500000000 = 1.5), through BigDecimal, never through double. */
  private static Object decimals(Object value) {
    Function<Object, String> one = v -> v == null ? null
        : new BigDecimal(v.toString()).stripTrailingZeros().toPlainString();
    if (value instanceof List<?> list) {
      return list.stream().map(v -> v == null ? "NULL" : one.apply(v)).toList();
    }
    return one.apply(value);
  }

  /** The PostgreSQL expression whose text (per element, for arrays) is the canonical form of the value. */
  private static String sourceExpression(ColumnPlan col) {
    String name = PgNames.quote(col.source());
    if (col.targetType().startsWith("ARRAY<")) {
      return "CASE WHEN " + name + " IS NULL THEN NULL ELSE ARRAY(SELECT " + element(col, "e")
          + " FROM unnest(" + name + ") WITH ORDINALITY u(e, o) ORDER BY o) END";
    }
    return element(col, name);
  }

  private static String element(ColumnPlan col, String x) {
    String type = col.targetType().replaceFirst("^ARRAY<(.*)>$", "$1");
    if (type.equals("FLOAT32")) {
      return "encode(float4send(" + x + "), 'hex')";
    } else if (type.equals("FLOAT64")) {
      return "encode(float8send(" + x + "), 'hex')";
    } else if (type.startsWith("BYTES")) {
      return "encode(" + x + ", 'hex')";
    } else if (type.equals("TIMESTAMP")) {
      // For timestamp without time zone, epoch is the wall clock read as UTC: the documented rule.
      return "(extract(epoch FROM " + x + ") * 1000000)::bigint::text";
    } else if (col.conversion().name().equals("MONEY_NUMERIC")) {
      return x + "::numeric::text";
    } else if (type.startsWith("STRING") && !x.equals("e")) {
      // The column itself: getString keeps char(n)'s blank padding, which a ::text cast would strip.
      return x;
    }
    return x + "::text";
  }

  /** The Spanner value in the same canonical form as {@link #element}. */
  private static Object targetValue(ResultSet rs, ColumnPlan col) {
    String name = col.target();
    if (rs.isNull(name)) {
      return null;
    }
    Type type = rs.getColumnType(name);
    if (type.getCode() == Type.Code.ARRAY) {
      Type.Code element = type.getArrayElementType().getCode();
      List<?> values = switch (element) {
        case INT64 -> rs.getLongList(name);
        case FLOAT32 -> rs.getFloatList(name);
        case FLOAT64 -> rs.getDoubleList(name);
        case NUMERIC -> rs.getBigDecimalList(name);
        case BOOL -> rs.getBooleanList(name);
        case DATE -> rs.getDateList(name);
        case STRING -> rs.getStringList(name);
        case BYTES -> rs.getBytesList(name);
        case TIMESTAMP -> rs.getTimestampList(name);
        default -> throw new AssertionError("unexpected array element type " + element + " of " + name);
      };
      List<Object> canonical = new ArrayList<>();
      for (Object v : values) {
        canonical.add(v == null ? null : canonical(v));
      }
      return canonical;
    }
    return switch (type.getCode()) {
      case INT64 -> Long.toString(rs.getLong(name));
      case FLOAT32 -> canonical(rs.getFloat(name));
      case FLOAT64 -> canonical(rs.getDouble(name));
      case NUMERIC -> rs.getBigDecimal(name).toPlainString();
      case BOOL -> Boolean.toString(rs.getBoolean(name));
      case DATE -> rs.getDate(name).toString();
      case TIMESTAMP -> canonical(rs.getTimestamp(name));
      case STRING -> rs.getString(name);
      case BYTES -> canonical(rs.getBytes(name));
      case JSON -> rs.getJson(name);
      default -> throw new AssertionError("unexpected type " + type + " of " + name);
    };
  }

  private static String canonical(Object v) {
    if (v instanceof Float f) {
      return String.format("%08x", Float.floatToRawIntBits(f));
    } else if (v instanceof Double d) {
      return String.format("%016x", Double.doubleToRawLongBits(d));
    } else if (v instanceof Timestamp t) {
      return Long.toString(t.getSeconds() * 1_000_000L + t.getNanos() / 1000);
    } else if (v instanceof com.google.cloud.ByteArray b) {
      return HexFormat.of().formatHex(b.toByteArray());
    } else if (v instanceof BigDecimal b) {
      return b.toPlainString();
    }
    return v.toString();
  }

  /**
   * JSON compared by PostgreSQL's jsonb equality (semantic: key order, whitespace and number spelling do not
   * count). json documents Spanner would change are planned as text (issue 15), so every JSON cell compares equal.
   */
  private static void assertJsonEqual(Connection c, List<String> triples) throws Exception {
    Map<String, String> documented = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT ?::jsonb = ?::jsonb AS same")) {
      for (int i = 0; i < triples.size(); i += 3) {
        String where = triples.get(i);
        String expected = documented.getOrDefault(where, triples.get(i + 1));
        ps.setString(1, expected);
        ps.setString(2, triples.get(i + 2));
        try (java.sql.ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getBoolean("same")).as(where + ": source " + abbreviate(expected) + " vs Spanner "
              + abbreviate(triples.get(i + 2))).isTrue();
        }
      }
    }
    assertThat(triples.stream().filter(t -> t.startsWith("public.docs.")).collect(Collectors.toSet()))
        .as("JSON cells compared").hasSizeGreaterThanOrEqualTo(4);
  }

  private static String abbreviate(String s) {
    return s.length() <= 300 ? s : s.substring(0, 300) + "...";
  }
}
