package dev.pg2spanner.load.read;

import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.source.Piece;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * Streams the rows of one {@link Piece} through its table's {@link TableConverter} into a {@link RowSink}. Memory is
 * bounded by the fetch size: the JDBC driver reads through a cursor, which PostgreSQL only offers inside a
 * transaction, so the connection must be a reader from {@link SnapshotSession#openReader()} (auto-commit off).
 * Stateless apart from its configuration; one instance may serve many threads, each with its own connection.
 */
public final class PieceReader {

  /**
   * The JDBC fetch size of every reader of source rows (the in-process load, Beam workers, verify): rows per round
   * trip, enough that round trips are not the bottleneck, few enough that one fetched batch of wide rows stays
   * small in memory.
   */
  public static final int FETCH_SIZE = 5_000;

  private final Map<String, TableConverter> converters;
  private final int fetchSize;

  /**
   * @param convertersByTargetTable the converter of every table a piece may name, by {@link Piece#table()}
   * @param fetchSize rows fetched per round trip (e.g. 5,000–10,000)
   */
  public PieceReader(Map<String, TableConverter> convertersByTargetTable, int fetchSize) {
    if (fetchSize < 1) {
      throw new IllegalArgumentException("fetchSize must be at least 1, was " + fetchSize);
    }
    this.converters = Map.copyOf(convertersByTargetTable);
    this.fetchSize = fetchSize;
  }

  /**
   * The converter of the piece's table, after checking that {@code reader} reads inside the snapshot (both readers
   * of pieces call this first).
   */
  static TableConverter converterFor(Map<String, TableConverter> converters, Connection reader, Piece piece)
      throws SQLException {
    TableConverter converter = converters.get(piece.table());
    if (converter == null) {
      throw new IllegalArgumentException("no converter for table " + piece.table() + " (piece " + piece.id() + ")");
    }
    if (reader.getAutoCommit()) {
      throw new IllegalStateException("piece " + piece.id() + " must be read on a snapshot reader "
          + "(SnapshotSession.openReader()), not on an auto-commit connection");
    }
    return converter;
  }

  /**
   * Reads one piece into the sink: converted rows to {@link RowSink#accept}, unconvertible ones to
   * {@link RowSink#reject}. Leaves the reader's transaction open (the snapshot serves the next piece).
   *
   * @return the number of rows read (accepted + rejected)
   * @throws SQLException when PostgreSQL fails (connection lost, lock timeout behind DDL, ...); the piece should be
   *     read again, and blind insert-or-update writes make that safe
   * @throws IllegalArgumentException when no converter is known for the piece's table
   * @throws IllegalStateException when the connection is in auto-commit mode (it is then outside the snapshot)
   */
  public long read(Connection reader, Piece piece, RowSink sink) throws SQLException {
    TableConverter converter = converterFor(converters, reader, piece);
    long rows = 0;
    try (Statement statement = reader.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(fetchSize);
      try (ResultSet rs = statement.executeQuery(converter.selectSql(piece))) {
        while (rs.next()) {
          rows++;
          TableConverter.Result result = converter.convert(rs);
          if (result instanceof TableConverter.Converted converted) {
            sink.accept(converted.row());
          } else {
            sink.reject(((TableConverter.Rejected) result).row());
          }
        }
      }
    }
    return rows;
  }
}
