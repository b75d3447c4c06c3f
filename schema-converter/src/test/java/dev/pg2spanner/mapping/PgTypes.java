package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.catalog.PgType.Kind;
import java.util.List;

/** Hand-built catalog types for the mapping tests (the catalog reader is tested on its own). */
final class PgTypes {

  private PgTypes() {}

  static PgType builtin(String name) {
    return PgType.builtin(name, name);
  }

  static PgType numeric(Integer precision, Integer scale) {
    String display = precision == null ? "numeric"
        : "numeric(" + precision + (scale == null ? "" : "," + scale) + ")";
    return new PgType("pg_catalog", "numeric", display, null, precision, scale, false, 0, Kind.BASE, null,
        List.of(), false, List.of());
  }

  static PgType sized(String name, String display, Integer length) {
    return new PgType("pg_catalog", name, display, length, null, null, false, 0, Kind.BASE, null, List.of(),
        false, List.of());
  }

  static PgType enumType(String name, String... labels) {
    return new PgType("public", name, name, null, null, null, false, 0, Kind.ENUM, null, List.of(), false,
        List.of(labels));
  }

  static PgType domain(String name, PgType base, boolean notNull, String... checks) {
    return new PgType("public", name, name, null, null, null, false, 0, Kind.DOMAIN, base, List.of(checks),
        notNull, List.of());
  }

  static PgType of(String schema, String name, Kind kind) {
    return new PgType(schema, name, name, null, null, null, false, 0, kind, null, List.of(), false, List.of());
  }

  static PgType array(PgType element, int dimensions) {
    return new PgType(element.schema(), element.name(), element.display() + "[]".repeat(Math.max(1, dimensions)),
        element.length(), element.precision(), element.scale(), true, dimensions, element.kind(),
        element.domainBase(), element.domainChecks(), element.domainNotNull(), element.enumLabels());
  }
}
