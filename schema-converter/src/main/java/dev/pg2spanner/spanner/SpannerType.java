package dev.pg2spanner.spanner;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Spanner column type. The record is the same for both dialects; {@link #ddl(SpannerDialect)} spells it as that
 * dialect's DDL writes it ({@code STRING(36)} in GoogleSQL, {@code varchar(36)} in the PostgreSQL dialect) and
 * {@link #parse(SpannerDialect, String)} reads either spelling back.
 *
 * @param base the type
 * @param length for STRING and BYTES: the maximum length (characters / bytes), or null for MAX; else null
 * @param element for ARRAY: the element type (never itself an ARRAY); else null
 */
public record SpannerType(Base base, Integer length, SpannerType element) {

  public enum Base { BOOL, INT64, FLOAT32, FLOAT64, NUMERIC, STRING, BYTES, DATE, TIMESTAMP, JSON, ARRAY }

  private static final Pattern SIZED = Pattern.compile("^(STRING|BYTES)\\s*\\(\\s*(MAX|\\d+)\\s*\\)$");
  private static final Pattern ARRAY = Pattern.compile("^ARRAY\\s*<\\s*(.+?)\\s*>$");

  public static final SpannerType BOOL = new SpannerType(Base.BOOL, null, null);
  public static final SpannerType INT64 = new SpannerType(Base.INT64, null, null);
  public static final SpannerType FLOAT32 = new SpannerType(Base.FLOAT32, null, null);
  public static final SpannerType FLOAT64 = new SpannerType(Base.FLOAT64, null, null);
  public static final SpannerType NUMERIC = new SpannerType(Base.NUMERIC, null, null);
  public static final SpannerType DATE = new SpannerType(Base.DATE, null, null);
  public static final SpannerType TIMESTAMP = new SpannerType(Base.TIMESTAMP, null, null);
  public static final SpannerType JSON = new SpannerType(Base.JSON, null, null);
  public static final SpannerType STRING_MAX = new SpannerType(Base.STRING, null, null);
  public static final SpannerType BYTES_MAX = new SpannerType(Base.BYTES, null, null);

  public SpannerType {
    Objects.requireNonNull(base, "base");
    boolean sized = base == Base.STRING || base == Base.BYTES;
    if (length != null && !sized) {
      throw new IllegalArgumentException(base + " takes no length");
    }
    if (length != null) {
      SpannerLimits limits = SpannerLimits.GOOGLE_STANDARD_SQL;
      int max = base == Base.STRING ? limits.maxStringLength() : limits.maxCellBytes();
      if (length < 1 || length > max) {
        throw new IllegalArgumentException(base + "(" + length + ") is outside 1.." + max + " (use MAX)");
      }
    }
    if ((base == Base.ARRAY) != (element != null)) {
      throw new IllegalArgumentException("only ARRAY has an element type");
    }
    if (element != null && element.base() == Base.ARRAY) {
      throw new IllegalArgumentException("Spanner arrays cannot nest: ARRAY<ARRAY<...>>");
    }
  }

  public static SpannerType string(Integer length) {
    return new SpannerType(Base.STRING, length, null);
  }

  public static SpannerType arrayOf(SpannerType element) {
    return new SpannerType(Base.ARRAY, null, element);
  }

  public boolean isArray() {
    return base == Base.ARRAY;
  }

  /** The DDL text: {@code INT64}, {@code STRING(MAX)}, {@code ARRAY<STRING(36)>}. */
  public String ddl() {
    return switch (base) {
      case STRING, BYTES -> base + "(" + (length == null ? "MAX" : length.toString()) + ")";
      case ARRAY -> "ARRAY<" + element.ddl() + ">";
      default -> base.name();
    };
  }

  /**
   * The DDL text in a dialect. PostgreSQL dialect ("PostgreSQL data types"): {@code boolean}, {@code bigint},
   * {@code real}, {@code double precision}, {@code numeric}, {@code varchar(n)} / {@code varchar}, {@code bytea}
   * (which takes no length: a BYTES(n) bound is not expressible and the 10 MiB cell limit remains), {@code date},
   * {@code timestamptz}, {@code jsonb}, and one-dimensional arrays {@code T[]}.
   */
  public String ddl(SpannerDialect dialect) {
    if (!dialect.isPostgres()) {
      return ddl();
    }
    return switch (base) {
      case BOOL -> "boolean";
      case INT64 -> "bigint";
      case FLOAT32 -> "real";
      case FLOAT64 -> "double precision";
      case NUMERIC -> "numeric";
      case STRING -> length == null ? "varchar" : "varchar(" + length + ")";
      case BYTES -> "bytea";
      case DATE -> "date";
      case TIMESTAMP -> "timestamptz";
      case JSON -> "jsonb";
      case ARRAY -> element.ddl(dialect) + "[]";
    };
  }

  private static final Pattern PG_VARCHAR = Pattern.compile(
      "^(?:varchar|character varying)(?:\\s*\\(\\s*(\\d+)\\s*\\))?$");

  /**
   * Parses a dialect's DDL type text, case-insensitively; the PostgreSQL dialect accepts the aliases its DDL does
   * ({@code int8}, {@code bool}, {@code float8}, {@code float4}, {@code text}, {@code character varying},
   * {@code timestamp with time zone}, {@code decimal}).
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  public static SpannerType parse(SpannerDialect dialect, String text) {
    if (!dialect.isPostgres()) {
      return parse(text);
    }
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("a Spanner type is required");
    }
    String t = text.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
    if (t.endsWith("[]")) {
      SpannerType element = parse(dialect, t.substring(0, t.length() - 2));
      if (element.isArray()) {
        throw new IllegalArgumentException("'" + text + "': Spanner arrays have one dimension");
      }
      return arrayOf(element);
    }
    Matcher varchar = PG_VARCHAR.matcher(t);
    if (varchar.matches()) {
      return string(varchar.group(1) == null ? null : Integer.valueOf(varchar.group(1)));
    }
    return switch (t) {
      case "boolean", "bool" -> BOOL;
      case "bigint", "int8" -> INT64;
      case "real", "float4" -> FLOAT32;
      case "double precision", "float8" -> FLOAT64;
      case "numeric", "decimal" -> NUMERIC;
      case "text" -> STRING_MAX;
      case "bytea" -> BYTES_MAX;
      case "date" -> DATE;
      case "timestamptz", "timestamp with time zone" -> TIMESTAMP;
      case "jsonb" -> JSON;
      default -> throw new IllegalArgumentException("'" + text + "' is not a Spanner PostgreSQL-dialect column type "
          + "(boolean, bigint, real, double precision, numeric, varchar(n) or varchar, text, bytea, date, "
          + "timestamptz, jsonb, or one of them with [])");
    };
  }

  /**
   * Parses GoogleSQL DDL type text, case-insensitively.
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  public static SpannerType parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("a Spanner type is required");
    }
    String t = text.trim().toUpperCase(Locale.ROOT);
    Matcher array = ARRAY.matcher(t);
    if (array.matches()) {
      return arrayOf(parse(array.group(1)));
    }
    Matcher sized = SIZED.matcher(t);
    if (sized.matches()) {
      Integer length = sized.group(2).equals("MAX") ? null : Integer.valueOf(sized.group(2));
      return new SpannerType(Base.valueOf(sized.group(1)), length, null);
    }
    return switch (t) {
      case "BOOL" -> BOOL;
      case "INT64" -> INT64;
      case "FLOAT32" -> FLOAT32;
      case "FLOAT64" -> FLOAT64;
      case "NUMERIC" -> NUMERIC;
      case "DATE" -> DATE;
      case "TIMESTAMP" -> TIMESTAMP;
      case "JSON" -> JSON;
      default -> throw new IllegalArgumentException("'" + text + "' is not a Spanner GoogleSQL column type "
          + "(BOOL, INT64, FLOAT32, FLOAT64, NUMERIC, STRING(n|MAX), BYTES(n|MAX), DATE, TIMESTAMP, JSON, ARRAY<T>)");
    };
  }

  @Override
  public String toString() {
    return ddl();
  }
}
