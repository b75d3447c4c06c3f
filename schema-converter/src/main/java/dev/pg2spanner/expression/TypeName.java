package dev.pg2spanner.expression;

import java.util.List;
import java.util.Map;

/**
 * A type name as PostgreSQL prints it after {@code ::}: "text", "character varying", "numeric(10,2)",
 * "timestamp with time zone", "text[]", "public.mood".
 *
 * @param schema the schema when the name is qualified, else null
 * @param name the name, lower-cased unless quoted, multi-word names joined by one space
 * @param modifiers type modifiers, e.g. [10, 2] for numeric(10,2); empty when none
 * @param array true for an array type
 */
record TypeName(String schema, String name, List<Integer> modifiers, boolean array) {

  /** What a cast means to the translator. */
  enum Category { TEXT, BPCHAR, INTEGER, NUMERIC, FLOAT, BOOLEAN, DATE, TIMESTAMP, TIMESTAMPTZ, JSON, UUID, BYTEA,
    REGCLASS, OTHER }

  private static final Map<String, Category> BUILTIN = Map.ofEntries(
      Map.entry("text", Category.TEXT), Map.entry("character varying", Category.TEXT),
      Map.entry("varchar", Category.TEXT), Map.entry("name", Category.TEXT),
      Map.entry("bpchar", Category.BPCHAR), Map.entry("character", Category.BPCHAR), Map.entry("char", Category.BPCHAR),
      Map.entry("smallint", Category.INTEGER), Map.entry("integer", Category.INTEGER),
      Map.entry("bigint", Category.INTEGER), Map.entry("int2", Category.INTEGER), Map.entry("int4", Category.INTEGER),
      Map.entry("int8", Category.INTEGER), Map.entry("int", Category.INTEGER),
      Map.entry("numeric", Category.NUMERIC), Map.entry("decimal", Category.NUMERIC),
      Map.entry("real", Category.FLOAT), Map.entry("double precision", Category.FLOAT),
      Map.entry("float4", Category.FLOAT), Map.entry("float8", Category.FLOAT),
      Map.entry("boolean", Category.BOOLEAN), Map.entry("bool", Category.BOOLEAN),
      Map.entry("date", Category.DATE),
      Map.entry("timestamp without time zone", Category.TIMESTAMP), Map.entry("timestamp", Category.TIMESTAMP),
      Map.entry("timestamp with time zone", Category.TIMESTAMPTZ), Map.entry("timestamptz", Category.TIMESTAMPTZ),
      Map.entry("json", Category.JSON), Map.entry("jsonb", Category.JSON),
      Map.entry("uuid", Category.UUID), Map.entry("bytea", Category.BYTEA), Map.entry("regclass", Category.REGCLASS));

  TypeName {
    modifiers = List.copyOf(modifiers);
  }

  /** The category of the (element) type; OTHER for user types and built-ins the translator does not handle. */
  Category category() {
    if (schema != null && !schema.equals("pg_catalog")) {
      return Category.OTHER;
    }
    return BUILTIN.getOrDefault(name, Category.OTHER);
  }

  /** True when the type is the source column's own type (an enum or domain named in a default's cast). */
  boolean names(String typeName) {
    return typeName != null && name.equals(typeName);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    if (schema != null) {
      s.append(schema).append('.');
    }
    s.append(name);
    if (!modifiers.isEmpty()) {
      s.append('(').append(String.join(",", modifiers.stream().map(String::valueOf).toList())).append(')');
    }
    if (array) {
      s.append("[]");
    }
    return s.toString();
  }
}
