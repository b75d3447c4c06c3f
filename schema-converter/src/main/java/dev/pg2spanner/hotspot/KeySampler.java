package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.source.PgNames;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a bounded sample of some columns in physical (arrival) order: the whole table when it is small, else a
 * repeatable {@code TABLESAMPLE SYSTEM} of about {@code maxRows} rows, so the cost stays flat however large the
 * table is; and the last {@link #TAIL_ROWS} keys of the primary key and of each index a sampled column leads, read
 * backwards through the index with the age of the transaction that wrote each row ({@link KeyTail}).
 */
public final class KeySampler {

  private static final Set<String> INTEGERS = Set.of("int2", "int4", "int8", "oid");
  private static final Set<String> TEMPORAL = Set.of("date", "timestamp", "timestamptz");

  private final int maxRows;

  /** @param maxRows about how many rows to read per table (≥ 100) */
  public KeySampler(int maxRows) {
    if (maxRows < 100) {
      throw new IllegalArgumentException("maxRows must be at least 100");
    }
    this.maxRows = maxRows;
  }

  /**
   * Samples {@code columns} (source names) of {@code table} in physical order (one query), then reads the tails
   * in key order: the primary key's and, for each sampled column that leads a plain B-tree index, that index's
   * (one short index scan each).
   */
  public KeySample sample(Connection c, PgTable table, List<String> columns) throws SQLException {
    if (columns.isEmpty()) {
      return KeySample.empty(table.qualifiedName());
    }
    StringBuilder select = new StringBuilder("SELECT ");
    List<Kind> kinds = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      Kind kind = kindOf(column(table, columns.get(i)).type());
      kinds.add(kind);
      select.append(read(column(table, columns.get(i)), kind)).append(" AS v").append(i).append(", ");
    }
    double rows = table.stats().rowEstimate() == null ? -1 : table.stats().rowEstimate();
    boolean sampled = rows > maxRows * 1.5;
    String from = from(table);
    String sampling = sampled
        ? " TABLESAMPLE SYSTEM (" + String.format(Locale.ROOT, "%.6f", Math.min(100.0, 100.0 * maxRows / rows))
            + ") REPEATABLE (17)"
        : "";
    // ctid -> (block, offset) so rows sort in physical order; tableoid keeps partitions apart.
    String sql = select + "tableoid::bigint AS part, (ctid::text::point)[0]::bigint AS blk, "
        + "(ctid::text::point)[1]::bigint AS pos FROM " + from + sampling + " ORDER BY part, blk, pos LIMIT "
        + (maxRows * 2);
    List<List<Object>> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        List<Object> row = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
          row.add(value(rs, "v" + i, kinds.get(i)));
        }
        out.add(row);
      }
    }
    List<KeyTail> tails = new ArrayList<>();
    for (List<String> orderedBy : tailOrders(table, columns)) {
      tails.add(tail(c, table, orderedBy));
    }
    return new KeySample(table.qualifiedName(), columns, out, !sampled, tails);
  }

  /** Rows read from the end of each key, largest first. */
  public static final int TAIL_ROWS = 1000;

  /**
   * What to read in key order: the primary key, then each sampled column that leads a plain B-tree index (not
   * partial, not an expression) and does not lead the primary key. Each is ordered by an index, so reading its end
   * is one short index scan.
   */
  static List<List<String>> tailOrders(PgTable table, List<String> columns) {
    List<List<String>> orders = new ArrayList<>();
    java.util.Set<String> leads = new java.util.HashSet<>();
    if (table.primaryKey() != null) {
      orders.add(table.primaryKey().columns());
      leads.add(table.primaryKey().columns().get(0));
    }
    for (dev.pg2spanner.catalog.PgIndex index : table.indexes()) {
      if (!index.method().equals("btree") || index.predicate() != null || !index.valid()
          || index.elements().isEmpty() || index.elements().get(0).isExpression()) {
        continue;
      }
      String lead = index.elements().get(0).column();
      if (columns.contains(lead) && leads.add(lead)) {
        orders.add(List.of(lead));
      }
    }
    return orders;
  }

  private KeyTail tail(Connection c, PgTable table, List<String> orderedBy) throws SQLException {
    StringBuilder select = new StringBuilder("SELECT ");
    StringBuilder order = new StringBuilder();
    List<Kind> kinds = new ArrayList<>();
    for (int i = 0; i < orderedBy.size(); i++) {
      PgColumn column = column(table, orderedBy.get(i));
      Kind kind = kindOf(column.type());
      kinds.add(kind);
      select.append(read(column, kind)).append(" AS v").append(i).append(", ");
      order.append(i == 0 ? "" : ", ").append(PgNames.quote(column.name())).append(" DESC");
    }
    // DESC puts NULLs first; the filter keeps them out so that the index is still read backwards from its end.
    String sql = select + "age(xmin)::bigint AS xage, statement_timestamp() AS read_at FROM " + from(table) + " WHERE "
        + PgNames.quote(orderedBy.get(0)) + " IS NOT NULL ORDER BY " + order + " LIMIT " + TAIL_ROWS;
    List<List<Object>> rows = new ArrayList<>();
    List<Long> ages = new ArrayList<>();
    Instant readAt = null;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        if (readAt == null) {
          readAt = rs.getTimestamp("read_at").toInstant();
        }
        List<Object> row = new ArrayList<>(orderedBy.size());
        for (int i = 0; i < orderedBy.size(); i++) {
          row.add(value(rs, "v" + i, kinds.get(i)));
        }
        rows.add(row);
        long age = rs.getLong("xage");
        ages.add(rs.wasNull() ? null : age);
      }
    }
    return new KeyTail(orderedBy, rows, ages, readAt);
  }

  private static PgColumn column(PgTable table, String name) {
    return table.column(name).orElseThrow(() -> new IllegalArgumentException(
        "no column " + name + " in " + table.qualifiedName()));
  }

  private static String from(PgTable table) {
    return (table.hasInheritanceChildren() ? "ONLY " : "") + PgNames.qualified(table.schema(), table.name());
  }

  /** The select-list expression that reads {@code column} in its normalised form. */
  private static String read(PgColumn column, Kind kind) {
    String q = PgNames.quote(column.name());
    return switch (kind) {
      case INTEGER -> q + "::bigint";
      case NUMBER -> q + "::numeric";
      case TEMPORAL -> "extract(epoch FROM " + q + ")::float8";
      case TEXT -> q + "::text";
    };
  }

  private static Object value(ResultSet rs, String label, Kind kind) throws SQLException {
    Object value = switch (kind) {
      case INTEGER -> {
        long v = rs.getLong(label);
        yield rs.wasNull() ? null : v;
      }
      case NUMBER -> {
        // NaN and ±Infinity (float and numeric alike) have no place in key order: left out like NULL.
        String v = rs.getString(label);
        try {
          yield v == null ? null : new BigDecimal(v);
        } catch (NumberFormatException e) {
          yield null;
        }
      }
      case TEMPORAL -> {
        double v = rs.getDouble(label);
        yield rs.wasNull() || Double.isInfinite(v) ? null : v;
      }
      case TEXT -> rs.getString(label);
    };
    return value instanceof BigDecimal b ? b.stripTrailingZeros() : value;
  }

  private enum Kind { INTEGER, NUMBER, TEMPORAL, TEXT }

  private static Kind kindOf(PgType type) {
    PgType base = type;
    while (base.kind() == PgType.Kind.DOMAIN && base.domainBase() != null) {
      base = base.domainBase();
    }
    if (base.array()) {
      return Kind.TEXT;
    }
    if (INTEGERS.contains(base.name())) {
      return Kind.INTEGER;
    }
    if (base.name().equals("numeric") || base.name().equals("float4") || base.name().equals("float8")) {
      return Kind.NUMBER;
    }
    if (TEMPORAL.contains(base.name())) {
      return Kind.TEMPORAL;
    }
    return Kind.TEXT;
  }
}
