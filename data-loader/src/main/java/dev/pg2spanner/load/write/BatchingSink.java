package dev.pg2spanner.load.write;

import com.google.cloud.ByteArray;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.load.convert.ValueParsers;
import dev.pg2spanner.load.row.CommitLimits;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One worker's sink: groups the rows of the piece being read into commits bounded by bytes and by Spanner's
 * mutation count (cells × (1 + indexes)), and rejects a row that no commit could hold. One batch, of one table
 * (a piece is one table), so memory is bounded by the targets and a bisect never mixes tables. Not thread-safe:
 * the worker's thread only.
 */
public final class BatchingSink implements RowSink {

  private final WriteCommitter committer;
  private final Consumer<RejectedRow> rejections;
  private final BooleanSupplier stopping;
  private final ProgressTracker progress;
  private final long targetBytes;
  private final long targetMutations;

  private final List<ConvertedRow> batch = new ArrayList<>();
  private String table;
  private int mutationsPerCell = 1;
  private long batchBytes;
  private long batchMutations;
  private long pieceRows;
  private long sinkNanos;

  /**
   * @param rejections receives every rejected row (from the source, from the limits, from Spanner)
   * @param stopping true once the run is stopping: no new commit starts
   */
  public BatchingSink(WriteCommitter committer, Consumer<RejectedRow> rejections, BooleanSupplier stopping,
      ProgressTracker progress, long targetBytes, long targetMutations) {
    this.committer = committer;
    this.rejections = rejections;
    this.stopping = stopping;
    this.progress = progress;
    this.targetBytes = targetBytes;
    this.targetMutations = targetMutations;
  }

  public BatchingSink(WriteCommitter committer, Consumer<RejectedRow> rejections, BooleanSupplier stopping,
      ProgressTracker progress) {
    this(committer, rejections, stopping, progress, CommitLimits.TARGET_COMMIT_BYTES,
        CommitLimits.TARGET_MUTATIONS_PER_COMMIT);
  }

  /** Starts a piece of {@code table}, whose plan has {@code indexes} secondary indexes; drops any leftover batch. */
  public void begin(String table, int indexes) {
    this.table = table;
    this.mutationsPerCell = 1 + indexes;
    batch.clear();
    batchBytes = 0;
    batchMutations = 0;
    pieceRows = 0;
  }

  @Override
  public void accept(ConvertedRow row) {
    long start = System.nanoTime();
    try {
      if (stopping.getAsBoolean()) {
        throw new Stopped();
      }
      long mutations = (long) row.cells() * mutationsPerCell;
      String tooBig = oversize(row, mutations, mutationsPerCell);
      if (tooBig != null) {
        rejections.accept(new RejectedRow(table, row.key(), oversizeColumn(row), null, tooBig));
        return;
      }
      if (!batch.isEmpty()
          && (batchBytes + row.bytes() > targetBytes || batchMutations + mutations > targetMutations)) {
        flush();
      }
      batch.add(row);
      batchBytes += row.bytes();
      batchMutations += mutations;
      // A single row above a target (but within Spanner's limits) is committed on its own.
      if (batchBytes >= targetBytes || batchMutations >= targetMutations) {
        flush();
      }
    } finally {
      sinkNanos += System.nanoTime() - start;
    }
  }

  @Override
  public void reject(RejectedRow row) {
    long start = System.nanoTime();
    try {
      rejections.accept(row);
    } finally {
      sinkNanos += System.nanoTime() - start;
    }
  }

  /** Commits what is left of the piece; returns the piece's committed rows. */
  public long finish() {
    long start = System.nanoTime();
    try {
      flush();
      return pieceRows;
    } finally {
      sinkNanos += System.nanoTime() - start;
    }
  }

  /** Time spent in this sink (batching and the commits it made), for the read/write split. */
  public long sinkNanos() {
    return sinkNanos;
  }

  private void flush() {
    if (batch.isEmpty()) {
      return;
    }
    WriteCommitter.WriteOutcome outcome = committer.commit(table, batch, rejections, stopping);
    progress.committed(table, outcome.rows(), outcome.bytes());
    pieceRows += outcome.rows();
    batch.clear();
    batchBytes = 0;
    batchMutations = 0;
  }

  /**
   * Why no commit can hold this row, or null when one can.
   *
   * @param mutations the row's mutation count (cells × mutationsPerCell)
   */
  static String oversize(ConvertedRow row, long mutations, int mutationsPerCell) {
    if (mutations > CommitLimits.SPANNER.maxMutationsPerCommit()) {
      return "the row needs " + mutations + " mutations (" + row.cells() + " cells × " + mutationsPerCell
          + " for the table and its indexes), more than Spanner's limit of "
          + CommitLimits.SPANNER.maxMutationsPerCommit() + " per commit";
    }
    if (row.bytes() > CommitLimits.SPANNER.maxCommitBytes()) {
      return "the row is " + row.bytes() + " bytes, more than Spanner's limit of "
          + CommitLimits.SPANNER.maxCommitBytes() + " bytes per commit";
    }
    // Only a row above the cell limit can hold a cell above it: measure cells only then.
    if (row.bytes() > CommitLimits.SPANNER.maxCellBytes()) {
      for (Map.Entry<String, Value> cell : row.mutation().asMap().entrySet()) {
        long size = cellBytes(cell.getValue());
        if (size > CommitLimits.SPANNER.maxCellBytes()) {
          return "column " + cell.getKey() + " holds " + size + " bytes, more than Spanner's limit of "
              + CommitLimits.SPANNER.maxCellBytes() + " bytes per cell";
        }
      }
    }
    return null;
  }

  private static String oversizeColumn(ConvertedRow row) {
    if (row.bytes() <= CommitLimits.SPANNER.maxCellBytes()) {
      return null;
    }
    for (Map.Entry<String, Value> cell : row.mutation().asMap().entrySet()) {
      if (cellBytes(cell.getValue()) > CommitLimits.SPANNER.maxCellBytes()) {
        return cell.getKey();
      }
    }
    return null;
  }

  /** The size Spanner counts for a cell: variable-length values only (fixed-width ones are far below 10 MiB). */
  static long cellBytes(Value value) {
    if (value == null || value.isNull()) {
      return 0;
    }
    Type type = value.getType();
    switch (type.getCode()) {
      case STRING:
        return ValueParsers.utf8Length(value.getString());
      case JSON:
        return ValueParsers.utf8Length(value.getJson());
      case BYTES:
        return value.getBytes().length();
      case ARRAY:
        long total = 0;
        switch (type.getArrayElementType().getCode()) {
          case STRING:
            for (String s : value.getStringArray()) {
              total += s == null ? 0 : ValueParsers.utf8Length(s);
            }
            return total;
          case JSON:
            for (String s : value.getJsonArray()) {
              total += s == null ? 0 : ValueParsers.utf8Length(s);
            }
            return total;
          case BYTES:
            for (ByteArray b : value.getBytesArray()) {
              total += b == null ? 0 : b.length();
            }
            return total;
          default:
            return 0;
        }
      default:
        return 0;
    }
  }
}
