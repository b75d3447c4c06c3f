package dev.pg2spanner.report;

import dev.pg2spanner.plan.ColumnPlan;
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
  private static final Map<ValueConversion, String> VALUE_CHANGES = Map.ofEntries(
      Map.entry(ValueConversion.NUMERIC_TEXT, "numbers arrive as their decimal text (STRING)"),
      Map.entry(ValueConversion.JSON_TEXT, "documents arrive as their exact text (STRING), not JSON"),
      Map.entry(ValueConversion.TEXT_OUTPUT, "values arrive as PostgreSQL's text output (STRING)"),
      Map.entry(ValueConversion.TIME_TEXT, "times of day arrive as text (STRING)"),
      Map.entry(ValueConversion.INTERVAL_ISO8601, "intervals arrive as ISO 8601 text (STRING)"),
      Map.entry(ValueConversion.BIT_TEXT, "bit strings arrive as text of 0s and 1s (STRING)"),
      Map.entry(ValueConversion.UUID_TEXT, "UUIDs arrive as text (STRING(36))"),
      Map.entry(ValueConversion.ENUM_TEXT, "enum labels arrive as text (STRING)"),
      Map.entry(ValueConversion.KEY_UUID, "integer ids become UUIDs derived from them"),
      Map.entry(ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC,
          "timestamp without time zone becomes a TIMESTAMP read as UTC wall clock"),
      Map.entry(ValueConversion.MONEY_NUMERIC, "money arrives as NUMERIC without currency formatting"));

  private ApplicationChanges() {}

  /** Table target → the changes, in plan order; tables with none are left out. */
  public static Map<String, List<String>> of(Plan plan) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (TablePlan t : plan.tables()) {
      List<String> changes = new ArrayList<>();
      String sourceName = t.source().substring(t.source().indexOf('.') + 1);
      String targetName = t.targetName();
      if (!sourceName.equals(targetName)) {
        changes.add("table " + t.source() + " is named " + t.target());
      }
      if (t.keyStrategy().kind() != KeyStrategy.Kind.KEEP) {
        changes.add("primary key " + t.keyStrategy().kind().json() + " (" + String.join(", ", keyColumns(t))
            + "): " + keyChange(t.keyStrategy().kind()));
      }
      if (t.interleave() != null) {
        changes.add("interleaved in " + t.interleave().parent() + ": a row can only be inserted after its parent "
            + "row exists" + (t.interleave().onDelete() == dev.pg2spanner.plan.Interleave.OnDelete.CASCADE
                ? ", and deleting the parent deletes it" : ""));
      }
      for (ColumnPlan c : t.columns()) {
        if (c.source() == null) {
          changes.add("new column " + c.target() + " (" + c.targetType() + ")"
              + (c.generatedExpression() != null ? ", generated: nothing to write, but SELECT * returns it"
                  : c.defaultExpression() != null ? ", filled by its default " + c.defaultExpression()
                      + " for new rows; SELECT * returns it"
                  : ", written by the migration; new rows must supply it"));
          continue;
        }
        if (!c.source().equals(c.target())) {
          changes.add("column " + c.source() + " is named " + c.target()
              + (renamedForInterleave(t, c) ? " (an interleaved child repeats its parent's key names)" : ""));
        }
        String valueChange = VALUE_CHANGES.get(c.conversion());
        if (valueChange != null) {
          changes.add("column " + c.target() + " (" + c.sourceType() + " → " + c.targetType() + "): " + valueChange);
        }
      }
      if (!changes.isEmpty()) {
        out.put(t.target(), changes);
      }
    }
    return out;
  }

  private static String keyChange(KeyStrategy.Kind kind) {
    return switch (kind) {
      case BIT_REVERSED -> "new ids come from a bit-reversed Spanner sequence, so they no longer grow; code that "
          + "orders by id or takes the largest id as the newest must use a timestamp instead";
      case HASH_SHARD -> "the key starts with a generated shard column; reads by the old key still work, range scans "
          + "in key order must query every shard";
      case UUID -> "integer ids become UUIDs derived from them (the old id is kept in its own column); every "
          + "referencing column changes the same way";
      case SWAP -> "the key's columns are reordered; range scans on the old leading column need the index or the "
          + "new order";
      case SYNTHETIC -> "a synthetic key column is added (the source table had none)";
      case KEEP -> "unchanged";
    };
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
    Map<String, List<String>> changes = of(plan);
    if (changes.isEmpty()) {
      md.append("None: every table and column keeps its name, key and values.\n\n");
      return;
    }
    md.append("What an application's queries and writes must change, table by table (from plan.yaml as written; "
        + "edit the plan to avoid a change).\n\n");
    for (Map.Entry<String, List<String>> e : changes.entrySet()) {
      md.append("- **").append(MarkdownReport.esc(e.getKey())).append("**\n");
      for (String change : e.getValue()) {
        md.append("  - ").append(MarkdownReport.esc(change)).append('\n');
      }
    }
    md.append('\n');
  }

  /** Conversions listed as value changes (for tests and docs). */
  static Set<ValueConversion> valueChanging() {
    return VALUE_CHANGES.keySet();
  }
}
