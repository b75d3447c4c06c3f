package dev.pg2spanner.load.source;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.InterleaveTree;
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
 * ACCESS EXCLUSIVE (ALTER TABLE, TRUNCATE, DROP, VACUUM FULL, CLUSTER) until the load ends. One window remains,
 * between exporting the snapshot and taking the locks: a TRUNCATE or rewrite committed there gives the relation a
 * new file the snapshot sees empty (checked here: 0 rows, no error). So once the locks are held, each relation's
 * file node as the snapshot sees it ({@code pg_class.relfilenode}) is compared with the current one
 * ({@code pg_relation_filenode}); a difference stops the load with the relation's name instead of copying nothing.
 *
 * <p>Piece ids are deterministic and self-describing, {@code "<target>#<schema>.<relation>:<first>-<end>"} (end
 * empty when open), e.g. {@code "orders#public.orders:0-1024"}: a checkpoint that records ids matches a piece only
 * when it covers exactly the same blocks. Pieces come ordered by level, then plan order, relation and block.
 */
public final class PiecePlanner {

  /**
   * The CTE {@code tree(oid, relkind)}: the planned table named by the one parameter ("schema.name") and, below a
   * partitioned table, every partition; the recursion descends only through partitioned tables. Any plan relation
   * kind is accepted (a table, partitioned table, materialized view or foreign table). The load reads these
   * relations, and the live stream checks their shape ({@code live/SourceShape}).
   */
  public static final String RELATION_TREE = """
      WITH RECURSIVE tree(oid, relkind) AS (
        SELECT c.oid, c.relkind
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname || '.' || c.relname = ? AND c.relkind IN ('r', 'p', 'm', 'f')
        UNION
        SELECT i.inhrelid, k.relkind
        FROM tree t JOIN pg_inherits i ON i.inhparent = t.oid JOIN pg_class k ON k.oid = i.inhrelid
        WHERE t.relkind = 'p'
      )
      """;

  /** Every relation read for one planned table. */
  private static final String RELATIONS_SQL = RELATION_TREE + """
      SELECT n.nspname AS schema_name, c.relname AS relation_name, c.relkind::text AS relation_kind,
             c.reltuples::float8 AS row_estimate, pg_relation_size(c.oid) AS relation_bytes
      FROM tree t JOIN pg_class c ON c.oid = t.oid JOIN pg_namespace n ON n.oid = c.relnamespace
      ORDER BY n.nspname, c.relname
      """;

  /** Pieces are capped at about this much heap each, so progress and resume stay fine-grained. */
  public static final long MAX_PIECE_BYTES = 64L << 20;

  private PiecePlanner() {}

  /**
   * Cuts every planned table into pieces, inside the snapshot.
   *
   * @param inSnapshot the session's {@link SnapshotSession#coordinator()} (sizes and partitions as the readers see
   *     them; the locks it takes last as long as its transaction)
   * @param minPieces at least this many pieces overall, when the data has that many blocks (Spanner's bulk-load advice: ≥ 10 × nodes; README)
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
    List<SourceRelation> relations = relations(inSnapshot, ordered, levels);
    lockAndCheck(inSnapshot, relations.stream().map(r -> new Relation(r.schema(), r.name(), r.kind())).toList());
    long blockSize = blockSize(inSnapshot);
    return split(relations, blockSize, minPieces, Math.max(1, maxPieceBytes / blockSize));
  }

  /**
   * One open-ended piece per relation of each table (every row of the table), taking no lock: for reading a few
   * tables in a snapshot while the application keeps working — verification while streaming must never hold a lock
   * the application's DDL would queue behind (and the application behind that DDL). A table rewritten meanwhile reads
   * empty in the snapshot, which verification reports as a difference and compares again at its next cut.
   */
  public static List<Piece> wholeTables(Connection inSnapshot, List<TablePlan> tables) throws SQLException {
    Map<String, Integer> levels = new java.util.HashMap<>();
    tables.forEach(t -> levels.put(t.target(), 0));
    return split(relations(inSnapshot, tables, levels), blockSize(inSnapshot), 1, Long.MAX_VALUE);
  }

  private static long blockSize(Connection inSnapshot) throws SQLException {
    try (Statement statement = inSnapshot.createStatement();
        ResultSet rs = statement.executeQuery("SELECT current_setting('block_size')::bigint AS block_size")) {
      rs.next();
      return rs.getLong("block_size");
    }
  }

