package dev.pg2spanner.beam;

import dev.pg2spanner.load.source.Piece;
import java.io.Serializable;
import java.util.Objects;

/**
 * A {@link Piece} as the pipeline carries it: the same fields, serializable, so {@code Create} and
 * {@code Reshuffle} can encode it with {@code SerializableCoder}. {@code Piece} itself stays a plain record in
 * {@code data-loader}, which knows nothing of Beam.
 *
 * @param id see {@link Piece#id()}
 * @param table see {@link Piece#table()}
 * @param source see {@link Piece#source()}
 * @param relationSchema see {@link Piece#relationSchema()}
 * @param relationName see {@link Piece#relationName()}
 * @param only see {@link Piece#only()}
 * @param firstBlock see {@link Piece#firstBlock()}
 * @param endBlock see {@link Piece#endBlock()}; null for an open-ended last piece
 * @param level see {@link Piece#level()}
 * @param estimatedRows see {@link Piece#estimatedRows()}
 */
public record PieceSpec(String id, String table, String source, String relationSchema, String relationName,
    boolean only, long firstBlock, Long endBlock, int level, long estimatedRows) implements Serializable {

  private static final long serialVersionUID = 1L;

  public PieceSpec {
    Objects.requireNonNull(id, "id");
  }

  /** The carrier of {@code piece} (never null). */
  public static PieceSpec of(Piece piece) {
    return new PieceSpec(piece.id(), piece.table(), piece.source(), piece.relationSchema(), piece.relationName(),
        piece.only(), piece.firstBlock(), piece.endBlock(), piece.level(), piece.estimatedRows());
  }

  /** Back to the loader's piece; validates the block range again. */
  public Piece toPiece() {
    return new Piece(id, table, source, relationSchema, relationName, only, firstBlock, endBlock, level,
        estimatedRows);
  }
}
