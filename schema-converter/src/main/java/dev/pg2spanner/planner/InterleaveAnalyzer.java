package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.InterleaveTree;
import dev.pg2spanner.spanner.SpannerLimits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which tables are interleaved in which parent. A child is a candidate when a foreign key makes the
 * leading columns of its primary key reference its parent's full primary key: same columns, same order, same
 * types. Everything that looks close but is not a candidate gets a finding with the reason.
 */
final class InterleaveAnalyzer {

  /** Spanner allows at most 7 levels of interleaved tables, the top-level table included. */
  private static final int MAX_DEPTH = SpannerLimits.GOOGLE_STANDARD_SQL.maxInterleaveDepth();

  /** A child's decided parent. */
  record Decision(PgTable parent, PgForeignKey foreignKey, Interleave.OnDelete onDelete) {}

  /** The result: decisions per child (qualified name) and the findings (candidates and rejections). */
  record Result(Map<String, Decision> decisions, List<Finding> findings) {}

  private InterleaveAnalyzer() {}

  static Result analyze(PgCatalog catalog) {
    return analyze(catalog, false);
  }

  /**
   * @param withoutRenames leave top-level (with a NOT_INTERLEAVED finding) a child whose foreign key columns are
   *     named differently from the parent's key: interleaving would rename them, breaking queries that name them
   */
  static Result analyze(PgCatalog catalog, boolean withoutRenames) {
    return analyze(catalog, withoutRenames, Set.of());
  }

  /**
   * @param oversizedKeys tables ("schema.name") whose primary key values are longer than Spanner allows: they get a
   *     synthetic key, so they neither are nor have interleaved children
   */
  static Result analyze(PgCatalog catalog, boolean withoutRenames, Set<String> oversizedKeys) {
    Map<String, PgTable> byName = new HashMap<>();
    catalog.tables().forEach(t -> byName.put(t.qualifiedName(), t));
    Map<String, Decision> candidates = new LinkedHashMap<>();
    List<Finding> findings = new ArrayList<>();

    for (PgTable child : catalog.tables()) {
      if (child.primaryKey() == null) {
        continue;
      }
      List<Decision> fits = new ArrayList<>();
      for (PgForeignKey fk : child.foreignKeys()) {
        PgTable parent = byName.get(fk.referencedQualifiedName());
        if (parent == null || parent.primaryKey() == null) {
          continue;
        }
        Optional<String> rejection = rejection(child, fk, parent);
        if (rejection.isEmpty() && oversizedKeys.contains(child.qualifiedName())) {
          rejection = Optional.of("its primary key values are longer than Spanner's "
              + SpannerLimits.GOOGLE_STANDARD_SQL.maxKeyBytes() + " bytes, so it gets a synthetic key");
        } else if (rejection.isEmpty() && oversizedKeys.contains(parent.qualifiedName())) {
          rejection = Optional.of("the parent's primary key values are longer than Spanner's "
              + SpannerLimits.GOOGLE_STANDARD_SQL.maxKeyBytes() + " bytes, so the parent gets a synthetic key");
        }
        if (rejection.isEmpty() && withoutRenames) {
          rejection = renames(fk);
        }
        if (rejection.isEmpty()) {
          fits.add(new Decision(parent, fk, fk.onDelete() == PgForeignKey.Action.CASCADE
              ? Interleave.OnDelete.CASCADE : Interleave.OnDelete.NO_ACTION));
        } else if (!rejection.get().isEmpty()) {
          findings.add(Finding.of(FindingCode.NOT_INTERLEAVED, child.qualifiedName(), null, fk.name(),
              FindingCode.NOT_INTERLEAVED.message(child.qualifiedName(), parent.qualifiedName() + " through "
                  + fk.name(), rejection.get()), Map.of("foreignKey", fk.name(), "parent", parent.qualifiedName())));
        }
      }
      if (fits.size() == 1) {
        candidates.put(child.qualifiedName(), fits.get(0));
      } else if (fits.size() > 1) {
        List<String> parents = fits.stream().map(d -> d.parent().qualifiedName()).sorted().toList();
        findings.add(Finding.of(FindingCode.NOT_INTERLEAVED, child.qualifiedName(), null, null,
            child.qualifiedName() + " could be interleaved in any of " + String.join(", ", parents)
                + ", but a table has one parent; it stays top-level with ordinary foreign keys. Edit plan.yaml to "
                + "pick the parent that is queried together with it.", Map.of("parents", parents)));
      }
    }

    Map<String, Decision> decisions = new LinkedHashMap<>();
    InterleaveTree proposed = InterleaveTree.of(catalog.tables().stream().map(PgTable::qualifiedName).toList(),
        name -> candidates.containsKey(name) ? candidates.get(name).parent().qualifiedName() : null);
    for (Map.Entry<String, Decision> e : candidates.entrySet()) {
      String child = e.getKey();
      Optional<String> chainProblem = chainProblem(child, proposed);
      Decision d = e.getValue();
      if (chainProblem.isPresent()) {
        findings.add(Finding.of(FindingCode.NOT_INTERLEAVED, child, null, d.foreignKey().name(),
            FindingCode.NOT_INTERLEAVED.message(child, d.parent().qualifiedName(), chainProblem.get()),
            Map.of("foreignKey", d.foreignKey().name(), "parent", d.parent().qualifiedName())));
        continue;
      }
      decisions.put(child, d);
      findings.add(Finding.of(FindingCode.INTERLEAVE_CANDIDATE, child, null, d.foreignKey().name(),
          child + " is interleaved in " + d.parent().qualifiedName() + " (ON DELETE "
              + d.onDelete().name().replace('_', ' ') + ", from foreign key " + d.foreignKey().name()
              + "): its primary key starts with the parent's full key, so Spanner stores each child row beside its "
              + "parent row; reads and deletes of a parent with its children stay on one split.",
          Map.of("foreignKey", d.foreignKey().name(), "parent", d.parent().qualifiedName(),
              "sharedKey", d.parent().primaryKey().columns())));
    }
    return new Result(decisions, findings);
  }

