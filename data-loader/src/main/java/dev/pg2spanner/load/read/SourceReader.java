package dev.pg2spanner.load.read;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.source.Piece;
import java.sql.Connection;
import java.util.Locale;
import java.util.Map;

/**
 * How the in-process loader reads its pieces, chosen with {@code PG2SPANNER_SOURCE_READER} in the environment (an
 * escape hatch, should a source ever disagree with the default; every reader writes the same rows, CopyReaderIT):
 * {@code copy}, the default, {@link CopyPieceReader} in binary (columns without a binary decoder as their output text
 * inside the stream); {@code copy-text}, the same reader with every table as text; {@code jdbc}, {@link PieceReader}'s
 * result sets.
 */
public enum SourceReader {
  COPY, COPY_TEXT, JDBC;

  /** The environment variable that chooses the reader. */
  public static final String VARIABLE = "PG2SPANNER_SOURCE_READER";

  /**
   * The reader the environment asks for.
   *
   * @throws Pg2SpannerException (ENVIRONMENT) for a value that names no reader, before anything is read or written
   */
  public static SourceReader from(Map<String, String> env) {
    String value = env.get(VARIABLE);
    if (value == null || value.isBlank()) {
      return COPY;
    }
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "copy" -> COPY;
      case "copy-text" -> COPY_TEXT;
      case "jdbc" -> JDBC;
      default -> throw new Pg2SpannerException(ExitCode.ENVIRONMENT, VARIABLE + "=" + value + " names no source "
          + "reader; set it to copy (the default), copy-text or jdbc, or unset it");
    };
  }

  /** Whether tables may be copied in binary ({@link TableConverter#compileAll(dev.pg2spanner.plan.Plan, boolean)}). */
  public boolean binaryCopy() {
    return this == COPY;
  }

  /** One worker's piece source on {@code connection} (a snapshot reader), with this reader. */
  public PieceSource open(Connection connection, Map<String, TableConverter> converters) {
    if (this == JDBC) {
      PieceReader reader = new PieceReader(converters, PieceReader.FETCH_SIZE);
      return source(connection, (c, piece, sink) -> reader.read(c, piece, sink));
    }
    CopyPieceReader reader = new CopyPieceReader(converters);
    return source(connection, (c, piece, sink) -> reader.read(c, piece, sink));
  }

  @FunctionalInterface
  private interface Read {
    long read(Connection connection, Piece piece, RowSink sink) throws Exception;
  }

  private static PieceSource source(Connection connection, Read read) {
    return new PieceSource() {
      @Override
      public long read(Piece piece, RowSink sink) throws Exception {
        return read.read(connection, piece, sink);
      }

      @Override
      public void close() throws Exception {
        connection.close();
      }
    };
  }
}
