package dev.pg2spanner.spanner;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The one place Spanner identifiers are quoted for DDL and SQL the tool writes. GoogleSQL: a name is back-quoted
 * when it is a reserved keyword or is not a plain identifier. PostgreSQL dialect: a name is double-quoted unless it
 * is a plain lower-case identifier and not a keyword, so that names keep PostgreSQL's case rules (an unquoted
 * {@code Name} would fold to {@code name}) and the application's queries still find them. Otherwise names are
 * written as they are, for readable DDL.
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

  /**
   * PostgreSQL's reserved key words, and those that are reserved except as a function or type name (PostgreSQL
   * documentation, appendix "SQL Key Words"), plus {@code interleave}, a word of Spanner's PostgreSQL DDL; quoting
   * one more word than needed is harmless, a lower-case quoted name is the same name unquoted.
   */
  public static final Set<String> PG_RESERVED = Set.of(
      "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "binary",
      "both", "case", "cast", "check", "collate", "collation", "column", "concurrently", "constraint", "create",
      "cross", "current_catalog", "current_date", "current_role", "current_schema", "current_time",
      "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end",
      "except", "false", "fetch", "for", "foreign", "freeze", "from", "full", "grant", "group", "having", "ilike",
      "in", "initially", "inner", "intersect", "interleave", "into", "is", "isnull", "join", "lateral", "leading",
      "left", "like", "limit", "localtime", "localtimestamp", "natural", "not", "notnull", "null", "offset", "on",
      "only", "or", "order", "outer", "overlaps", "placing", "primary", "references", "returning", "right",
      "select", "session_user", "similar", "some", "symmetric", "system_user", "table", "tablesample", "then",
      "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "verbose", "when", "where",
      "window", "with");

  private static final Pattern PG_PLAIN = Pattern.compile("^[a-z_][a-z0-9_]*$");

  private SpannerNames() {}

  /** {@link #quote(String)} in GoogleSQL; in the PostgreSQL dialect {@code name} or {@code "name"}. */
  public static String quote(SpannerDialect dialect, String name) {
    if (!dialect.isPostgres()) {
      return quote(name);
    }
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a Spanner identifier must not be empty");
    }
    return PG_PLAIN.matcher(name).matches() && !PG_RESERVED.contains(name) ? name
        : "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** {@link #qualified(String, String)} in a dialect. */
  public static String qualified(SpannerDialect dialect, String schema, String name) {
    return schema == null ? quote(dialect, name) : quote(dialect, schema) + "." + quote(dialect, name);
  }

  /** A plan name "schema.name" or "name", quoted part by part in a dialect. */
  public static String dotted(SpannerDialect dialect, String dotted) {
    int dot = dotted.indexOf('.');
    return dot < 0 ? quote(dialect, dotted)
        : qualified(dialect, dotted.substring(0, dot), dotted.substring(dot + 1));
  }

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
