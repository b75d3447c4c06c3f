package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.source.PgNames;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The longest key, in bytes as Spanner counts them, of a table's primary key and of each of its plain indexes,
 * measured from the data in one aggregate query: Spanner refuses a key over 8 KiB (the emulator only when it builds an
 * index), so a text key or index the plan would keep must be judged from its values. A string counts its UTF-8 bytes,
 * bytes their length, a fixed-width value 8; an index key is its columns plus the table's primary key, which Spanner
 * stores in every index entry (the emulator reports 10,008 bytes for a 10,000-byte string indexed in a table keyed by
 * an integer). Tables whose keys hold only fixed-width values are not read: sixteen of them and a key of sixteen stay
 * far below the limit. Above {@code fullScanRowLimit} estimated rows a {@code TABLESAMPLE SYSTEM ... REPEATABLE (0)}
 * sample is read, as {@code EvidenceCollector} does.
 */
public final class KeyBytes {

  /** The name under which the primary key's size is reported (indexes are reported under their own names). */
  public static final String PRIMARY_KEY = "<primary key>";

  /** Types whose Spanner key encoding has a fixed size: INT64, FLOAT32/64, BOOL, DATE, TIMESTAMP. */
  private static final Set<String> FIXED = Set.of("int2", "int4", "int8", "oid", "float4", "float8", "bool", "date",
      "timestamp", "timestamptz", "money", "smallint", "integer", "bigint", "real", "double precision", "boolean",
      "timestamp with time zone", "timestamp without time zone");

  /** Types stored as their own text or bytes: their size is octet_length of the value itself. */
  private static final Set<String> OWN_BYTES = Set.of("text", "varchar", "character varying", "bpchar", "character",
      "name", "citext", "bytea");

  private KeyBytes() {}

  /**
   * @return per key ({@link #PRIMARY_KEY} and index names) the most bytes any row's key takes; empty when no key of
   *     the table holds a value of variable width (no query runs)
   */
  public static Map<String, Long> measure(Connection c, PgTable table, long fullScanRowLimit) throws SQLException {
    List<String> pk = table.primaryKey() == null ? List.of() : table.primaryKey().columns();
    Map<String, List<String>> keys = new LinkedHashMap<>();
    if (!pk.isEmpty()) {
      keys.put(PRIMARY_KEY, pk);
    }
    for (PgIndex index : table.indexes()) {
      if (index.valid() && index.elements().stream().noneMatch(PgIndex.Element::isExpression)
          && (index.method().equals("btree") || index.method().equals("hash"))) {
        List<String> columns = new ArrayList<>(index.elements().stream().map(PgIndex.Element::column).distinct()
            .toList());
        pk.stream().filter(k -> !columns.contains(k)).forEach(columns::add);
        keys.put(index.name(), columns);
      }
    }
    if (keys.values().stream().flatMap(List::stream).allMatch(col -> fixed(table, col))) {
      return Map.of();
    }
    List<String> select = new ArrayList<>();
    List<String> names = new ArrayList<>(keys.keySet());
    for (int i = 0; i < names.size(); i++) {
      List<String> sizes = keys.get(names.get(i)).stream().map(col -> size(table, col)).toList();
      select.add("max(" + String.join(" + ", sizes) + ")::bigint AS k" + i);
    }
    Double estimate = table.stats().rowEstimate();
    boolean sampled = estimate != null && estimate > fullScanRowLimit;
    String from = (table.kind() == PgTable.Kind.TABLE && table.hasInheritanceChildren() ? "ONLY " : "")
        + PgNames.qualified(table.schema(), table.name())
        + (sampled ? String.format(Locale.ROOT, " TABLESAMPLE SYSTEM (%.6f) REPEATABLE (0)",
            Math.max(0.000001, Math.min(100.0, fullScanRowLimit * 100.0 / estimate))) : "");
    Map<String, Long> out = new LinkedHashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT " + String.join(", ", select) + " FROM " + from)) {
      rs.next();
      for (int i = 0; i < names.size(); i++) {
        long bytes = rs.getLong("k" + i);
        if (!rs.wasNull()) {
          out.put(names.get(i), bytes);
        }
      }
    }
    return out;
  }

  private static boolean fixed(PgTable table, String column) {
    PgType type = table.column(column).map(PgColumn::type).orElse(null);
    return type != null && !type.array() && type.kind() != PgType.Kind.DOMAIN && FIXED.contains(key(type));
  }

  /** The SQL of one column's key bytes in a row (0 for NULL). */
  private static String size(PgTable table, String column) {
    if (fixed(table, column)) {
      return "8";
    }
    PgType type = table.column(column).map(PgColumn::type).orElseThrow();
    String q = PgNames.quote(column);
    String value = !type.array() && type.kind() == PgType.Kind.BASE && OWN_BYTES.contains(key(type)) ? q
        : "(" + q + ")::text";
    return "coalesce(octet_length(" + value + "), 0)";
  }

  private static String key(PgType type) {
    return type.name().strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
  }
}
