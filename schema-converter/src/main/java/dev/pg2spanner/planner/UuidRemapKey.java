package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.expression.SpannerExpression;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.naming.NamePlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyConsequences;
import dev.pg2spanner.plan.KeyDefault;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.KeyUuid;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The uuid strategy on an integer key, only on request ({@code plan --key-strategy TABLE=uuid}): the key's values
 * become UUIDs derived from the old ids ({@link KeyUuid}), every column that holds a copy of them is remapped the same
 * way, and the old id is kept in a uniquely indexed column.
 */
final class UuidRemapKey {

  private final NamePlan names;
  private final KeyDrafts drafts;
  /** The typed expressions the planner wrote, by source table: which columns each CHECK and generated column read. */
  private final Map<String, TableExpressions> expressions;

  /** The plan's dialect: the findings quote types and expressions as its DDL writes them. */
  private final SpannerDialect dialect;

  UuidRemapKey(NamePlan names, KeyDrafts drafts, Map<String, TableExpressions> expressions, SpannerDialect dialect) {
    this.dialect = dialect;
    this.expressions = expressions;
    this.names = names;
    this.drafts = drafts;
  }

  /**
   * The uuid strategy on an integer key: the key column keeps its name and becomes STRING(36) holding
   * {@link KeyUuid#of} of the old value (new rows: GENERATE_UUID()); the old value stays in an added nullable column
   * with a NULL_FILTERED unique index, for lookups by old id; and every column that holds copies of the key — the
   * interleaved descendants' key prefix and every foreign key that references it, transitively — is remapped with
   * the same namespace, so every reference still matches.
   */
  String apply(KeyDraft d, ColumnPlan lead, PgTable table) {
    String namespace = KeyUuid.namespaceFor(table.qualifiedName()).toString();
    String kept = KeyDrafts.freeName("legacy_" + lead.target(), List.of(d));
    d.columns.add(d.columns.indexOf(lead) + 1, new ColumnPlan(lead.source(), lead.sourceType(), kept, "INT64", false,
        ValueConversion.INT64, null, null));
    String indexName = names.newObject(table, "ux_" + d.base.targetName() + "_" + kept);
    String qualifiedIndex = d.base.targetSchema() == null ? indexName : d.base.targetSchema() + "." + indexName;
    d.indexes.add(new IndexPlan(null, qualifiedIndex, List.of(KeyPart.asc(kept)), true, true, List.of(), null));
    d.strategy = KeyStrategy.uuid(lead.target() + " becomes a UUID derived from the old id (version 5, namespace "
        + namespace + "); the old id is kept in " + kept, kept);
    d.findings.removeIf(f -> f.code() == FindingCode.DEFAULT_NOT_TRANSLATED && lead.source().equals(f.column()));
    List<String> remapped = remapReferences(d, lead.target(), namespace);
    drafts.markDescendants(d, child -> KeyStrategy.keep("interleaved in " + child.base.interleave().parent()
        + ": its key starts with " + d.target() + "'s, now a UUID remapped the same way"));
    return "The plan replaces the values of " + lead.target() + " by UUIDs: each old id becomes the version-5 UUID of "
        + "its decimal text in namespace " + namespace + " (in PostgreSQL: uuid_generate_v5('" + namespace + "', "
        + dev.pg2spanner.source.PgNames.quote(lead.source()) + "::text) with the uuid-ossp extension), and new "
        + "rows get random UUIDs (DEFAULT " + KeyDefault.UUID.expression(dialect) + "). The same mapping is applied to every column that holds the key ("
        + String.join(", ", remapped) + "), so every reference still matches. The old id is kept in " + kept
        + " (" + SpannerType.INT64.ddl(dialect) + ", NULL for new rows) with the unique index " + qualifiedIndex + ". "
        + KeyConsequences.inFinding(KeyConsequences.uuidRemap(lead.target(), kept));
  }

