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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a bounded sample of some columns in physical (arrival) order: the whole table when it is small, else a
 * repeatable {@code TABLESAMPLE SYSTEM} of about {@code maxRows} rows, so the cost stays flat however large the
 * table is.
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

  /** Samples {@code columns} (source names) of {@code table}; runs one query. */
  public KeySample sample(Connection c, PgTable table, List<String> columns) throws SQLException {
    if (columns.isEmpty()) {
      return KeySample.empty(table.qualifiedName());
    }
    StringBuilder select = new StringBuilder("SELECT ");
    List<Kind> kinds = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      String name = columns.get(i);
      PgColumn column = table.column(name).orElseThrow(() -> new IllegalArgumentException(
          "no column " + name + " in " + table.qualifiedName()));
      Kind kind = kindOf(column.type());
      kinds.add(kind);
      String q = PgNames.quote(column.name());
      select.append(switch (kind) {
        case INTEGER -> q + "::bigint";
        case NUMBER -> q + "::numeric";
        case TEMPORAL -> "extract(epoch FROM " + q + ")::float8";
        case TEXT -> q + "::text";
      }).append(" AS v").append(i).append(", ");
    }
    double rows = table.stats().rowEstimate() == null ? -1 : table.stats().rowEstimate();
    boolean sampled = rows > maxRows * 1.5;
    String from = (table.hasInheritanceChildren() ? "ONLY " : "") + PgNames.qualified(table.schema(), table.name());
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
          String label = "v" + i;
          Object value = switch (kinds.get(i)) {
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
          row.add(value instanceof BigDecimal b ? b.stripTrailingZeros() : value);
        }
        out.add(row);
      }
    }
    return new KeySample(table.qualifiedName(), columns, out, !sampled);
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
