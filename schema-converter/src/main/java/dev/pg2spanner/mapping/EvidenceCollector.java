package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.spanner.SpannerLimits;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Examines the values of the columns whose mapping depends on them, with at most ONE aggregate query per table
 * (every fact of every column is one aggregate of the same scan). Facts are computed in PostgreSQL's own types,
 * never through double: digits from {@code min_scale} and the integer part's text, ranges from
 * {@code extract(year ...)} with timestamptz taken {@code AT TIME ZONE 'UTC'}, JSON depth with a jsonpath.
 * For an array column the value facts are computed over its elements ({@code unnest}).
 *
 * <p>A table whose estimated row count exceeds {@code fullScanRowLimit} is read with
 * {@code TABLESAMPLE SYSTEM (p) REPEATABLE (0)}, p chosen to read about {@code fullScanRowLimit} rows, and its
 * evidence says {@code sampled=true}. A table with no estimate (never analyzed) is read in full, because a guess
 * could make the sample empty. An inheritance parent is read with ONLY: its children are migrated as their own
 * tables. Instances
 * hold only the limit and are safe to share.
 */
public final class EvidenceCollector {

  /**
   * The limits the numeric facts count against: GoogleSQL's NUMERIC (29 integer, 9 fractional digits). The
   * PostgreSQL dialect's numeric holds every finite value, so its rule reads only the ±Infinity count. The size limits
   * are the same in both dialects.
   */
  private static final SpannerLimits GOOGLE_SQL = SpannerLimits.GOOGLE_STANDARD_SQL;

  private static final Logger LOG = LoggerFactory.getLogger(EvidenceCollector.class);

  /** Aliases inside the per-row element subquery; prefixed so no table column can shadow them. */
  private static final String ELEMENT = "p2s_e.p2s_v";

  private final long fullScanRowLimit;

  /**
   * @param fullScanRowLimit tables with more estimated rows than this are sampled (≥ 1)
   */
  public EvidenceCollector(long fullScanRowLimit) {
    if (fullScanRowLimit < 1) {
      throw new IllegalArgumentException("fullScanRowLimit must be at least 1, got " + fullScanRowLimit);
    }
    this.fullScanRowLimit = fullScanRowLimit;
  }

  /** One aggregate: a count of values meeting a condition, or the maximum of an expression. */
  private record Fact(String name, boolean count, String sql) {}

