package dev.pg2spanner.load;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.PgNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Cuts every planned table into {@code ctid} block-range {@link Piece}s. Block ranges need no key, no COUNT(*) and
 * no sort, every row falls in exactly one, and PostgreSQL 14+ reads a range with a TID Range Scan that touches only
 * those blocks (older servers fall back to a sequential scan per piece: correct, but slower).
 *
 * <p>Rules: a partitioned table is read leaf by leaf (sub-partitions walked to every level, the partitioned parents
 * themselves hold no rows); every relation is read with {@code FROM ONLY}, so an inheritance parent's pieces hold its
 * own rows and nothing else (its children are tables of their own in the plan). One piece size, in blocks, is used
 * for the whole database: the largest that still gives at least {@code minPieces} pieces overall and stays within
 * {@code maxPieceBytes}; a relation smaller than that is one piece. The last piece of each relation is open-ended
 * (it also catches blocks the relation grew after sizing), and an empty relation still gets that one piece. A source
 * with fewer blocks than {@code minPieces} gets one piece per block, the finest a block range can cut.
 *
 * <p>Consistency: all relations read are locked in ACCESS SHARE mode on the snapshot's coordinator, as pg_dump does,
 * and stay locked until the session closes. Without that, a TRUNCATE or table rewrite (not MVCC-safe) committed
 * before a reader first touches the table would make the snapshot see it empty. The lock blocks only DDL that needs
 * ACCESS EXCLUSIVE (ALTER TABLE, TRUNCATE, DROP, VACUUM FULL, CLUSTER) until the load ends.
 *
 * <p>Piece ids are deterministic and self-describing, {@code "<target>#<schema>.<relation>:<first>-<end>"} (end
 * empty when open), e.g. {@code "orders#public.orders:0-1024"}: a checkpoint that records ids matches a piece only
 * when it covers exactly the same blocks. Pieces come ordered by level, then plan order, relation and block.
 */
public final class PiecePlanner {

  /**
   * Every relation read for one planned table; the recursion descends only through partitioned tables. Any plan
   * relation kind is accepted (a table, partitioned table, materialized view or foreign table).
   */
  private static final String RELATIONS_SQL = """
      WITH RECURSIVE tree(oid, relkind) AS (
        SELECT c.oid, c.relkind
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname || '.' || c.relname = ? AND c.relkind IN ('r', 'p', 'm', 'f')
        UNION
        SELECT i.inhrelid, k.relkind
        FROM tree t JOIN pg_inherits i ON i.inhparent = t.oid JOIN pg_class k ON k.oid = i.inhrelid
        WHERE t.relkind = 'p'
      )
      SELECT n.nspname AS schema_name, c.relname AS relation_name, c.relkind::text AS relation_kind,
             c.reltuples::float8 AS row_estimate, pg_relation_size(c.oid) AS relation_bytes
      FROM tree t JOIN pg_class c ON c.oid = t.oid JOIN pg_namespace n ON n.oid = c.relnamespace
      ORDER BY n.nspname, c.relname
      """;

  private PiecePlanner() {}

  /**
   * Cuts every planned table into pieces, inside the snapshot.
   *
   * @param inSnapshot the session's {@link SnapshotSession#coordinator()} (sizes and partitions as the readers see
   *     them; the locks it takes last as long as its transaction)
   * @param minPieces at least this many pieces overall, when the data has that many blocks (DESIGN: ≥ 10 × nodes)
   * @param maxPieceBytes no piece larger than about this many heap bytes
   * @return the pieces, ordered by level, plan order, relation and first block
   * @throws Pg2SpannerException PLAN_INVALID when a planned table no longer exists; SOURCE_CONNECTION when a table
   *     stays locked by other sessions' DDL for longer than the lock timeout
   */
  public static List<Piece> cut(Connection inSnapshot, Plan plan, int minPieces, long maxPieceBytes)
      throws SQLException {
    if (minPieces < 1 || maxPieceBytes < 1) {
      throw new IllegalArgumentException("minPieces and maxPieceBytes must be positive, were " + minPieces + " and "
          + maxPieceBytes);
    }
    Map<String, Integer> levels = levels(plan);
    List<TablePlan> ordered = plan.tables().stream()
        .sorted(Comparator.comparingInt(t -> levels.get(t.target())))
        .toList();
    List<SourceRelation> relations = new ArrayList<>();
    try (PreparedStatement statement = inSnapshot.prepareStatement(RELATIONS_SQL)) {
      for (TablePlan table : ordered) {
        statement.setString(1, table.source());
        List<SourceRelation> found = new ArrayList<>();
        boolean exists = false;
        try (ResultSet rs = statement.executeQuery()) {
          while (rs.next()) {
            exists = true;
            if (!rs.getString("relation_kind").equals("p")) {
              found.add(new SourceRelation(table.target(), table.source(), rs.getString("schema_name"),
                  rs.getString("relation_name"), rs.getString("relation_kind"), rs.getLong("relation_bytes"),
                  rs.getDouble("row_estimate"), levels.get(table.target())));
            }
          }
        }
        if (!exists) {
          throw new Pg2SpannerException(ErrorCode.PLAN_INVALID, "table " + table.source() + " in the plan no longer "
              + "exists in the source; run plan again");
        }
        relations.addAll(found);
      }
    }
    lock(inSnapshot, relations);
    long blockSize;
    try (Statement statement = inSnapshot.createStatement();
        ResultSet rs = statement.executeQuery("SELECT current_setting('block_size')::bigint AS block_size")) {
      rs.next();
      blockSize = rs.getLong("block_size");
    }
    return split(relations, blockSize, minPieces, Math.max(1, maxPieceBytes / blockSize));
  }

