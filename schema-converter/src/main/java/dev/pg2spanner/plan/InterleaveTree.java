package dev.pg2spanner.plan;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The interleave hierarchy of a set of tables: which table is interleaved in which parent. The one place that
 * hierarchy is walked: the planner, the DDL printer, the loader and the Beam pipeline order tables by it; the plan
 * validator and the interleave analysis measure depth with it.
 *
 * <p>A tree is built from whatever was declared, sound or not, so that a validator can ask about a broken one.
 * The questions about one table ({@link #ancestors}, {@link #depth}, {@link #inCycle}) follow only that table's own
 * chain of parents; the walks over the whole tree ({@link #parentsFirst}, {@link #levels}, {@link #descendants})
 * need every parent to be a table of the tree and no cycle, and refuse otherwise with PLAN_INVALID.
 */
public final class InterleaveTree {

  /** Every table once, in the order given. */
  private final List<String> tables;
  private final Set<String> members;
  /** Table → its declared parent; absent for a top-level table. The parent may be missing from the tree. */
  private final Map<String, String> parents;
  /** The tables on a cycle of parents or below one: their chain never reaches a top-level table. */
  private final Set<String> cyclic;

  private InterleaveTree(List<String> tables, Map<String, String> parents) {
    this.tables = List.copyOf(tables);
    this.members = Set.copyOf(tables);
    this.parents = Map.copyOf(parents);
    this.cyclic = Collections.unmodifiableSet(cyclic(this.tables, this.members, this.parents));
  }

  /** The hierarchy of a plan's tables, by target name ({@code interleave.parent}). */
  public static InterleaveTree of(Plan plan) {
    return of(plan.tables());
  }

  /**
   * The hierarchy of these tables, by target name, in their order. A name listed twice counts once, with the
   * first entry's parent.
   */
  public static InterleaveTree of(List<TablePlan> tables) {
    Map<String, TablePlan> byName = new LinkedHashMap<>();
    tables.forEach(t -> byName.putIfAbsent(t.target(), t));
    return of(List.copyOf(byName.keySet()),
        name -> byName.get(name).interleave() == null ? null : byName.get(name).interleave().parent());
  }

  /**
   * The hierarchy of any named tables (e.g. catalog tables and their proposed parents, before there is a plan).
   *
   * @param tables the names, in the order walks keep among tables that do not depend on each other; a name listed
   *     twice counts once
   * @param parentOf a table's parent, or null for a top-level table
   */
  public static InterleaveTree of(List<String> tables, Function<String, String> parentOf) {
    Set<String> names = new LinkedHashSet<>(tables);
    Map<String, String> parents = new HashMap<>();
    for (String t : names) {
      String parent = parentOf.apply(t);
      if (parent != null) {
        parents.put(t, parent);
      }
    }
    return new InterleaveTree(List.copyOf(names), parents);
  }

  /**
   * The table's parent, its parent, and so on up to the top-level table: the chain {@link #depth} counts. It stops
   * early at a parent the tree does not hold, and, on a cycle, before the first table it would list twice (so for a
   * table on a cycle it ends with the table itself).
   *
   * @throws IllegalArgumentException when the tree has no such table
   */
  public List<String> ancestors(String table) {
    require(table);
    List<String> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String p = parents.get(table); p != null && members.contains(p) && seen.add(p); p = parents.get(p)) {
      out.add(p);
    }
    return out;
  }

  /**
   * How many levels deep the table sits, counted as Spanner counts interleaving depth: 1 for a top-level table, 2
   * for a table interleaved in it, and so on. A parent the tree does not hold ends the chain (it counts as
   * top-level here; {@link #parentsFirst} and the plan validator report it).
   *
   * @throws IllegalArgumentException when the tree has no such table
   * @throws Pg2SpannerException PLAN_INVALID when the table is on a cycle of parents or below one
   */
  public int depth(String table) {
    require(table);
    if (cyclic.contains(table)) {
      throw cycleError();
    }
    return ancestors(table).size() + 1;
  }

  /**
   * Whether the table's chain of parents never reaches a top-level table: it is on a cycle, or below one.
   *
   * @throws IllegalArgumentException when the tree has no such table
   */
  public boolean inCycle(String table) {
    require(table);
    return cyclic.contains(table);
  }

  /**
   * Every table, each after its interleave parent and otherwise in the given order; a parent that comes later is
   * moved up to just before its first child.
   *
   * @throws Pg2SpannerException PLAN_INVALID when a parent is not a table of the tree, or the parents form a cycle
   */
  public List<String> parentsFirst() {
    requireSound();
    List<String> ordered = new ArrayList<>(tables.size());
    Set<String> placed = new HashSet<>();
    for (String t : tables) {
      List<String> chain = new ArrayList<>();
      for (String c = t; c != null && !placed.contains(c); c = parents.get(c)) {
        chain.add(c);
      }
      for (int i = chain.size() - 1; i >= 0; i--) {
        placed.add(chain.get(i));
        ordered.add(chain.get(i));
      }
    }
    return List.copyOf(ordered);
  }

  /**
   * The tables level by level: first the top-level tables, then the tables interleaved in them, and so on (the
   * list at index i holds the tables of {@link #depth} i + 1), each level in the given order.
   *
   * @throws Pg2SpannerException PLAN_INVALID when a parent is not a table of the tree, or the parents form a cycle
   */
  public List<List<String>> levels() {
    requireSound();
    List<List<String>> levels = new ArrayList<>();
    for (String t : tables) {
      int level = depth(t) - 1;
      while (levels.size() <= level) {
        levels.add(new ArrayList<>());
      }
      levels.get(level).add(t);
    }
    return levels.stream().map(List::copyOf).toList();
  }

  /**
   * Every table interleaved below {@code table}, at any depth, parents before children (as in
   * {@link #parentsFirst}); empty for a table nothing is interleaved in.
   *
   * @throws IllegalArgumentException when the tree has no such table
   * @throws Pg2SpannerException PLAN_INVALID when a parent is not a table of the tree, or the parents form a cycle
   */
  public List<String> descendants(String table) {
    require(table);
    return parentsFirst().stream().filter(t -> ancestors(t).contains(table)).toList();
  }

  private void require(String table) {
    if (!members.contains(table)) {
      throw new IllegalArgumentException("no table " + table + " in the interleave hierarchy");
    }
  }

  private void requireSound() {
    for (String t : tables) {
      String parent = parents.get(t);
      if (parent != null && !members.contains(parent)) {
        throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "table " + t + " interleaves in " + parent
            + ", which is not a table of the plan; fix interleave.parent or remove the interleave in the plan.");
      }
    }
    if (!cyclic.isEmpty()) {
      throw cycleError();
    }
  }

  private Pg2SpannerException cycleError() {
    return new Pg2SpannerException(ExitCode.PLAN_INVALID, "the interleave parents of "
        + tables.stream().filter(cyclic::contains).collect(Collectors.joining(", "))
        + " form a cycle; fix interleave.parent in the plan.");
  }

  /** The tables whose chain of parents loops: on a cycle or below one. */
  private static Set<String> cyclic(List<String> tables, Set<String> members, Map<String, String> parents) {
    Set<String> cyclic = new HashSet<>();
    Set<String> sound = new HashSet<>();
    for (String t : tables) {
      List<String> chain = new ArrayList<>();
      Set<String> onChain = new HashSet<>();
      String c = t;
      // Up until a table already judged, a top-level table, a parent outside the tree, or a repeat.
      while (c != null && members.contains(c) && !cyclic.contains(c) && !sound.contains(c) && onChain.add(c)) {
        chain.add(c);
        c = parents.get(c);
      }
      boolean loops = c != null && (cyclic.contains(c) || onChain.contains(c));
      (loops ? cyclic : sound).addAll(chain);
    }
    return cyclic;
  }
}
