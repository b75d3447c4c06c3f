package dev.pg2spanner.spanner;

/**
 * The dialect of a Spanner database, GoogleSQL or PostgreSQL: a parameter of the planner, the DDL printer, the value
 * codecs and the live path, decided once per plan ({@code target.dialect}). How each dialect spells types
 * ({@link SpannerType#ddl(SpannerDialect)}), names ({@link SpannerNames#quote(SpannerDialect, String)}) and the tool's
 * expressions ({@code expression/SpannerExpression}) lives with those; its limits are one member, {@link #limits()}.
 */
public enum SpannerDialect {

  /** A GoogleSQL-dialect database: the default dialect pg2spanner writes. */
  GOOGLE_STANDARD_SQL(SpannerLimits.GOOGLE_STANDARD_SQL),

  /** A PostgreSQL-dialect database. */
  POSTGRESQL(SpannerLimits.POSTGRESQL);

  private final SpannerLimits limits;

  SpannerDialect(SpannerLimits limits) {
    this.limits = limits;
  }

  /** Spanner's limits in this dialect: every check against a Spanner limit asks them. */
  public SpannerLimits limits() {
    return limits;
  }

  /**
   * The dialect a plan names in {@code target.dialect} ("GOOGLE_STANDARD_SQL", "POSTGRESQL"), or a user's spelling
   * of it on the command line ("googlesql", "postgresql", "pg"), case-insensitively.
   *
   * @throws IllegalArgumentException naming the text and the accepted names
   */
  public static SpannerDialect named(String name) {
    String n = name == null ? "" : name.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    return switch (n) {
      case "GOOGLE_STANDARD_SQL", "GOOGLESQL", "GOOGLE_SQL" -> GOOGLE_STANDARD_SQL;
      case "POSTGRESQL", "PG", "POSTGRES" -> POSTGRESQL;
      default -> throw new IllegalArgumentException("'" + name + "' is not a Spanner dialect; use googlesql or "
          + "postgresql");
    };
  }

  /** True for the PostgreSQL dialect. */
  public boolean isPostgres() {
    return this == POSTGRESQL;
  }

  /**
   * Whether a column of this type can be part of a primary key, a secondary index key or a foreign key. GoogleSQL:
   * every type but ARRAY and JSON ("Data types": "can't be used as keys"); PostgreSQL dialect: also not
   * {@code numeric} or {@code float4} ("PostgreSQL data types": "All types except NUMERIC, FLOAT4, and JSONB are
   * valid as primary keys, foreign keys, and secondary indexes").
   */
  public boolean canBeKey(SpannerType type) {
    return switch (type.base()) {
      case ARRAY, JSON -> false;
      case NUMERIC, FLOAT32 -> this == GOOGLE_STANDARD_SQL;
      default -> true;
    };
  }

  /**
   * The dialect's name as the plan file ({@code target.dialect}) and Spanner write it, e.g.
   * {@code GOOGLE_STANDARD_SQL} (the client's {@code Dialect} enum and the admin API use the same names).
   */
  public String dialect() {
    return name();
  }
}
