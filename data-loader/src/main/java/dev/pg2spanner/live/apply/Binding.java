package dev.pg2spanner.live.apply;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.PgOutput;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.convert.ValueRejection;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.plan.TablePlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the rows of one streamed relation (as its Relation message describes them) become rows of one planned table:
 * which tuple column feeds which converter column, which tuple columns name the row, and how its Spanner key is
 * built. Made once per Relation message, after checking the relation still has the shape the load read.
 */
final class Binding {

  final PgOutput.Relation relation;
  final SourceShape.Relation shape;
  final TablePlan table;
  final TableConverter converter;
  /** For each converter column: its position in the relation's tuples, or -1 when the stream does not send it. */
  final int[] tupleColumn;
  /** Null when the Spanner key cannot be built from a tuple (a synthetic key): rows are then found by content. */
  final SpannerKeys keys;
  /**
   * The relation's replica-identity columns: the primary key's (DEFAULT), a unique index's (USING INDEX), or every
   * column (FULL). An old tuple the stream sends for an update or delete carries only these; its other columns
   * arrive as NULL, so nothing else in it may be read as the row's value.
   */
  final List<Integer> identity;
  /**
   * True when the replica identity holds every column the Spanner key needs: a key-only old tuple then names the
   * Spanner row directly. False (e.g. USING INDEX on another unique index) means rows are found by their identity
   * columns in Spanner, and an update that keeps the identity may still have moved the row to another key.
   */
  final boolean keyFromIdentity;
  /** Secondary indexes of the table, for Spanner's mutation count. */
  final int indexes;
  private final Map<String, Integer> converterIndex = new HashMap<>();

  private Binding(PgOutput.Relation relation, SourceShape.Relation shape, TablePlan table,
      TableConverter converter) {
    this.relation = relation;
    this.shape = shape;
    this.table = table;
    this.converter = converter;
    this.indexes = table.indexes().size();
    List<String> sources = converter.sourceColumns();
    List<String> targets = converter.loadedColumns();
    this.tupleColumn = new int[sources.size()];
    for (int i = 0; i < sources.size(); i++) {
      tupleColumn[i] = indexOf(relation, sources.get(i));
      converterIndex.put(targets.get(i), i);
    }
    List<Integer> identityColumns = new ArrayList<>();
    for (int i = 0; i < relation.columns().size(); i++) {
      if (relation.columns().get(i).key()) {
        identityColumns.add(i);
      }
    }
    this.identity = List.copyOf(identityColumns);
    this.keys = converter.rowKey().kind() == RowKey.Kind.SYNTHETIC ? null : SpannerKeys.of(table, converter.dialect());
    boolean covered = keys != null;
    if (keys != null) {
      for (String column : keys.inputColumns()) {
        int c = converterColumn(column);
        covered &= c >= 0 && tupleColumn[c] >= 0 && identityColumns.contains(tupleColumn[c]);
      }
    }
    this.keyFromIdentity = covered;
  }

  /** True when converter column {@code c} is sent as part of the replica identity (so an old tuple carries it). */
  boolean isIdentity(int c) {
    return c >= 0 && tupleColumn[c] >= 0 && identity.contains(tupleColumn[c]);
  }

