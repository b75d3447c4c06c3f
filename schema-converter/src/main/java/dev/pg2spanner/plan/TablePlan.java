package dev.pg2spanner.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.pg2spanner.finding.Finding;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One table: where it comes from, what it becomes, and the decisions about its key.
 *
 * @param source the source table, "schema.name" (unquoted, case preserved)
 * @param readOnly true when the source must be read with {@code FROM ONLY} (inheritance parent)
 * @param target the Spanner table name, including its named schema when there is one ("billing.invoices")
 * @param rowsEstimate the source's row estimate, or null when unknown
 * @param bytesEstimate the source's heap + TOAST size in bytes
 * @param columns every Spanner column, in order
 * @param primaryKey the Spanner primary key, in order (after the key strategy)
 * @param keyStrategy how the key avoids hotspots (or why it is kept)
 * @param interleave the parent, or null when the table is top-level
 * @param indexes secondary indexes, created after the load
 * @param foreignKeys foreign keys, created after the indexes
 * @param checks CHECK constraints (added after the load, migration V4)
 * @param findings what a person should know about this table
 * @param splitPoints key values at which real Spanner splits the empty table before the load (pre-splitting, so
 *     that the bulk load starts spread over the instance's servers): each a prefix of the primary key, one text per
 *     key part in key order (INT64 as decimal, STRING as is), ascending; empty for tables too small to need them.
 *     {@code migrate} adds them through the admin API on real Spanner and skips them on the emulator
 * @param rowHash for a table planned without a primary key: its content-hash column and index, by which live changes
 *     find their rows ({@link RowHash}); null otherwise (and in plans written before issue 30)
 */
@JsonPropertyOrder({"source", "readOnly", "target", "rowsEstimate", "bytesEstimate", "columns", "primaryKey",
    "keyStrategy", "interleave", "indexes", "foreignKeys", "checks", "splitPoints", "rowHash", "findings"})
public record TablePlan(
    String source,
    boolean readOnly,
    String target,
    Double rowsEstimate,
    long bytesEstimate,
    List<ColumnPlan> columns,
    List<KeyPart> primaryKey,
    KeyStrategy keyStrategy,
    // Written as `interleave: null` for top-level tables, so a person sees where a parent would go.
    @JsonInclude(JsonInclude.Include.ALWAYS) Interleave interleave,
    List<IndexPlan> indexes,
    List<ForeignKeyPlan> foreignKeys,
    List<CheckPlan> checks,
    List<Finding> findings,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<List<String>> splitPoints,
    @JsonInclude(JsonInclude.Include.NON_NULL) RowHash rowHash) {

  @com.fasterxml.jackson.annotation.JsonCreator
  public TablePlan {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
    columns = List.copyOf(columns);
    primaryKey = List.copyOf(primaryKey);
    Objects.requireNonNull(keyStrategy, "keyStrategy");
    indexes = indexes == null ? List.of() : List.copyOf(indexes);
    foreignKeys = foreignKeys == null ? List.of() : List.copyOf(foreignKeys);
    checks = checks == null ? List.of() : List.copyOf(checks);
    findings = findings == null ? List.of() : List.copyOf(findings);
    splitPoints = splitPoints == null ? List.of() : splitPoints.stream().map(List::copyOf).toList();
  }

  /** A table without split points. */
  public TablePlan(String source, boolean readOnly, String target, Double rowsEstimate, long bytesEstimate,
      List<ColumnPlan> columns, List<KeyPart> primaryKey, KeyStrategy keyStrategy, Interleave interleave,
      List<IndexPlan> indexes, List<ForeignKeyPlan> foreignKeys, List<CheckPlan> checks, List<Finding> findings) {
    this(source, readOnly, target, rowsEstimate, bytesEstimate, columns, primaryKey, keyStrategy, interleave, indexes,
        foreignKeys, checks, findings, List.of(), null);
  }

  /** A table without a row hash (every table with a primary key). */
  public TablePlan(String source, boolean readOnly, String target, Double rowsEstimate, long bytesEstimate,
      List<ColumnPlan> columns, List<KeyPart> primaryKey, KeyStrategy keyStrategy, Interleave interleave,
      List<IndexPlan> indexes, List<ForeignKeyPlan> foreignKeys, List<CheckPlan> checks, List<Finding> findings,
      List<List<String>> splitPoints) {
    this(source, readOnly, target, rowsEstimate, bytesEstimate, columns, primaryKey, keyStrategy, interleave, indexes,
        foreignKeys, checks, findings, splitPoints, null);
  }

  /** This table with {@code points} as its split points. */
  public TablePlan withSplitPoints(List<List<String>> points) {
    return new TablePlan(source, readOnly, target, rowsEstimate, bytesEstimate, columns, primaryKey, keyStrategy,
        interleave, indexes, foreignKeys, checks, findings, points, rowHash);
  }

  /** This table with {@code hash} as its row hash (null: none). */
  public TablePlan withRowHash(RowHash hash) {
    return new TablePlan(source, readOnly, target, rowsEstimate, bytesEstimate, columns, primaryKey, keyStrategy,
        interleave, indexes, foreignKeys, checks, findings, splitPoints, hash);
  }

  public Optional<ColumnPlan> column(String targetName) {
    return columns.stream().filter(c -> c.target().equals(targetName)).findFirst();
  }

  /** The target schema, or null for the default schema. */
  public String targetSchema() {
    int dot = target.indexOf('.');
    return dot < 0 ? null : target.substring(0, dot);
  }

  /** The target table name without its schema. */
  public String targetName() {
    int dot = target.indexOf('.');
    return dot < 0 ? target : target.substring(dot + 1);
  }
}
