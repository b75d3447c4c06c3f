package dev.pg2spanner.plan;

import java.util.Objects;

/**
 * {@code INTERLEAVE IN PARENT parent ON DELETE ...}.
 *
 * @param parent the parent's target table name (qualified with its named schema, if any: "schema.table")
 * @param onDelete CASCADE or NO_ACTION, following the foreign key it replaces
 * @param foreignKey the source foreign key this interleave stands for (not created separately)
 */
public record Interleave(String parent, OnDelete onDelete, String foreignKey) {

  public enum OnDelete { CASCADE, NO_ACTION }

  public Interleave {
    Objects.requireNonNull(parent, "parent");
    Objects.requireNonNull(onDelete, "onDelete");
  }
}
