package dev.pg2spanner.load;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * Streams the rows of one {@link Piece} with {@code COPY ... TO STDOUT} instead of a result set: PostgreSQL sends one
 * message per row and the driver hands over its bytes, where a result set decodes and allocates per field. On the
 * benchmark data it reads and converts rows markedly faster than {@link PieceReader} (BENCHMARKS.md, issue 18).
 *
 * <p>The values are each column's own text output (not the result-set reader's select expressions), parsed by the
 * same per-column parsers that convert changes streamed by logical replication ({@link TableConverter#convertText}),
 * which are held to the same values as the result-set reader; the fidelity tests load through this reader. The
 * connection must be a snapshot reader ({@link SnapshotSession#openReader()}), whose session settings (UTC, ISO
 * dates, shortest exact floats) fix that output.
 *
 * <p>A sink that throws ends the COPY by cancelling it, which aborts the reader's transaction: the caller must not
 * read another piece on that connection (the load engine stops the worker when its sink throws).
 */
public final class CopyPieceReader {

  private final Map<String, TableConverter> converters;

  /** @param convertersByTargetTable the converter of every table a piece may name, by {@link Piece#table()} */
  public CopyPieceReader(Map<String, TableConverter> convertersByTargetTable) {
    this.converters = Map.copyOf(convertersByTargetTable);
  }

  /**
   * Reads one piece into the sink, as {@link PieceReader#read} does.
   *
   * @return the number of rows read (accepted + rejected)
   * @throws SQLException when PostgreSQL fails; the piece should be read again on a new reader
   */
  public long read(Connection reader, Piece piece, RowSink sink) throws SQLException {
    TableConverter converter = PieceReader.converterFor(converters, reader, piece);
    String relation = piece.relationSchema() + "." + piece.relationName();
    CopyOut copy = reader.unwrap(PGConnection.class).getCopyAPI().copyOut(converter.copySql(piece));
    long rows = 0;
    boolean done = false;
    try {
      int fields = copy.getFieldCount();
      String[] cells = new String[fields];
      byte[] line;
      while ((line = copy.readFromCopy()) != null) {
        rows++;
        split(line, cells, piece);
        TableConverter.Result result = converter.convertCopied(cells, relation);
        if (result instanceof TableConverter.Converted converted) {
          sink.accept(converted.row());
        } else {
          sink.reject(((TableConverter.Rejected) result).row());
        }
      }
      done = true;
    } finally {
      if (!done && copy.isActive()) {
        try {
          copy.cancelCopy();
        } catch (SQLException ignored) {
          // the original failure is the one to report
        }
      }
    }
    return rows;
  }

  /**
   * One line of COPY's text format into its fields: tab-separated, {@code \N} for NULL, backslash escapes for
   * backslash, tab, newline, carriage return, backspace, form feed and vertical tab (COPY TO emits no octal or hex
   * escapes), UTF-8 (the driver's client encoding), ending with a newline.
   */
  static void split(byte[] line, String[] cells, Piece piece) {
    int end = line.length;
    if (end > 0 && line[end - 1] == '\n') {
      end--;
    }
    int field = 0;
    int start = 0;
    // One pass: each field's end, and whether it holds an escape or a byte beyond ASCII (which need decoding).
    boolean plain = true;
    for (int i = 0; i <= end; i++) {
      byte b = i == end ? (byte) '\t' : line[i];
      if (b == '\t') {
        if (field >= cells.length) {
          throw new IllegalStateException("COPY row of piece " + piece.id() + " has more than " + cells.length
              + " fields");
        }
        cells[field++] = plain ? ascii(line, start, i) : cell(line, start, i);
        start = i + 1;
        plain = true;
      } else if (b == '\\' || b < 0) {
        plain = false;
      }
    }
    if (field != cells.length) {
      throw new IllegalStateException("COPY row of piece " + piece.id() + " has " + field + " fields, expected "
          + cells.length);
    }
  }

  /** A field of ASCII characters without escapes: each byte is its character (Latin-1 decoding is a plain copy). */
  private static String ascii(byte[] line, int from, int to) {
    return new String(line, from, to - from, StandardCharsets.ISO_8859_1);
  }

  private static String cell(byte[] line, int from, int to) {
    if (to - from == 2 && line[from] == '\\' && line[from + 1] == 'N') {
      return null;
    }
    int backslash = -1;
    for (int i = from; i < to; i++) {
      if (line[i] == '\\') {
        backslash = i;
        break;
      }
    }
    if (backslash < 0) {
      return new String(line, from, to - from, StandardCharsets.UTF_8);
    }
    byte[] out = new byte[to - from];
    int n = 0;
    for (int i = from; i < to; i++) {
      byte b = line[i];
      if (b == '\\' && i + 1 < to) {
        byte e = line[++i];
        out[n++] = switch (e) {
          case 't' -> '\t';
          case 'n' -> '\n';
          case 'r' -> '\r';
          case 'b' -> '\b';
          case 'f' -> '\f';
          case 'v' -> 0x0b;
          default -> e; // "\\" and any other escaped character stand for themselves
        };
      } else {
        out[n++] = b;
      }
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }
}
