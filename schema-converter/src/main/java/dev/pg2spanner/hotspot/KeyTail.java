package dev.pg2spanner.hotspot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The end of one index's key space: its last rows read in <em>key</em> order, largest key first, each with the age of
 * the transaction that wrote it ({@code age(xmin)}: 0 for the newest transaction, larger for older ones). Where new
 * rows land when a key grows, this is the newest data; read through the index it costs one short index scan however
 * large the table is.
 *
 * <p>It is the second view of a key besides the sample in physical order ({@link KeySample}): a natural key loaded
 * once in sorted order is stored in order too, but it was written by one transaction (or a few large ones), while
 * keys that an application makes as rows arrive were written by many transactions, in key order.
 *
 * <p>Values are normalised like {@link KeySample}'s.
 *
 * @param orderedBy the source columns the rows are ordered by (descending): the primary key, or the column that
 *     leads a secondary index
 * @param rows one list per row, values in {@code orderedBy} order, largest key first
 * @param transactionAges per row, {@code age(xmin)} of the row version; null where PostgreSQL gave none
 * @param readAt when the server read the rows (what "now" is for keys that encode a time), or null for no rows
 */
public record KeyTail(List<String> orderedBy, List<List<Object>> rows, List<Long> transactionAges, Instant readAt) {

  public KeyTail {
    orderedBy = List.copyOf(orderedBy);
    if (orderedBy.isEmpty()) {
      throw new IllegalArgumentException("a key tail is ordered by at least one column");
    }
    Objects.requireNonNull(rows, "rows");
    Objects.requireNonNull(transactionAges, "transactionAges");
    if (rows.size() != transactionAges.size()) {
      throw new IllegalArgumentException(rows.size() + " tail rows but " + transactionAges.size()
          + " transaction ages");
    }
    List<List<Object>> copy = new ArrayList<>(rows.size());
    for (List<Object> row : rows) {
      if (row.size() != orderedBy.size()) {
        throw new IllegalArgumentException("a tail row has " + row.size() + " values for " + orderedBy.size()
            + " columns");
      }
      copy.add(Collections.unmodifiableList(new ArrayList<>(row)));
    }
    rows = Collections.unmodifiableList(copy);
    transactionAges = Collections.unmodifiableList(new ArrayList<>(transactionAges));
  }

  /**
   * One row of the tail as one column sees it.
   *
   * @param value the column's value (never null)
   * @param transactionAge the age of the transaction that wrote the row, or null
   * @param run rows with the same run number share the values of the columns before this one in {@link #orderedBy},
   *     so within a run the rows are in this column's descending order
   */
  public record Entry(Object value, Long transactionAge, int run) {}

  /**
   * The rows of {@code column}, largest key first, with their transaction ages; empty when the tail is not ordered by
   * it. Rows whose value is null are left out.
   */
  public List<Entry> entries(String column) {
    int at = orderedBy.indexOf(column);
    if (at < 0) {
      return List.of();
    }
    List<Entry> out = new ArrayList<>();
    int run = 0;
    List<Object> previousPrefix = null;
    for (int i = 0; i < rows.size(); i++) {
      List<Object> row = rows.get(i);
      List<Object> prefix = row.subList(0, at);
      if (previousPrefix != null && !previousPrefix.equals(prefix)) {
        run++;
      }
      previousPrefix = prefix;
      if (row.get(at) != null) {
        out.add(new Entry(row.get(at), transactionAges.get(i), run));
      }
    }
    return out;
  }
}
