package dev.pg2spanner.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * The content hash of a table planned without a primary key (issue 30): an added INT64 column holding a 64-bit hash
 * of the row's values in {@link #columns}, and a secondary index on it, so that a live update or delete — whose old
 * tuple (REPLICA IDENTITY FULL) carries the whole row — finds its Spanner row by one index lookup instead of a scan
 * of the table. The loader and the live applier write it for every whole row; a row written partially (an unchanged
 * TOASTed value not known) gets NULL, and is then found by a scan. After cutover neither is needed: the application's
 * own writes leave the column NULL, and both may be dropped.
 *
 * @param column the added column (SYNTHETIC, INT64 / bigint, nullable), named like the synthetic key column so it
 *     collides with no source column
 * @param index the Spanner index on {@code column}, as in {@link IndexPlan#target()}
 * @param columns the target columns hashed, in order: the table's loaded columns when it was planned. Columns added
 *     later (a followed schema change) are not hashed, so the hash of a row stays what the load wrote
 */
@JsonPropertyOrder({"column", "index", "columns"})
public record RowHash(String column, String index, List<String> columns) {

  /** The name the planner asks for (made collision-free per table, as {@code row_id} is). */
  public static final String DESIRED_COLUMN = "pg2spanner_row_hash";

  @JsonCreator
  public RowHash {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(index, "index");
    columns = columns == null ? List.of() : List.copyOf(columns);
  }
}
