package dev.pg2spanner.spanner;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The one place Spanner identifiers are quoted for DDL and SQL the tool writes. A name is back-quoted when it is
 * a GoogleSQL reserved keyword or is not a plain identifier; otherwise it is written as is, for readable DDL.
 */
public final class SpannerNames {

  /** GoogleSQL reserved keywords (they must be back-quoted when used as names). */
  public static final Set<String> RESERVED = Set.of(
      "ALL", "AND", "ANY", "ARRAY", "AS", "ASC", "ASSERT_ROWS_MODIFIED", "AT", "BETWEEN", "BY", "CASE", "CAST",
      "COLLATE", "CONTAINS", "CREATE", "CROSS", "CUBE", "CURRENT", "DEFAULT", "DEFINE", "DESC", "DISTINCT", "ELSE",
      "END", "ENUM", "ESCAPE", "EXCEPT", "EXCLUDE", "EXISTS", "EXTRACT", "FALSE", "FETCH", "FOLLOWING", "FOR",
      "FROM", "FULL", "GROUP", "GROUPING", "GROUPS", "HASH", "HAVING", "IF", "IGNORE", "IN", "INNER", "INTERSECT",
      "INTERVAL", "INTO", "IS", "JOIN", "LATERAL", "LEFT", "LIKE", "LIMIT", "LOOKUP", "MERGE", "NATURAL", "NEW", "NO",
      "NOT", "NULL", "NULLS", "OF", "ON", "OR", "ORDER", "OUTER", "OVER", "PARTITION", "PRECEDING", "PROTO", "RANGE",
      "RECURSIVE", "RESPECT", "RIGHT", "ROLLUP", "ROWS", "SELECT", "SET", "SOME", "STRUCT", "TABLESAMPLE", "THEN",
      "TO", "TREAT", "TRUE", "UNBOUNDED", "UNION", "UNNEST", "USING", "WHEN", "WHERE", "WINDOW", "WITH", "WITHIN");

  /** A legal Spanner identifier: a letter, then letters, digits and underscores; at most 128 characters. */
  public static final Pattern IDENTIFIER = Pattern.compile("^[A-Za-z][A-Za-z0-9_]{0,"
      + (SpannerLimits.GOOGLE_STANDARD_SQL.maxIdentifierLength() - 1) + "}$");

  private SpannerNames() {}

  public static boolean isReserved(String name) {
    return RESERVED.contains(name.toUpperCase(Locale.ROOT));
  }

  /** {@code name}, or {@code `name`} when reserved or not a plain identifier. */
  public static String quote(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a Spanner identifier must not be empty");
    }
    if (name.indexOf('`') >= 0) {
      throw new IllegalArgumentException("a Spanner identifier cannot contain a back-quote: " + name);
    }
    return IDENTIFIER.matcher(name).matches() && !isReserved(name) ? name : "`" + name + "`";
  }

  /**
   * A table name that may live in a named schema: {@code schema.table}, each part quoted as needed; the
   * default schema is written as no prefix.
   *
   * @param schema the named schema, or null for the default schema
   */
  public static String qualified(String schema, String name) {
    return schema == null ? quote(name) : quote(schema) + "." + quote(name);
  }
}
