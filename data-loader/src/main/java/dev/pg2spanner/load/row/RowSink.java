package dev.pg2spanner.load.row;

/** Where a piece reader delivers rows. Called from one thread per piece. */
public interface RowSink {

  /** A converted row to write. */
  void accept(ConvertedRow row);

  /** A row that cannot be converted (the reader continues with the next row). */
  void reject(RejectedRow row);
}
