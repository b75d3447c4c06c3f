package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which part of the database {@link CatalogReader} reads.
 *
 * @param schemas the schemas to read, exactly as named in the catalog (case-sensitive); empty means every
 *     non-system schema. Never null.
 * @param exclude tables (and sequences, views and the other listed objects) whose unquoted "schema.name" this
 *     pattern finds ({@link java.util.regex.Matcher#find()}) are left out; null leaves nothing out
 */
public record CatalogFilter(List<String> schemas, Pattern exclude) {

  public CatalogFilter {
    schemas = List.copyOf(Objects.requireNonNull(schemas, "schemas"));
  }

  /** Every non-system schema, nothing excluded. */
  public static CatalogFilter all() {
    return new CatalogFilter(List.of(), null);
  }

  /** True when the object "schema.name" is kept (not matched by {@link #exclude}). */
  public boolean keeps(String schema, String name) {
    return exclude == null || !exclude.matcher(schema + "." + name).find();
  }
}
