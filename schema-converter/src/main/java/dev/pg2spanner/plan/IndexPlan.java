package dev.pg2spanner.plan;

import java.util.List;
import java.util.Objects;

/**
 * A secondary index, created after the load.
 *
 * @param source the source index (or unique constraint) name, or null for an index the plan adds
 * @param target the Spanner index name
 * @param columns key parts, target column names
 * @param unique UNIQUE
 * @param nullFiltered NULL_FILTERED (rows with a NULL key part are not indexed)
 * @param storing STORING columns (from INCLUDE)
 * @param interleaveIn the target table to interleave the index in, or null
 */
public record IndexPlan(String source, String target, List<KeyPart> columns, boolean unique, boolean nullFiltered,
    List<String> storing, String interleaveIn) {

  public IndexPlan {
    Objects.requireNonNull(target, "target");
    columns = List.copyOf(columns);
    storing = storing == null ? List.of() : List.copyOf(storing);
  }
}