  /**
   * @param c an open connection to the source (not closed here); read-only use
   * @param table the table (not null)
   * @param needs column name → the evidence its mapping asked for; columns with no need (or only NONE) are
   *     skipped
   * @return column name → its evidence, for every column that needed some; empty when none did (no query runs)
   * @throws IllegalArgumentException when a column is not in the table
   */
  public Map<String, ColumnEvidence> collect(Connection c, PgTable table, Map<String, Set<EvidenceNeed>> needs)
      throws SQLException {
    int major = c.getMetaData().getDatabaseMajorVersion();
    List<String> columns = new ArrayList<>();
    List<String> select = new ArrayList<>();
    select.add("count(*) AS rows_examined");
    Map<String, Map<String, String>> aliases = new LinkedHashMap<>();
    Map<String, Map<String, Object>> constants = new LinkedHashMap<>();
    for (Map.Entry<String, Set<EvidenceNeed>> e : needs.entrySet()) {
      EnumSet<EvidenceNeed> wanted = EnumSet.noneOf(EvidenceNeed.class);
      wanted.addAll(e.getValue());
      wanted.remove(EvidenceNeed.NONE);
      if (wanted.isEmpty()) {
        continue;
      }
      PgColumn column = table.column(e.getKey()).orElseThrow(() -> new IllegalArgumentException(
          "column " + e.getKey() + " is not in table " + table.qualifiedName()));
      int index = columns.size();
      columns.add(column.name());
      Map<String, String> columnAliases = new LinkedHashMap<>();
      Map<String, Object> columnConstants = new LinkedHashMap<>();
      List<Fact> facts = facts(column, wanted, major, columnConstants);
      for (int f = 0; f < facts.size(); f++) {
        Fact fact = facts.get(f);
        String alias = "c" + index + "_f" + f;
        select.add(fact.sql() + " AS " + alias);
        columnAliases.put(fact.name(), alias);
      }
      aliases.put(column.name(), columnAliases);
      constants.put(column.name(), columnConstants);
    }
    if (columns.isEmpty()) {
      return Map.of();
    }
    Double estimate = table.stats().rowEstimate();
    boolean sampled = estimate != null && estimate > fullScanRowLimit;
    String from = (table.kind() == PgTable.Kind.TABLE && table.hasInheritanceChildren() ? "ONLY " : "")
        + PgNames.qualified(table.schema(), table.name());
    if (sampled) {
      double percent = Math.max(0.000001, Math.min(100.0, fullScanRowLimit * 100.0 / estimate));
      from += String.format(Locale.ROOT, " TABLESAMPLE SYSTEM (%.6f) REPEATABLE (0)", percent);
    }
    String sql = "SELECT " + String.join(",\n  ", select) + "\nFROM " + from;
    LOG.debug("evidence query for {}: {}", table.qualifiedName(), sql);
    Map<String, ColumnEvidence> result = new LinkedHashMap<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next(); // an aggregate without GROUP BY always returns one row
      long rows = rs.getLong("rows_examined");
      for (String column : columns) {
        Map<String, Object> facts = new LinkedHashMap<>(constants.get(column));
        for (Map.Entry<String, String> a : aliases.get(column).entrySet()) {
          facts.put(a.getKey(), value(rs.getObject(a.getValue())));
        }
        result.put(column, new ColumnEvidence(column, sampled, rows, facts));
      }
    }
    return result;
  }

  private static Object value(Object o) {
    if (o instanceof BigDecimal d) {
      return d.longValueExact();
    }
    if (o instanceof Number n) {
      return n.longValue();
    }
    return o;
  }

  /** The SQL of every fact one column needs. */
  private static List<Fact> facts(PgColumn column, Set<EvidenceNeed> needs, int major,
      Map<String, Object> constants) {
    String col = PgNames.quote(column.name());
    PgType type = withoutDomains(column.type());
    boolean array = type.array();
    PgType element = array ? withoutDomains(ArrayRule.element(type)) : type;
    String v = array ? ELEMENT : col;
    List<Fact> out = new ArrayList<>();
    out.add(new Fact(ColumnEvidence.NON_NULL, false, "count(" + col + ")"));
    List<Fact> values = new ArrayList<>();
    for (EvidenceNeed need : needs) {
      switch (need) {
        case NUMERIC_FIT -> {
          String x = "(" + v + ")::numeric";
          // PostgreSQL 14 added numeric ±Infinity; before it the literal would not even parse.
          String finite = major >= 14 ? x + " NOT IN ('NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric)"
              : x + " <> 'NaN'::numeric";
          // Significant fractional digits, trailing zeros removed: min_scale (PostgreSQL 13+), else the text.
          String fraction = major >= 13 ? "min_scale(" + x + ")"
              : "coalesce(length(substring(" + x + "::text from '\\.([0-9]*[1-9])')), 0)";
          values.add(new Fact(ColumnEvidence.NUMERIC_NAN, true, x + " = 'NaN'::numeric"));
          if (major >= 14) {
            values.add(new Fact(ColumnEvidence.NUMERIC_INFINITY, true,
                x + " IN ('Infinity'::numeric, '-Infinity'::numeric)"));
          } else {
            constants.put(ColumnEvidence.NUMERIC_INFINITY, 0L);
          }
          values.add(new Fact(ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, true,
              finite + " AND abs(" + x + ") >= 1e" + GOOGLE_SQL.numericIntegerDigits()));
          values.add(new Fact(ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS, true,
              finite + " AND " + fraction + " > " + GOOGLE_SQL.numericScale()));
          values.add(new Fact(ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, false, "CASE WHEN " + finite
              + " THEN CASE WHEN abs(" + x + ") < 1 THEN 0 ELSE length(trunc(abs(" + x + "))::text) END END"));
          values.add(new Fact(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, false,
              "CASE WHEN " + finite + " THEN " + fraction + " END"));
        }
        case TEMPORAL_RANGE -> {
          // timestamptz is compared in UTC, whatever the session's TimeZone.
          String x = isNamed(element, "timestamptz", "timestamp with time zone")
              ? "((" + v + ") AT TIME ZONE 'UTC')" : "(" + v + ")";
          values.add(new Fact(ColumnEvidence.TEMPORAL_INFINITY, true, "NOT isfinite(" + v + ")"));
          values.add(new Fact(ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, true,
              "isfinite(" + v + ") AND extract(year FROM " + x + ") < 1"));
          values.add(new Fact(ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, true,
              "isfinite(" + v + ") AND extract(year FROM " + x + ") > 9999"));
        }
        case JSON_DEPTH -> {
          String j = "(" + v + ")::jsonb";
          values.add(new Fact(ColumnEvidence.JSON_TOO_DEEP, true, "jsonb_path_exists(" + j
              + ", 'strict $.**{80 to last} ? (@.type() == \"object\" || @.type() == \"array\")')"));
          values.add(new Fact(ColumnEvidence.JSON_OVER_SIZE, true,
              "octet_length(" + j + "::text) > " + GOOGLE_SQL.maxCellBytes()));
          values.add(new Fact(ColumnEvidence.JSON_INEXACT_NUMBERS, true, "EXISTS (SELECT 1 FROM jsonb_path_query("
              + j + ", 'strict $.** ? (@.type() == \"number\")') AS p2s_n(j) WHERE NOT "
              + exactInSpannerJson("(p2s_n.j)::numeric") + ")"));
        }
        case TEXT_SIZE -> {
          if (!array) {
            String size = isNamed(element, "bit", "varbit", "bit varying") ? "length(" + col + ")"
                : isNamed(element, "text", "varchar", "character varying", "bpchar", "character", "bytea", "citext")
                    ? "octet_length(" + col + ")" : "octet_length((" + col + ")::text)";
            out.add(new Fact(ColumnEvidence.MAX_OCTETS, false, "max(" + size + ")"));
            out.add(new Fact(ColumnEvidence.OVER_CELL_LIMIT, false,
                "count(*) FILTER (WHERE " + size + " > " + GOOGLE_SQL.maxCellBytes() + ")"));
            if (isNamed(element, "text", "varchar", "character varying", "bpchar", "character", "citext")) {
              out.add(new Fact(ColumnEvidence.OVER_STRING_CHARS, false,
                  "count(*) FILTER (WHERE char_length(" + col + ") > " + GOOGLE_SQL.maxStringLength() + ")"));
            }
          }
        }
        case ARRAY_DIMENSIONS -> {
          if (array) {
            out.add(new Fact(ColumnEvidence.ARRAY_MULTIDIMENSIONAL, false,
                "count(*) FILTER (WHERE array_ndims(" + col + ") > 1)"));
            out.add(new Fact(ColumnEvidence.ARRAY_LOWER_BOUND_NOT_1, false,
                "count(*) FILTER (WHERE array_lower(" + col + ", 1) <> 1)"));
          }
        }
        case NONE -> { }
      }
    }
    for (Fact f : values) {
      out.add(new Fact(f.name(), false, aggregate(f, col, array)));
    }
    return out;
  }

  /**
   * Scalar: {@code count(*) FILTER (WHERE cond)} or {@code max(expr)}. Array: the same over the elements of each
   * row in a subquery, summed (counts) or maxed over the rows.
   */
  private static String aggregate(Fact f, String col, boolean array) {
    if (!array) {
      return f.count() ? "count(*) FILTER (WHERE " + f.sql() + ")" : "max(" + f.sql() + ")";
    }
    String elements = " FROM unnest(" + col + ") AS p2s_e(p2s_v)";
    return f.count()
        ? "coalesce(sum((SELECT count(*)" + elements + " WHERE " + f.sql() + ")), 0)"
        : "max((SELECT max(" + f.sql() + ")" + elements + "))";
  }

  /**
   * True when Spanner JSON keeps the number exactly: an integer in INT64 or UINT64 range, or a value that
   * round-trips through a double. The CASE order matters: the double cast must not see a value it would reject.
   * The shortest round-trip text of a double needs extra_float_digits > 0 (the JDBC driver sets 3); with a
   * lower setting more numbers are reported, never fewer.
   */
  private static String exactInSpannerJson(String n) {
    return "(CASE WHEN " + n + " = trunc(" + n + ") AND " + n
        + " BETWEEN -9223372036854775808 AND 18446744073709551615 THEN true"
        + " WHEN " + n + " = 0 THEN true"
        + " WHEN abs(" + n + ") > 1e308 OR abs(" + n + ") < 1e-307 THEN false"
        + " ELSE " + n + " = ((" + n + ")::float8)::text::numeric END)";
  }

  private static PgType withoutDomains(PgType type) {
    PgType t = type;
    while (t.kind() == PgType.Kind.DOMAIN && !t.array()) {
      t = t.domainBase();
    }
    return t;
  }

  private static boolean isNamed(PgType type, String... names) {
    String key = TypeMapper.key(type.name());
    for (String n : names) {
      if (n.equals(key)) {
        return true;
      }
    }
    return false;
  }
}