  /** With --interleave no-renames: the renames interleaving through {@code fk} would need, as a rejection. */
  private static Optional<String> renames(PgForeignKey fk) {
    List<String> renamed = new ArrayList<>();
    for (int i = 0; i < fk.columns().size(); i++) {
      if (!fk.columns().get(i).equals(fk.referencedColumns().get(i))) {
        renamed.add(fk.columns().get(i) + " → " + fk.referencedColumns().get(i));
      }
    }
    return renamed.isEmpty() ? Optional.empty() : Optional.of("interleaving would rename its key column(s) "
        + String.join(", ", renamed) + " (Spanner requires the parent's key names), and plan ran with --interleave "
        + "no-renames; edit plan.yaml to interleave it anyway");
  }

  /**
   * Why this foreign key does not make the child interleavable in this parent: empty when it does, an empty
   * string when the key has nothing to do with the child's primary key (no finding worth making).
   */
  private static Optional<String> rejection(PgTable child, PgForeignKey fk, PgTable parent) {
    List<String> childKey = child.primaryKey().columns();
    List<String> parentKey = parent.primaryKey().columns();
    if (parent == child || parent.qualifiedName().equals(child.qualifiedName())) {
      return childKey.containsAll(fk.columns()) ? Optional.of("it references itself") : Optional.of("");
    }
    if (!childKey.containsAll(fk.columns())) {
      return Optional.of("");
    }
    if (childKey.size() > SpannerLimits.GOOGLE_STANDARD_SQL.maxKeyColumns()) {
      return Optional.of("its primary key has " + childKey.size() + " columns, more than Spanner's "
          + SpannerLimits.GOOGLE_STANDARD_SQL.maxKeyColumns() + ", so it gets a synthetic key");
    }
    if (!Set.copyOf(fk.referencedColumns()).equals(Set.copyOf(parentKey))) {
      return Optional.of("the foreign key references " + fk.referencedColumns() + ", not the parent's primary key "
          + parentKey);
    }
    if (childKey.size() <= parentKey.size()) {
      return Optional.of("the child's primary key " + childKey + " does not extend the parent's " + parentKey
          + " (one child row per parent: consider merging the tables)");
    }
    // Map each parent key column to the child column that references it.
    List<String> expectedPrefix = new ArrayList<>();
    for (String pk : parentKey) {
      expectedPrefix.add(fk.columns().get(fk.referencedColumns().indexOf(pk)));
    }
    if (!childKey.subList(0, parentKey.size()).equals(expectedPrefix)) {
      return Optional.of("the child's primary key " + childKey + " does not start with " + expectedPrefix
          + " in the parent's key order; reordering the child's key to " + reorderedKey(childKey, expectedPrefix)
          + " would make it interleavable (edit plan.yaml: primaryKey and interleave)");
    }
    for (int i = 0; i < parentKey.size(); i++) {
      PgColumn c = child.column(expectedPrefix.get(i)).orElseThrow();
      PgColumn p = parent.column(parentKey.get(i)).orElseThrow();
      if (!c.type().display().equals(p.type().display())) {
        return Optional.of("column " + c.name() + " is " + c.type().display() + " but the parent's " + p.name()
            + " is " + p.type().display() + "; interleaving needs identical key types");
      }
    }
    for (int i = 0; i < parentKey.size(); i++) {
      String childColumn = expectedPrefix.get(i);
      String parentColumn = parentKey.get(i);
      // Another column named like the parent's key column but for case: whichever of the two NamePlan renames (the
      // lower-case one keeps its name), the key column's Spanner name and the parent's can part ways.
      Optional<PgColumn> clash = child.columns().stream().filter(c -> !c.name().equals(childColumn)
          && c.name().equalsIgnoreCase(parentColumn)).findFirst();
      if (clash.isPresent()) {
        return Optional.of("Spanner needs the child's key column " + childColumn + " to be named " + parentColumn
            + " like the parent's key, but the child already has a column " + clash.get().name()
            + (clash.get().name().equals(parentColumn) ? "" : ", which Spanner does not tell apart from it (names "
            + "ignore case there)"));
      }
    }
    if (fk.onDelete() == PgForeignKey.Action.SET_NULL || fk.onDelete() == PgForeignKey.Action.SET_DEFAULT) {
      return Optional.of("ON DELETE " + fk.onDelete().name().replace('_', ' ') + " cannot be expressed by "
          + "interleaving (only CASCADE or NO ACTION)");
    }
    return Optional.empty();
  }

  private static List<String> reorderedKey(List<String> childKey, List<String> prefix) {
    List<String> reordered = new ArrayList<>(prefix);
    childKey.stream().filter(c -> !prefix.contains(c)).forEach(reordered::add);
    return reordered;
  }

  /** Why the child cannot be interleaved however its parent chain is decided: a cycle, or a hierarchy too deep. */
  private static Optional<String> chainProblem(String child, InterleaveTree proposed) {
    if (proposed.inCycle(child)) {
      return Optional.of("its parent chain forms a cycle");
    }
    int depth = proposed.depth(child);
    if (depth > MAX_DEPTH) {
      return Optional.of("the hierarchy would be " + depth + " levels deep; Spanner allows " + MAX_DEPTH);
    }
    return Optional.empty();
  }
}
