package dev.pg2spanner.verify;

import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.read.PieceReader;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.SourceErrors;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The source side of verify: every row of a table read through the same converters the load used, inside one
 * exported snapshot, so source and target are compared value by value as Spanner holds them. A row the run's
 * dead-letter file lists (the converter or Spanner refused it) is left out and counted; a row the converter refuses
 * that the file does not list is reported as not convertible, which fails the table: it cannot be in the target,
 * and nobody accounted for it.
 */
final class SnapshotSourceRows implements SourceRows {

  private final SnapshotSession snapshot;
  private final Map<String, TableConverter> converters;
  private final List<Piece> pieces;
  private final java.util.Set<String> deadLettered;
  /** What to do once a source failure's cause is gone, for its message. */
  private final WayOn nextStep;

  /** @param deadLettered {@link DeadLetterFile#identity} of the rows in the dead-letter file, left out of the comparison */
  SnapshotSourceRows(SnapshotSession snapshot, Map<String, TableConverter> converters, List<Piece> pieces,
      java.util.Set<String> deadLettered, WayOn nextStep) {
    this.nextStep = nextStep;
    this.snapshot = snapshot;
    this.converters = converters;
    this.pieces = pieces;
    this.deadLettered = deadLettered;
  }

  private boolean listed(TablePlan table, String key) {
    return !deadLettered.isEmpty() && deadLettered.contains(DeadLetterFile.identity(table.target(), key));
  }

  @Override
  public void forEach(TablePlan table, SourceRows.Sink sink) throws Exception {
    List<ColumnPlan> columns = Verifier.loadedColumns(table);
    // A mutation holds the loaded columns in plan order, then any synthetic key: its first values are the row.
    List<String> written = converters.get(table.target()).loadedColumns();
    if (!written.subList(0, Math.min(written.size(), columns.size()))
        .equals(columns.stream().map(ColumnPlan::target).toList())) {
      throw new IllegalStateException("the converter of " + table.target() + " writes " + written
          + ", not the loaded columns in plan order");
    }
    PieceReader reader = new PieceReader(converters, PieceReader.FETCH_SIZE);
    try (Connection c = snapshot.openReader()) {
      for (Piece piece : pieces) {
        if (!piece.table().equals(table.target())) {
          continue;
        }
        try {
          read(reader, c, piece, table, columns, sink);
        } catch (java.sql.SQLException e) {
          // Another session's lock, a cancelled statement, a lost connection: the source's, not a bug.
          throw SourceErrors.reading(e, piece.relationSchema() + "." + piece.relationName(), "verify", nextStep,
              SnapshotSession.LOCK_TIMEOUT, SourceErrors.lookingUp(snapshot.source()));
        }
      }
    }
  }

  private void read(PieceReader reader, Connection c, Piece piece, TablePlan table, List<ColumnPlan> columns,
      SourceRows.Sink sink) throws Exception {
    reader.read(c, piece, new RowSink() {
      @Override
      public void accept(ConvertedRow converted) {
        if (listed(table, converted.key())) {
          sink.leftOut(converted.key());
          return;
        }
        List<Value> ordered = new ArrayList<>(columns.size());
        for (Value v : converted.mutation().getValues()) {
          if (ordered.size() == columns.size()) {
            break;
          }
          ordered.add(v);
        }
        sink.row(null, ordered);
      }

      @Override
      public void reject(RejectedRow rejected) {
        if (listed(table, rejected.key())) {
          sink.leftOut(rejected.key());
        } else {
          sink.unconverted(rejected.key(), (rejected.column() == null ? "" : "column " + rejected.column()
              + ": ") + rejected.reason());
        }
      }
    });
  }
}
