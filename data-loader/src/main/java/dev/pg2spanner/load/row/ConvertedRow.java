package dev.pg2spanner.load.row;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import java.util.Objects;

/**
 * One source row ready for Spanner: an insert-or-update of every loaded column (blind and idempotent: a retried or
 * resumed piece cannot duplicate rows), the row's key as printable text, its estimated size and its cell count.
 *
 * <p>The key's text is needed only when the row is dead-lettered, diffed or applied as a change, so a row the loader
 * converts keeps its key values and prints them on the first call of {@link #key()} (once per row rather than for
 * every row of the load).
 */
public final class ConvertedRow {

  private final Mutation mutation;
  private final long bytes;
  private final int cells;
  private final RowKey rowKey;
  private final Value[] keyValues;
  private String key;

  /**
   * @param mutation the write; not null
   * @param key the row's primary key as printable text ({@link RowKey}), for dead-letter entries and verify diffs
   * @param bytes estimated size of the mutation's values, for commit sizing
   * @param cells number of columns written, for Spanner's mutation-count limit
   */
  public ConvertedRow(Mutation mutation, String key, long bytes, int cells) {
    this(mutation, Objects.requireNonNull(key, "key"), null, null, bytes, cells);
  }

  private ConvertedRow(Mutation mutation, String key, RowKey rowKey, Value[] keyValues, long bytes, int cells) {
    this.mutation = Objects.requireNonNull(mutation, "mutation");
    this.key = key;
    this.rowKey = rowKey;
    this.keyValues = keyValues;
    this.bytes = bytes;
    this.cells = cells;
  }

  /** A row whose key text is {@code rowKey.text(keyValues)}, printed when first asked for. */
  public static ConvertedRow keyedBy(Mutation mutation, RowKey rowKey, Value[] keyValues, long bytes, int cells) {
    return new ConvertedRow(mutation, null, Objects.requireNonNull(rowKey, "rowKey"),
        Objects.requireNonNull(keyValues, "keyValues"), bytes, cells);
  }

  public Mutation mutation() {
    return mutation;
  }

  /** The row's key as printable text ({@link RowKey#text}). */
  public String key() {
    String k = key;
    if (k == null) {
      // Rows are handled by one thread at a time; a race would only print the same text twice.
      k = rowKey.text(keyValues);
      key = k;
    }
    return k;
  }

  public long bytes() {
    return bytes;
  }

  public int cells() {
    return cells;
  }

  @Override
  public String toString() {
    return "ConvertedRow[" + mutation.getTable() + " " + key() + ", " + bytes + " bytes, " + cells + " cells]";
  }
}
