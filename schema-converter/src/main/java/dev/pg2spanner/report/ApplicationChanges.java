package dev.pg2spanner.report;

import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyConsequences;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every change an application must make to keep working against the migrated database, table by table, derived
 * from the plan itself (not from findings, so an edit to plan.yaml shows here too): renamed tables and columns
 * (interleaved children repeat their parent's key names), added columns (shard prefixes, synthetic keys, kept old
 * ids), changed primary keys, and columns whose values read back differently (text fallbacks, UUID keys, wall-clock
 * timestamps).
 */
public final class ApplicationChanges {

  /** Conversions whose values an application reads back in another form than PostgreSQL gave it. */
  /** Worded without type names: the change's line names the column's Spanner type in the plan's own dialect. */
  private static final Map<ValueConversion, String> VALUE_CHANGES = Map.ofEntries(
      Map.entry(ValueConversion.NUMERIC_TEXT, "numbers arrive as their decimal text"),
      Map.entry(ValueConversion.JSON_TEXT, "documents arrive as their exact text, not as a JSON type"),
      Map.entry(ValueConversion.TEXT_OUTPUT, "values arrive as PostgreSQL's text output"),
      Map.entry(ValueConversion.TIME_TEXT, "times of day arrive as text"),
      Map.entry(ValueConversion.INTERVAL_ISO8601, "intervals arrive as ISO 8601 text"),
      Map.entry(ValueConversion.BIT_TEXT, "bit strings arrive as text of 0s and 1s"),
      Map.entry(ValueConversion.UUID_TEXT, "UUIDs arrive as text"),
      Map.entry(ValueConversion.ENUM_TEXT, "enum labels arrive as text"),
      Map.entry(ValueConversion.KEY_UUID, "integer ids become UUIDs derived from them"),
      Map.entry(ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC,
          "timestamp without time zone becomes a timestamp with time zone, its wall clock read as UTC"),
      Map.entry(ValueConversion.MONEY_NUMERIC, "money arrives as NUMERIC without currency formatting"));

  /**
   * One change.
   *
   * @param label what kind of change, e.g. "Column renamed"
   * @param detail the sentence that says what it means for the application
   */
  public record Change(String label, String detail) {
    /** "label: detail", for plain text. */
    public String text() {
      return label + ": " + detail;
    }
  }

  private ApplicationChanges() {}

  /** Table target → the changes, in plan order; tables with none are left out. */
  public static Map<String, List<Change>> of(Plan plan) {
    Map<String, List<Change>> out = new LinkedHashMap<>();
    for (TablePlan t : plan.tables()) {
      List<Change> changes = of(plan, t);
      if (!changes.isEmpty()) {
        out.put(t.target(), changes);
      }
    }
    return out;
  }

  /** The changes of one table of {@code plan}, in a stable order: names, key, interleaving, columns. */
  public static List<Change> of(Plan plan, TablePlan t) {
    {
      List<Change> changes = new ArrayList<>();
      String sourceName = t.source().substring(t.source().indexOf('.') + 1);
      String targetName = t.targetName();
      if (!sourceName.equals(targetName)) {
        changes.add(new Change("Table renamed", "from " + t.source() + " to " + t.target() + "."));
      }
      keyChange(plan, t).ifPresent(changes::add);
      if (t.interleave() != null) {
        changes.add(new Change("Interleaved in " + t.interleave().parent(), "a row can only be inserted after its "
            + "parent row exists; " + (t.interleave().onDelete() == dev.pg2spanner.plan.Interleave.OnDelete.CASCADE
                ? "deleting a parent row deletes its rows here." : "a parent row cannot be deleted while it has "
                + "rows here.")));
      }
      if (t.readOnly()) {
        changes.add(new Change("Read with FROM ONLY", "rows of its inheritance children are not part of this "
            + "table."));
      }
      for (ColumnPlan c : t.columns()) {
        if (c.source() == null) {
          changes.add(new Change("Column added", c.target() + " (" + c.targetType() + ")"
              + (c.generatedExpression() != null ? ", generated: nothing to write, but SELECT * returns it."
                  : c.defaultExpression() != null ? ", filled by its default " + c.defaultExpression()
                      + " for new rows; SELECT * returns it."
                  : ", written by the migration; new rows must supply it.")));
          continue;
        }
        if (!c.source().equals(c.target())) {
          changes.add(new Change("Column renamed", "from " + c.source() + " to " + c.target()
              + (renamedForInterleave(t, c) ? " (an interleaved child repeats its parent's key names)" : "") + "."));
        }
        String valueChange = VALUE_CHANGES.get(c.conversion());
        if (valueChange != null) {
          changes.add(new Change("Values change form", c.target() + " (" + c.sourceType() + " → " + c.targetType()
              + "): " + valueChange + "."));
        }
      }
      return changes;
    }
  }

  /** A title and a short layout, then the consequence {@link KeyConsequences} writes once; none for a kept key. */
  private static java.util.Optional<Change> keyChange(Plan plan, TablePlan t) {
    KeyStrategy s = t.keyStrategy();
    String first = t.primaryKey().isEmpty() ? "?" : t.primaryKey().get(0).column();
    String key = t.primaryKey().stream().map(p -> p.column() + (p.descending() ? " DESC" : ""))
        .collect(java.util.stream.Collectors.joining(", "));
    return KeyConsequences.of(plan, t, java.util.function.UnaryOperator.identity()).map(consequence -> switch (s.kind()) {
      case BIT_REVERSED -> new Change("New ids come from a bit-reversed sequence", s.sequence() + "; existing ids "
          + "are kept. " + consequence);
      case HASH_SHARD -> new Change("Hash-sharded key", "(" + key + ") in " + s.shards() + " shards. " + consequence);
      case UUID -> new Change("Random UUID key", "in " + first + (KeyConsequences.uuidRemapped(t)
          ? "; existing keys are remapped in every referencing column. " : " for new rows; existing values are kept. ")
          + consequence);
      case SWAP -> new Change("Key reordered", "to (" + key + "). " + consequence);
      case SYNTHETIC -> new Change("Key added", "the plan adds " + first + " as the primary key. " + consequence);
      case KEEP -> throw new IllegalStateException("a kept key has no consequence");
    });
  }

  private static List<String> keyColumns(TablePlan t) {
    return t.primaryKey().stream().map(k -> k.column()).toList();
  }

  private static boolean renamedForInterleave(TablePlan t, ColumnPlan c) {
    return t.interleave() != null && keyColumns(t).contains(c.target())
        && !c.source().toLowerCase(Locale.ROOT).equals(c.target().toLowerCase(Locale.ROOT));
  }

  /** The Markdown section. */
  static void markdown(StringBuilder md, Plan plan) {
    md.append("## Application-visible changes\n\n");
    Map<String, List<Change>> changes = of(plan);
    if (changes.isEmpty()) {
      md.append("None: every table and column keeps its name, key and values.\n\n");
      return;
    }
    md.append("What an application's queries and writes must change, table by table (from plan.yaml as written; "
        + "edit the plan to avoid a change).\n\n");
    for (Map.Entry<String, List<Change>> e : changes.entrySet()) {
      md.append("- **").append(MarkdownReport.esc(e.getKey())).append("**\n");
      for (Change change : e.getValue()) {
        md.append("  - ").append(MarkdownReport.esc(change.text())).append('\n');
      }
    }
    md.append('\n');
  }

}