  /** ACCESS SHARE on every table read, in one statement (see the class comment). */
  private static void lock(Connection inSnapshot, List<SourceRelation> relations) throws SQLException {
    // Plain and partition tables only: LOCK TABLE refuses some other relation kinds, which cannot be truncated anyway.
    String targets = relations.stream()
        .filter(r -> r.kind().equals("r"))
        .map(r -> "ONLY " + PgNames.qualified(r.schema(), r.name()))
        .distinct()
        .collect(Collectors.joining(", "));
    if (targets.isEmpty()) {
      return;
    }
    try (Statement statement = inSnapshot.createStatement()) {
      statement.execute("LOCK TABLE " + targets + " IN ACCESS SHARE MODE");
    } catch (SQLException e) {
      if ("55P03".equals(e.getSQLState())) {
        throw new Pg2SpannerException(ErrorCode.SOURCE_CONNECTION, "a table to copy is locked by another session "
            + "(DDL such as ALTER TABLE, TRUNCATE or VACUUM FULL) for longer than " + SnapshotSession.LOCK_TIMEOUT
            + "; let it finish (see pg_locks / pg_stat_activity) and run migrate again", e);
      }
      throw e;
    }
  }

  /**
   * The pure part: block ranges of the given relations (in the given order).
   *
   * @param maxBlocksPerPiece the largest piece, in blocks (≥ 1)
   */
  static List<Piece> split(List<SourceRelation> relations, long blockSize, int minPieces, long maxBlocksPerPiece) {
    long total = 0;
    for (SourceRelation r : relations) {
      total += r.blocks(blockSize);
    }
    long per = Math.max(1, Math.min(maxBlocksPerPiece, total / minPieces));
    List<Piece> pieces = new ArrayList<>();
    for (SourceRelation r : relations) {
      long blocks = r.blocks(blockSize);
      long first = 0;
      do {
        Long end = first + per >= blocks ? null : first + per;
        long span = (end == null ? blocks : end) - first;
        long rows = blocks == 0 || r.rowEstimate() <= 0 ? 0 : Math.round(r.rowEstimate() * span / blocks);
        String id = r.table() + "#" + r.schema() + "." + r.name() + ":" + first + "-" + (end == null ? "" : end);
        pieces.add(new Piece(id, r.table(), r.source(), r.schema(), r.name(), true, first, end, r.level(), rows));
        first += per;
      } while (first < blocks);
    }
    return List.copyOf(pieces);
  }

  /** Interleave depth of every table: 0 at the top, the parent's level + 1 below it. */
  static Map<String, Integer> levels(Plan plan) {
    Map<String, TablePlan> byTarget = new HashMap<>();
    for (TablePlan t : plan.tables()) {
      byTarget.put(t.target(), t);
    }
    Map<String, Integer> levels = new HashMap<>();
    for (TablePlan t : plan.tables()) {
      levels.put(t.target(), level(t, byTarget, 0));
    }
    return levels;
  }

  private static int level(TablePlan table, Map<String, TablePlan> byTarget, int depth) {
    if (table.interleave() == null) {
      return 0;
    }
    TablePlan parent = byTarget.get(table.interleave().parent());
    if (parent == null || depth > byTarget.size()) {
      throw new Pg2SpannerException(ErrorCode.PLAN_INVALID, "table " + table.target() + " is interleaved in "
          + table.interleave().parent() + ", which the plan does not hold (or the interleaving forms a cycle); fix "
          + "interleave in plan.yaml");
    }
    return level(parent, byTarget, depth + 1) + 1;
  }
}