  /**
   * Binds a relation after checking it against the shape the load read.
   *
   * @throws Pg2SpannerException PLAN_INVALID naming the table and what changed when the shapes differ (a column
   *     added, dropped, renamed or retyped on the source since the snapshot)
   */
  static Binding of(PgOutput.Relation relation, SourceShape.Relation shape, TablePlan table,
      TableConverter converter) {
    List<String> problems = differences(relation, shape);
    if (!problems.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.PLAN_INVALID, NextStep.RESUME, "the source table " + shape.qualifiedName()
          + " changed while its changes were streamed: " + String.join("; ", problems) + ". The plan's converters "
          + "no longer match its rows, so streaming stopped before applying them (nothing was lost: the slot keeps "
          + "the changes). Undo the change on the source and rerun migrate --live --resume, or start over: plan "
          + "again and migrate into a new database");
    }
    return new Binding(relation, shape, table, converter);
  }

  /** How a relation's announced columns differ from the shape the stream had, in words; empty when they match. */
  static List<String> differences(PgOutput.Relation relation, SourceShape.Relation shape) {
    List<String> problems = new ArrayList<>();
    Map<String, SourceShape.Column> expected = new HashMap<>();
    for (SourceShape.Column c : shape.columns()) {
      expected.put(c.name(), c);
    }
    Set<String> seen = new java.util.HashSet<>();
    for (PgOutput.Column c : relation.columns()) {
      seen.add(c.name());
      SourceShape.Column e = expected.get(c.name());
      if (e == null) {
        problems.add("column " + c.name() + " was added");
      } else if (e.typeOid() != c.typeOid() || e.typeModifier() != c.typeModifier()) {
        problems.add("column " + c.name() + " changed type (it was " + e.typeName() + ")");
      }
    }
    for (SourceShape.Column e : shape.columns()) {
      if (!seen.contains(e.name())) {
        problems.add("column " + e.name() + " was dropped or renamed");
      }
    }
    if (!relation.qualifiedName().equals(shape.qualifiedName())) {
      problems.add(0, "the table was renamed to " + relation.qualifiedName());
    }
    return problems;
  }

  private static int indexOf(PgOutput.Relation relation, String column) {
    for (int i = 0; i < relation.columns().size(); i++) {
      if (relation.columns().get(i).name().equals(column)) {
        return i;
      }
    }
    return -1;
  }

  /** The converter column of a target column, or -1. */
  int converterColumn(String target) {
    return converterIndex.getOrDefault(target, -1);
  }

  /** The value of one target column in a tuple (null when the tuple does not carry it). */
  Value value(PgOutput.Tuple tuple, String target) throws ValueRejection {
    int c = converterColumn(target);
    if (c < 0 || tupleColumn[c] < 0) {
      return null;
    }
    int t = tupleColumn[c];
    return switch (tuple.kind(t)) {
      case PgOutput.Tuple.TEXT -> converter.parseColumn(c, tuple.text(t));
      case PgOutput.Tuple.NULL -> converter.parseColumn(c, null);
      default -> null;
    };
  }

  /**
   * The Spanner key an old tuple (key-only or whole) names, or null when the replica identity does not hold the key's
   * inputs (then the row is found by its identity columns).
   */
  Key oldKey(PgOutput.Tuple old) throws ValueRejection {
    return keyFromIdentity ? key(old) : null;
  }

  /**
   * The Spanner key of the row a whole tuple describes (a new row), or null when the tuple lacks a key input (then
   * the row is found by content).
   */
  Key key(PgOutput.Tuple tuple) throws ValueRejection {
    if (keys == null) {
      return null;
    }
    Map<String, Value> values = new HashMap<>();
    for (String column : keys.inputColumns()) {
      Value v = value(tuple, column);
      if (v == null) {
        return null;
      }
      values.put(column, v);
    }
    try {
      return keys.key(values::get);
    } catch (IllegalArgumentException e) {
      throw new ValueRejection(e.getMessage(), null);
    }
  }

  /**
   * The source texts of the Spanner key's inputs ({@link SpannerKeys#inputColumns()}, in that order) in a tuple: what
   * names the row for continuous verification, on both sides (the source is queried by them, the Spanner key computed
   * from them). Null when the rows of this table are not named by key (no key, or a replica identity that does not
   * hold the key's inputs) or the tuple lacks one of them.
   */
  String[] keyTexts(PgOutput.Tuple tuple) {
    if (!keyFromIdentity) {
      return null;
    }
    List<String> inputs = keys.inputColumns();
    String[] texts = new String[inputs.size()];
    for (int i = 0; i < texts.length; i++) {
      int t = tupleColumn[converterColumn(inputs.get(i))];
      if (tuple.kind(t) != PgOutput.Tuple.TEXT) {
        return null;
      }
      texts[i] = tuple.text(t);
    }
    return texts;
  }

  /** True when the stream never sends some converter column (a generated column on the source). */
  boolean hasUnpublishedColumns() {
    for (int t : tupleColumn) {
      if (t < 0) {
        return true;
      }
    }
    return false;
  }
}