  /**
   * Remaps {@code column} of {@code root} and, transitively, every column that holds its values: the same-named key
   * prefix of interleaved children and the referencing side of every foreign key.
   *
   * @return the remapped columns as "table.column", in the order they were reached
   */
  private List<String> remapReferences(KeyDraft root, String column, String namespace) {
    Map<String, Map.Entry<KeyDraft, String>> reached = new LinkedHashMap<>();
    java.util.ArrayDeque<Map.Entry<KeyDraft, String>> work = new java.util.ArrayDeque<>();
    work.add(Map.entry(root, column));
    while (!work.isEmpty()) {
      Map.Entry<KeyDraft, String> next = work.poll();
      KeyDraft d = next.getKey();
      String name = next.getValue();
      if (reached.putIfAbsent(d.target() + "." + name, next) != null) {
        continue;
      }
      for (KeyDraft child : drafts.all()) {
        if (child.base.interleave() != null && child.base.interleave().parent().equals(d.target())
            && d.primaryKey.stream().anyMatch(p -> p.column().equals(name))
            && child.primaryKey.stream().anyMatch(p -> p.column().equals(name))) {
          work.add(Map.entry(child, name));
        }
      }
      for (KeyDraft referencing : drafts.all()) {
        for (ForeignKeyPlan fk : referencing.foreignKeys) {
          int at = fk.referencedTable().equals(d.target()) ? fk.referencedColumns().indexOf(name) : -1;
          if (at >= 0) {
            work.add(Map.entry(referencing, fk.columns().get(at)));
          }
        }
      }
    }
    // Every column reached must be remappable, and everything it references must be remapped with it: one column
    // cannot hold UUIDs for one reference and integers for another.
    String request = "--key-strategy " + root.base.source() + "=uuid";
    for (Map.Entry<KeyDraft, String> entry : reached.values()) {
      KeyDraft d = entry.getKey();
      String name = entry.getValue();
      ColumnPlan c = d.column(name).orElseThrow();
      if (c.conversion() != ValueConversion.INT64 || c.generatedExpression() != null || c.source() == null) {
        throw new KeyStrategyRequestException(request + ": column " + d.base.source() + "." + c.source() + " ("
            + c.sourceType() + ") holds copies of the remapped key, but only plain integer columns can be remapped; "
            + "choose bit-reversed or hash-shard for " + root.base.source());
      }
      for (ForeignKeyPlan fk : d.foreignKeys) {
        int at = fk.columns().indexOf(name);
        String referenced = at < 0 ? null : fk.referencedTable() + "." + fk.referencedColumns().get(at);
        if (referenced != null && !reached.containsKey(referenced)) {
          throw new KeyStrategyRequestException(request + ": column " + d.base.source() + "." + c.source()
              + " would become a UUID of " + root.base.source() + "'s key, but foreign key " + fk.source()
              + " makes it reference " + referenced + ", which keeps its integer values, so that reference could "
              + "not match. " + (d == root ? "Request uuid for " + fk.referencedTable() + " instead (its remap "
                  + "reaches this column too), or choose" : "Choose") + " bit-reversed or hash-shard for "
              + root.base.source());
        }
      }
      KeyDraft parent = d.base.interleave() == null ? null : drafts.get(d.base.interleave().parent());
      if (parent != null && parent.primaryKey.stream().anyMatch(p -> p.column().equals(name))
          && !reached.containsKey(parent.target() + "." + name)) {
        throw new KeyStrategyRequestException(request + ": column " + d.base.source() + "." + c.source()
            + " would become a UUID, but it is also part of the key " + d.target() + " shares with its interleave "
            + "parent " + parent.target() + ", which keeps its integer values; choose bit-reversed or hash-shard for "
            + root.base.source());
      }
    }
    List<String> remapped = new ArrayList<>();
    for (Map.Entry<KeyDraft, String> entry : reached.values()) {
      KeyDraft d = entry.getKey();
      remapColumn(d, entry.getValue(), namespace, d == root && entry.getValue().equals(column));
      remapped.add(d.target() + "." + entry.getValue());
    }
    return remapped;
  }

  private void remapColumn(KeyDraft d, String name, String namespace, boolean isTheKey) {
    ColumnPlan c = d.column(name).orElseThrow();
    String table = d.base.source();
    String dropped = isTheKey || c.defaultExpression() == null ? null
        : d.keyExpressions.get(name) instanceof KeyDefault keyDefault ? keyDefault.expression(dialect)
        : spelled(expressions.get(table).defaultOf(table, name));
    ColumnPlan remapped = new ColumnPlan(c.source(), c.sourceType(), c.target(), "STRING(36)", c.notNull(),
        ValueConversion.KEY_UUID, null, null, namespace);
    if (isTheKey) {
      d.replaceColumn(remapped, KeyDefault.UUID);
    } else {
      d.replaceColumn(remapped);
    }
    List<String> droppedChecks = new ArrayList<>();
    TableExpressions typed = expressions.get(table);
    // A CHECK on the old integer (id > 0) cannot hold for a STRING; it is left out rather than mistranslated.
    d.checks.removeIf(k -> {
      boolean hit = typed.checkOf(table, k.target()).columns().contains(name);
      if (hit) {
        droppedChecks.add(k.target() + " (" + spelled(typed.checkOf(table, k.target())) + ")");
      }
      return hit;
    });
    // A generated column computed from the old integer cannot be computed from the UUID: its values are copied.
    List<String> copied = new ArrayList<>();
    for (ColumnPlan g : List.copyOf(d.columns)) {
      if (g.source() != null && g.generatedExpression() != null
          && typed.generatedOf(table, g.target()).columns().contains(name)) {
        d.replaceColumn(new ColumnPlan(g.source(), g.sourceType(), g.target(), g.targetType(), g.notNull(),
            g.conversion(), null, null, g.uuidNamespace()));
        copied.add(g.target() + " (" + spelled(typed.generatedOf(table, g.target())) + ")");
      }
    }
    d.findings.add(Finding.of(FindingCode.KEY_REMAPPED, table, c.source(), null,
        "Column " + c.source() + " of " + table + " becomes " + SpannerType.string(36).ddl(dialect)
            + ": each integer value is replaced by the UUID of "
            + "the key it " + (isTheKey ? "is" : "references") + " (version 5, namespace " + namespace + "), so "
            + (isTheKey ? "rows keep their identity and every reference to them" : "the reference")
            + " still matches."
            + (dropped == null ? "" : " Its default (" + dropped + ") is not kept: it produced integers.")
            + (droppedChecks.isEmpty() ? "" : " CHECK constraints on the old integer are left out: "
                + String.join("; ", droppedChecks) + ".")
            + (copied.isEmpty() ? "" : " Generated columns computed from it become plain columns: their current "
                + "values are copied and new rows must supply them: " + String.join("; ", copied) + "."),
        Map.of("namespace", namespace, "conversion", ValueConversion.KEY_UUID.name())));
  }

  /** An expression as the plan's dialect writes it, for a finding; its GoogleSQL where that dialect has no form. */
  private String spelled(SpannerExpression e) {
    return e.in(dialect).orElseGet(e::googleSql);
  }
}
