package dev.pg2spanner.migrate;

import com.google.cloud.spanner.Value;
import dev.pg2spanner.load.ConvertedRow;
import dev.pg2spanner.load.Piece;
import dev.pg2spanner.load.PieceReader;
import dev.pg2spanner.load.RejectedRow;
import dev.pg2spanner.load.RowSink;
import dev.pg2spanner.load.SnapshotSession;
import dev.pg2spanner.load.TableConverter;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.verify.SourceRows;
import dev.pg2spanner.verify.Verifier;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The source side of verify: every row of a table read through the same converters the load used, inside one
 * exported snapshot, so source and target are compared value by value as Spanner holds them. Rows the converter
 * rejects are not passed on: they are in the dead-letter file, not in Spanner.
 */
final class SnapshotSourceRows implements SourceRows {

  private static final int FETCH_SIZE = 5_000;

  private final SnapshotSession snapshot;
  private final Map<String, TableConverter> converters;
  private final List<Piece> pieces;

  SnapshotSourceRows(SnapshotSession snapshot, Map<String, TableConverter> converters, List<Piece> pieces) {
    this.snapshot = snapshot;
    this.converters = converters;
    this.pieces = pieces;
  }

  @Override
  public void forEach(TablePlan table, BiConsumer<String, List<Value>> row) throws Exception {
    List<ColumnPlan> columns = Verifier.loadedColumns(table);
    PieceReader reader = new PieceReader(converters, FETCH_SIZE);
    try (Connection c = snapshot.openReader()) {
      for (Piece piece : pieces) {
        if (!piece.table().equals(table.target())) {
          continue;
        }
        reader.read(c, piece, new RowSink() {
          @Override
          public void accept(ConvertedRow converted) {
            Map<String, Value> values = converted.mutation().asMap();
            List<Value> ordered = new ArrayList<>(columns.size());
            for (ColumnPlan column : columns) {
              Value v = values.get(column.target());
              ordered.add(v == null ? Value.string(null) : v);
            }
            row.accept(null, ordered);
          }

          @Override
          public void reject(RejectedRow rejected) {
            // Counted by the load; verify compares what could be loaded.
          }
        });
      }
    }
  }
}