  private static List<SourceRelation> relations(Connection inSnapshot, List<TablePlan> ordered,
      Map<String, Integer> levels) throws SQLException {
    List<SourceRelation> relations = new ArrayList<>();
    // pg_relation_size waits for a relation another session holds ACCESS EXCLUSIVE, like the lock below.
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
          throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "table " + table.source() + " in the plan no longer "
              + "exists in the source; run plan again");
        }
        relations.addAll(found);
      }
    } catch (SQLException e) {
      throw lockTimeout(e);
    }
    return relations;
  }

  /**
   * Locks the relations of pieces cut by an earlier snapshot (a resumed run) the way {@link #cut} locks the ones it
   * cuts, and checks that none was truncated or rewritten after this snapshot was taken.
   *
   * @throws Pg2SpannerException SOURCE_CONNECTION when a relation stays locked by other sessions' DDL for longer
   *     than the lock timeout, or changed file after the snapshot
   */
  public static void lock(Connection inSnapshot, List<Piece> pieces) throws SQLException {
    List<Relation> relations = new ArrayList<>();
    String sql = "SELECT c.relkind::text AS relation_kind FROM pg_class c "
        + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?";
    try (PreparedStatement statement = inSnapshot.prepareStatement(sql)) {
      for (List<String> relation : pieces.stream().map(p -> List.of(p.relationSchema(), p.relationName())).distinct()
          .toList()) {
        statement.setString(1, relation.get(0));
        statement.setString(2, relation.get(1));
        try (ResultSet rs = statement.executeQuery()) {
          if (rs.next()) {
            relations.add(new Relation(relation.get(0), relation.get(1), rs.getString("relation_kind")));
          }
        }
      }
    }
    lockAndCheck(inSnapshot, relations);
  }

  /** A relation to lock: its schema, name and {@code relkind}. */
  private record Relation(String schema, String name, String kind) {}

  /** ACCESS SHARE on every table read, in one statement, then the file-node check (see the class comment). */
  private static void lockAndCheck(Connection inSnapshot, List<Relation> relations) throws SQLException {
    // Plain and partition tables only: LOCK TABLE refuses some other relation kinds, which cannot be truncated anyway.
    List<String> tables = relations.stream()
        .filter(r -> r.kind().equals("r"))
        .map(r -> PgNames.qualified(r.schema(), r.name()))
        .distinct()
        .toList();
    if (tables.isEmpty()) {
      return;
    }
    try (Statement statement = inSnapshot.createStatement()) {
      statement.execute("LOCK TABLE " + tables.stream().map(t -> "ONLY " + t).collect(Collectors.joining(", "))
          + " IN ACCESS SHARE MODE");
    } catch (SQLException e) {
      throw lockTimeout(e);
    }
    // With the locks held no rewrite can start; one committed since the snapshot shows as a new file node.
    String sql = "SELECT t AS relation_name FROM unnest(?::text[]) t JOIN pg_class c ON c.oid = t::regclass "
        + "WHERE c.relfilenode IS DISTINCT FROM pg_relation_filenode(c.oid) ORDER BY 1";
    List<String> changed = new ArrayList<>();
    try (PreparedStatement statement = inSnapshot.prepareStatement(sql)) {
      statement.setArray(1, inSnapshot.createArrayOf("text", tables.toArray()));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          changed.add(rs.getString("relation_name"));
        }
      }
    }
    if (!changed.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, String.join(", ", changed) + " was truncated or "
          + "rewritten (TRUNCATE, ALTER TABLE, VACUUM FULL, CLUSTER) just after the load's snapshot was taken, so the "
          + "snapshot would read " + (changed.size() == 1 ? "it" : "them") + " as empty; nothing was copied from "
          + (changed.size() == 1 ? "it" : "them") + ". Run migrate again once the DDL is done");
    }
  }

  /** A lock timeout (55P03) as the user's next step; anything else unchanged. */
  private static SQLException lockTimeout(SQLException e) {
    if ("55P03".equals(e.getSQLState())) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "a table to copy is locked by another session "
          + "(DDL such as ALTER TABLE, TRUNCATE or VACUUM FULL) for longer than " + SnapshotSession.LOCK_TIMEOUT
          + "; let it finish (see pg_locks / pg_stat_activity) and run migrate again", e);
    }
    return e;
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

  /** Interleave level of every table: 0 at the top, the parent's level + 1 below it. */
  public static Map<String, Integer> levels(Plan plan) {
    Map<String, Integer> levels = new HashMap<>();
    List<List<String>> byLevel = InterleaveTree.of(plan).levels();
    for (int level = 0; level < byLevel.size(); level++) {
      for (String table : byLevel.get(level)) {
        levels.put(table, level);
      }
    }
    return levels;
  }
}
