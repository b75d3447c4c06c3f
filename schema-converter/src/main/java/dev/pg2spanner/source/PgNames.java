package dev.pg2spanner.source;

/** The one place PostgreSQL identifiers and literals are quoted for SQL the tool sends to the source. */
public final class PgNames {

  private PgNames() {}

  /** {@code "name"}, with embedded double quotes doubled; always quoted, so case and reserved words survive. */
  public static String quote(String identifier) {
    if (identifier == null || identifier.isEmpty()) {
      throw new IllegalArgumentException("an identifier must not be empty");
    }
    if (identifier.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("an identifier cannot contain a NUL character");
    }
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /** {@code "schema"."name"}. */
  public static String qualified(String schema, String name) {
    return quote(schema) + "." + quote(name);
  }

  /** A string literal, {@code 'it''s'}, for the rare catalog function that takes a name as text. */
  public static String literal(String value) {
    if (value.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a literal cannot contain a NUL character");
    }
    return "'" + value.replace("'", "''") + "'";
  }
}
