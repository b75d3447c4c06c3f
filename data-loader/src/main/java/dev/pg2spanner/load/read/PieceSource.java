package dev.pg2spanner.load.read;

import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.source.Piece;

/**
 * Reads pieces. The engine asks for one per worker thread and uses it from that thread only (it owns a source
 * connection, typically in the shared exported snapshot); the engine closes it when the worker ends.
 */
public interface PieceSource extends AutoCloseable {

  /**
   * Reads every row of {@code piece} and hands each to {@code sink} ({@link RowSink#accept} or
   * {@link RowSink#reject}), on the calling thread. The sink may throw an unchecked exception to stop the load;
   * implementations must let it propagate (do not swallow or wrap {@link RuntimeException}s from the sink).
   *
   * @return the number of rows read from the source (accepted plus rejected)
   */
  long read(Piece piece, RowSink sink) throws Exception;
}
