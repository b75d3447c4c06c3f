package dev.pg2spanner.load;

import dev.pg2spanner.load.source.Piece;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * The order pieces are loaded in, so that concurrent writers work on different parts of the key space and the
 * load is never done in primary-key order:
 * <ul>
 *   <li>across tables, round-robin: the next piece comes from the table with the most pieces left that is not the
 *       table of the previous piece, so no two consecutive pieces share a table unless only one table is left
 *       (a large table's pieces are spread over the whole load instead of bunching at its end);</li>
 *   <li>within a table, a shuffle seeded by the table's name: ctid block ranges follow insertion order, which
 *       follows key order for monotonic keys, so consecutive block ranges would be consecutive key ranges.</li>
 * </ul>
 * Deterministic: the same pieces give the same order in every run (the input order does not matter).
 */
final class ScheduleOrder {

  private ScheduleOrder() {}

  /**
   * The stages of a load. With {@code parentsFirst}, one stage per interleave level, ascending: a stage starts only
   * when the previous one is committed. Without, a single stage holding every piece.
   */
  static List<List<Piece>> stages(Collection<Piece> pieces, boolean parentsFirst) {
    if (!parentsFirst) {
      return pieces.isEmpty() ? List.of() : List.of(interleave(pieces));
    }
    Map<Integer, List<Piece>> byLevel = new TreeMap<>();
    for (Piece piece : pieces) {
      byLevel.computeIfAbsent(piece.level(), k -> new ArrayList<>()).add(piece);
    }
    List<List<Piece>> stages = new ArrayList<>();
    for (List<Piece> level : byLevel.values()) {
      stages.add(interleave(level));
    }
    return List.copyOf(stages);
  }

  /** Round-robin across tables, shuffled within each table. */
  static List<Piece> interleave(Collection<Piece> pieces) {
    Map<String, Deque<Piece>> byTable = new TreeMap<>();
    Map<String, List<Piece>> grouped = new TreeMap<>();
    for (Piece piece : pieces) {
      grouped.computeIfAbsent(piece.table(), k -> new ArrayList<>()).add(piece);
    }
    for (Map.Entry<String, List<Piece>> entry : grouped.entrySet()) {
      List<Piece> list = entry.getValue();
      list.sort(Comparator.comparing(Piece::id));
      // String.hashCode and java.util.Random are specified exactly, so this is the same shuffle on every JVM.
      Collections.shuffle(list, new Random(entry.getKey().hashCode() * 0x9E3779B97F4A7C15L));
      byTable.put(entry.getKey(), new ArrayDeque<>(list));
    }
    PriorityQueue<String> queue = new PriorityQueue<>(
        Comparator.comparingInt((String t) -> -byTable.get(t).size()).thenComparing(Comparator.naturalOrder()));
    queue.addAll(byTable.keySet());
    List<Piece> order = new ArrayList<>(pieces.size());
    String previous = null;
    while (!queue.isEmpty()) {
      String table = queue.poll();
      String heldBack = null;
      if (table.equals(previous) && !queue.isEmpty()) {
        heldBack = table;
        table = queue.poll();
      }
      order.add(byTable.get(table).poll());
      if (!byTable.get(table).isEmpty()) {
        queue.add(table);
      }
      if (heldBack != null) {
        queue.add(heldBack);
      }
      previous = table;
    }
    return List.copyOf(order);
  }
}
