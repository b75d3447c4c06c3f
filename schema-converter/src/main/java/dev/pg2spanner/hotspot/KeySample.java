package dev.pg2spanner.hotspot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Values of some columns of a table, in arrival order: rows are read in physical order (ctid), which follows
 * insertion order closely for append-mostly tables, so it shows whether new values keep rising.
 *
 * <p>Values are normalised for ordering: integers as {@link Long}, other numbers as {@link java.math.BigDecimal},
 * dates and timestamps as {@link Double} epoch seconds, everything else as {@link String}; nulls are kept.
 *
 * @param table the source table, "schema.name"
 * @param columns the sampled source columns
 * @param rows one list per row, values in {@code columns} order (nulls allowed)
 * @param complete true when every row was read (no sampling)
 */
public record KeySample(String table, List<String> columns, List<List<Object>> rows, boolean complete) {

  public KeySample {
    Objects.requireNonNull(table, "table");
    columns = List.copyOf(columns);
    List<List<Object>> copy = new ArrayList<>(rows.size());
    for (List<Object> row : rows) {
      if (row.size() != columns.size()) {
        throw new IllegalArgumentException("a sampled row has " + row.size() + " values for " + columns.size()
            + " columns");
      }
      copy.add(Collections.unmodifiableList(new ArrayList<>(row)));
    }
    rows = Collections.unmodifiableList(copy);
  }

  public static KeySample empty(String table) {
    return new KeySample(table, List.of(), List.of(), false);
  }

  /** The non-null values of one column in arrival order; empty when the column was not sampled. */
  public List<Object> values(String column) {
    int i = columns.indexOf(column);
    if (i < 0) {
      return List.of();
    }
    List<Object> values = new ArrayList<>(rows.size());
    for (List<Object> row : rows) {
      if (row.get(i) != null) {
        values.add(row.get(i));
      }
    }
    return values;
  }
}
