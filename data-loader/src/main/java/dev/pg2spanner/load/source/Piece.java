package dev.pg2spanner.load.source;

import java.util.Objects;

/**
 * A unit of load work: a range of heap blocks ({@code ctid}) of one physical relation — a table, or one leaf
 * partition of a partitioned table. Block ranges need no key and no COUNT(*), and every row falls in exactly one.
 *
 * @param id stable identifier, unique in a run ("orders#3"); the checkpoint records it
 * @param table the plan's target table
 * @param source the plan's source table, "schema.name"
 * @param relationSchema schema of the relation read (the partition's for a partitioned table)
 * @param relationName name of the relation read
 * @param only read with {@code FROM ONLY} (an inheritance parent's own rows)
 * @param firstBlock first block, inclusive
 * @param endBlock end block, exclusive; null for "to the end of the relation" (the last piece, which also catches
 *     blocks added after the pieces were cut)
 * @param level interleave depth: 0 for top-level tables; on targets that need parents first (the emulator) a level
 *     starts only when the one above is done
 * @param estimatedRows for progress and ETA only
 */
public record Piece(String id, String table, String source, String relationSchema, String relationName, boolean only,
    long firstBlock, Long endBlock, int level, long estimatedRows) {

  public Piece {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(relationSchema, "relationSchema");
    Objects.requireNonNull(relationName, "relationName");
    if (firstBlock < 0 || (endBlock != null && endBlock <= firstBlock)) {
      throw new IllegalArgumentException("piece " + id + " has an empty or negative block range");
    }
  }
}
