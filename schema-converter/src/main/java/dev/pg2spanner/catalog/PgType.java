package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A column's type as PostgreSQL records it.
 *
 * @param schema the type's schema ("pg_catalog" for built-ins)
 * @param name the element type's internal name ({@code typname}): "int4", "numeric", "varchar", "bpchar",
 *     "timestamptz", "mpaa_rating", ... For an array column this is the element type (never "_int4")
 * @param display {@code format_type(atttypid, atttypmod)}: "integer", "numeric(12,2)", "text[]", ...
 * @param length for varchar(n), char(n), bit(n), varbit(n): n; else null
 * @param precision numeric(p,s): p; time/timestamp/interval(p): p; else null
 * @param scale numeric(p,s): s; else null
 * @param array true for an array column
 * @param declaredDimensions {@code attndims}: dimensions written in the DDL (PostgreSQL does not enforce it; 0
 *     when unknown)
 * @param kind what sort of type the element is
 * @param domainBase for a domain, the type it is based on (itself possibly parameterised); else null
 * @param domainChecks for a domain, its CHECK expressions with VALUE as the placeholder; else empty
 * @param domainNotNull for a domain, whether it is declared NOT NULL
 * @param enumLabels for an enum, its labels in sort order; else empty
 */
public record PgType(
    String schema,
    String name,
    String display,
    Integer length,
    Integer precision,
    Integer scale,
    boolean array,
    int declaredDimensions,
    Kind kind,
    PgType domainBase,
    List<String> domainChecks,
    boolean domainNotNull,
    List<String> enumLabels) {

  public enum Kind { BASE, ENUM, DOMAIN, COMPOSITE, RANGE, MULTIRANGE, PSEUDO, OTHER }

  public PgType {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(display, "display");
    Objects.requireNonNull(kind, "kind");
    domainChecks = List.copyOf(domainChecks);
    enumLabels = List.copyOf(enumLabels);
    if (kind == Kind.DOMAIN && domainBase == null) {
      throw new IllegalArgumentException("a domain type needs its base type: " + display);
    }
  }

  /** A built-in scalar type with no modifiers, e.g. {@code PgType.builtin("int8", "bigint")}. */
  public static PgType builtin(String name, String display) {
    return new PgType("pg_catalog", name, display, null, null, null, false, 0, Kind.BASE, null, List.of(), false,
        List.of());
  }

  /** The same type as an array ({@code display} gains "[]"). */
  public PgType asArray() {
    return new PgType(schema, name, display + "[]", length, precision, scale, true, 1, kind, domainBase,
        domainChecks, domainNotNull, enumLabels);
  }

  public boolean isBuiltin() {
    return "pg_catalog".equals(schema);
  }
}
