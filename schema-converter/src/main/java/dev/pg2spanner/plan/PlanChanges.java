package dev.pg2spanner.plan;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a plan decides for {@code migrate}, compared: the hash a run directory records when a run starts, and the
 * differences between two plans in words, so {@code migrate --resume} can refuse a plan edited since the run began
 * and name what changed.
 *
 * <p>Only what changes the tables or the rows counts: names, types, conversions, keys and their strategies,
 * interleaving, sequences, the dialect. What a new {@code plan} run rewrites without changing any of that (when it ran,
 * its statistics, row estimates, findings, reasons, split points) does not, so planning an unchanged source again gives
 * the same hash. Nor do the indexes, foreign keys and CHECKs: they are created after the load, phase by phase, and a
 * resumed run sends only the statements the target does not hold yet — so the way on from a statement Spanner
 * rejects is to edit it out of (or fix it in) the plan and {@code --resume}.
 */
public final class PlanChanges {

  private static final int LISTED = 10;

  private PlanChanges() {}

  /** The SHA-256 of what {@code plan} decides for migrate (see the class comment), as hex. */
  public static String contentHash(Plan plan) {
    String text = PlanFiles.toYaml(decisions(plan));
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
    }
  }

  /**
   * The differences from {@code before} to {@code after} that matter to migrate, in words, e.g. "table public.t:
   * column note added", "table public.t: column a now targets b (was a)"; empty when the two decide the same.
   */
  public static List<String> between(Plan before, Plan after) {
    List<String> changes = new ArrayList<>();
    if (!before.target().equals(after.target())) {
      changes.add("the target settings (dialect, named schemas, nodes) changed from " + describe(before.target())
          + " to " + describe(after.target()));
    }
    Map<String, TablePlan> old = bySource(before.tables(), TablePlan::source);
    Map<String, TablePlan> now = bySource(after.tables(), TablePlan::source);
    for (String table : old.keySet()) {
      if (!now.containsKey(table)) {
        changes.add("table " + table + " is no longer in the plan");
      }
    }
    for (Map.Entry<String, TablePlan> e : now.entrySet()) {
      TablePlan was = old.get(e.getKey());
      if (was == null) {
        changes.add("table " + e.getKey() + " is new in the plan");
      } else {
        changes.addAll(tableChanges(was, e.getValue()));
      }
    }
    if (!before.sequences().equals(after.sequences())) {
      changes.add("the sequences changed");
    }
    if (changes.isEmpty() && !contentHash(before).equals(contentHash(after))) {
      changes.add("a setting of the plan changed");
    }
    if (changes.size() > LISTED) {
      List<String> shown = new ArrayList<>(changes.subList(0, LISTED));
      shown.add("and " + (changes.size() - LISTED) + " more");
      return List.copyOf(shown);
    }
    return List.copyOf(changes);
  }

  private static List<String> tableChanges(TablePlan was, TablePlan now) {
    List<String> changes = new ArrayList<>();
    String name = "table " + now.source();
    if (!was.target().equals(now.target())) {
      changes.add(name + " now becomes " + now.target() + " (was " + was.target() + ")");
    }
    Map<String, ColumnPlan> oldColumns = bySource(was.columns(), PlanChanges::columnKey);
    Map<String, ColumnPlan> newColumns = bySource(now.columns(), PlanChanges::columnKey);
    for (String column : oldColumns.keySet()) {
      if (!newColumns.containsKey(column)) {
        changes.add(name + ": column " + column + " removed");
      }
    }
    for (Map.Entry<String, ColumnPlan> e : newColumns.entrySet()) {
      ColumnPlan a = oldColumns.get(e.getKey());
      ColumnPlan b = e.getValue();
      if (a == null) {
        changes.add(name + ": column " + e.getKey() + " added");
        continue;
      }
      if (!a.target().equals(b.target())) {
        changes.add(name + ": column " + e.getKey() + " now targets " + b.target() + " (was " + a.target() + ")");
      }
      if (!a.targetType().equals(b.targetType())) {
        changes.add(name + ": column " + e.getKey() + " is now " + b.targetType() + " (was " + a.targetType() + ")");
      }
      if (a.conversion() != b.conversion()) {
        changes.add(name + ": column " + e.getKey() + " converts as " + b.conversion() + " (was " + a.conversion()
            + ")");
      }
      if (!Objects.equals(a.sourceType(), b.sourceType())) {
        changes.add(name + ": column " + e.getKey() + " has source type " + b.sourceType() + " (was "
            + a.sourceType() + ")");
      }
      if (a.notNull() != b.notNull() || !Objects.equals(a.defaultExpression(), b.defaultExpression())
          || !Objects.equals(a.generatedExpression(), b.generatedExpression())
          || !Objects.equals(a.uuidNamespace(), b.uuidNamespace())) {
        changes.add(name + ": column " + e.getKey() + " changed (nullability, default or generated expression)");
      }
    }
    if (was.readOnly() != now.readOnly()) {
      changes.add(name + ": how its rows are read changed (ONLY)");
    }
    if (!was.primaryKey().equals(now.primaryKey())) {
      changes.add(name + ": the primary key changed");
    }
    if (!was.keyStrategy().withReason(null).equals(now.keyStrategy().withReason(null))) {
      changes.add(name + ": the key strategy is now " + now.keyStrategy().kind().json() + " (was "
          + was.keyStrategy().kind().json() + ")");
    }
    if (!Objects.equals(was.interleave(), now.interleave())) {
      changes.add(name + ": the interleave parent changed");
    }
    return changes;
  }

  /** A column's identity across plans: its source column, or (for a column the plan adds) "+target". */
  private static String columnKey(ColumnPlan c) {
    return c.source() != null ? c.source() : "+" + c.target();
  }

  private static <T> Map<String, T> bySource(List<T> items, Function<T, String> key) {
    Map<String, T> map = new LinkedHashMap<>();
    items.forEach(i -> map.putIfAbsent(key.apply(i), i));
    return map;
  }

  private static String describe(Plan.Target t) {
    return t.dialect() + (t.namedSchemas() ? ", named schemas" : ", schema prefixes") + ", " + t.nodes() + " node(s)";
  }

  /** The plan without what a new {@code plan} run rewrites while deciding the same. */
  private static Plan decisions(Plan plan) {
    Plan.Source s = plan.source();
    return new Plan(plan.formatVersion(), "", Instant.EPOCH,
        new Plan.Source(s.endpoint(), "", s.schemas(), "", s.excludeTables()), plan.target(),
        plan.tables().stream().map(PlanChanges::decisions).toList(), plan.sequences(), List.of());
  }

  private static TablePlan decisions(TablePlan t) {
    return new TablePlan(t.source(), t.readOnly(), t.target(), null, 0, t.columns(), t.primaryKey(),
        t.keyStrategy().withReason(null), t.interleave(), List.of(), List.of(), List.of(), List.of(), List.of(),
        t.rowHash());
  }
}
