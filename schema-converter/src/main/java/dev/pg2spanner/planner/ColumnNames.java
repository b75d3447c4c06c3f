package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.naming.NamePlan;
import dev.pg2spanner.plan.InterleaveTree;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The final target column names of every table. They are the {@link NamePlan}'s, except where interleaving needs
 * otherwise: Spanner requires an interleaved child's key to start with its parent's key columns <em>by name</em>
 * (checked on the emulator: {@code order_items(order_id, ...)} under {@code orders(id)} is rejected with "does not
 * reference parent key column id"), so the child's referencing columns take the parent's key column names.
 */
final class ColumnNames {

  private final Map<String, Map<String, String>> byTable;
  private final List<Finding> renames;

  private ColumnNames(Map<String, Map<String, String>> byTable, List<Finding> renames) {
    this.byTable = byTable;
    this.renames = renames;
  }

  static ColumnNames of(PgCatalog catalog, NamePlan names, InterleaveAnalyzer.Result interleaving) {
    Map<String, Map<String, String>> byTable = new HashMap<>();
    for (PgTable t : catalog.tables()) {
      Map<String, String> columns = new LinkedHashMap<>();
      t.columns().forEach(c -> columns.put(c.name(), names.column(t, c.name())));
      byTable.put(t.qualifiedName(), columns);
    }
    List<Finding> renames = new ArrayList<>();
    // Parents first, so a grandchild copies names its parent already took from the root.
    for (PgTable child : parentsFirst(catalog, interleaving)) {
      InterleaveAnalyzer.Decision d = interleaving.decisions().get(child.qualifiedName());
      if (d == null) {
        continue;
      }
      Map<String, String> childColumns = byTable.get(child.qualifiedName());
      Map<String, String> parentColumns = byTable.get(d.parent().qualifiedName());
      for (int i = 0; i < d.foreignKey().columns().size(); i++) {
        String childColumn = d.foreignKey().columns().get(i);
        String wanted = parentColumns.get(d.foreignKey().referencedColumns().get(i));
        String current = childColumns.get(childColumn);
        if (current.equals(wanted)) {
          continue;
        }
        boolean taken = childColumns.entrySet().stream().anyMatch(e -> !e.getKey().equals(childColumn)
            && e.getValue().toLowerCase(Locale.ROOT).equals(wanted.toLowerCase(Locale.ROOT)));
        if (taken) {
          // The analyzer only proposes children whose columns can be renamed; this is a safety net.
          throw new IllegalStateException(child.qualifiedName() + " cannot take parent key name " + wanted);
        }
        childColumns.put(childColumn, wanted);
        renames.add(Finding.of(FindingCode.NAME_CHANGED, child.qualifiedName(), childColumn, null,
            "Column " + childColumn + " of " + child.qualifiedName() + " becomes " + wanted + " in Spanner: an "
                + "interleaved child's key must repeat its parent's key column names (" + d.parent().qualifiedName()
                + "." + d.foreignKey().referencedColumns().get(i) + "). Queries that name " + childColumn
                + " must use " + wanted + ".",
            Map.of("from", childColumn, "to", wanted, "parent", d.parent().qualifiedName()))
            // Every query that names the column breaks: a warning, not one note among many (issue 15).
            .withSeverity(dev.pg2spanner.finding.Severity.WARNING));
      }
    }
    return new ColumnNames(byTable, renames);
  }

  /** Source column name → target column name for a table. */
  Map<String, String> of(PgTable t) {
    return byTable.get(t.qualifiedName());
  }

  List<Finding> renames() {
    return renames;
  }

  private static List<PgTable> parentsFirst(PgCatalog catalog, InterleaveAnalyzer.Result interleaving) {
    Map<String, PgTable> byName = new LinkedHashMap<>();
    catalog.tables().forEach(t -> byName.put(t.qualifiedName(), t));
    InterleaveTree tree = InterleaveTree.of(List.copyOf(byName.keySet()), name -> {
      InterleaveAnalyzer.Decision d = interleaving.decisions().get(name);
      return d == null ? null : d.parent().qualifiedName();
    });
    return tree.parentsFirst().stream().map(byName::get).toList();
  }
}
