package dev.pg2spanner.hotspot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
 * @param tails the ends of the primary key and of the indexes that lead with a sampled column, read in key order
 */
public record KeySample(String table, List<String> columns, List<List<Object>> rows, boolean complete,
    List<KeyTail> tails) {

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
    tails = List.copyOf(tails);
  }

  /** A sample in physical order only, without key-order tails. */
  public KeySample(String table, List<String> columns, List<List<Object>> rows, boolean complete) {
    this(table, columns, rows, complete, List.of());
  }

  public static KeySample empty(String table) {
    return new KeySample(table, List.of(), List.of(), false);
  }

  /**
   * The key-order tail that shows {@code column}'s newest values: the one it leads if any, else the primary key's
   * (where it follows other key columns); empty when no tail is ordered by it.
   */
  public Optional<KeyTail> tail(String column) {
    return tails.stream().filter(t -> t.orderedBy().get(0).equals(column)).findFirst()
        .or(() -> tails.stream().filter(t -> t.orderedBy().contains(column)).findFirst());
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
