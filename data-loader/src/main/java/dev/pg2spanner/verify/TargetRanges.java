package dev.pg2spanner.verify;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.StructReader;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Cuts one target table into primary-key ranges of about {@code rowsPerRange} rows, so that verify reads it in
 * pieces of bounded size.
 *
 * <p>Why: the Spanner client buffers a result stream until it sees a resume token, up to 512 chunks of ~1 MB. The
 * emulator sends none, so a single query over a whole table is held in the JVM in full (as protobuf values, several
 * times its wire size) before its first row is returned: verify's heap grew with the largest table. A read of one
 * key range buffers at most that range.
 *
 * <p>How: the row count, then a reservoir sample of {@link #OVERSAMPLE} keys per range ({@code TABLESAMPLE}, one
 * scan, a bounded number of rows), put in key order by reading those keys back through the read API (which yields
 * rows in primary-key order, whatever the key's types, NULLs or descending parts), and every {@code OVERSAMPLE}-th
 * key starts a range. The ranges are half-open and adjacent, from the table's first key to its last, so they cover
 * every row exactly once; all reads use the verify's one read timestamp. A wrong range could only make the target's
 * count or checksum disagree with the source, never hide a difference. At most {@link #MAX_RANGES} ranges, so the
 * sample is bounded too; past {@code MAX_RANGES × rowsPerRange} rows the ranges grow (and the client's own 512-chunk
 * cap still bounds each read).
 */
public final class TargetRanges {

  /** Sampled keys per range: the ranges' sizes vary less than with one sampled key each. */
  static final int OVERSAMPLE = 4;
  static final int MAX_RANGES = 4_096;
  /** About this many bytes of target rows per read, from the plan's size estimate. */
  static final long RANGE_BYTES = 4L << 20;
  static final int MAX_ROWS_PER_RANGE = 20_000;
  static final int MIN_ROWS_PER_RANGE = 100;

  private TargetRanges() {}

  /** Rows per range for a table: {@link #RANGE_BYTES} over the plan's average row size, within bounds. */
  static int rowsPerRange(TablePlan table) {
    Double rows = table.rowsEstimate();
    if (rows == null || rows < 1 || table.bytesEstimate() <= 0) {
      return MAX_ROWS_PER_RANGE;
    }
    double rowBytes = Math.max(1, table.bytesEstimate() / rows);
    return (int) Math.max(MIN_ROWS_PER_RANGE, Math.min(MAX_ROWS_PER_RANGE, RANGE_BYTES / rowBytes));
  }

  /**
   * The key sets whose union is the whole table, in key order: one ({@link KeySet#all()}) for a table of at most
   * {@code rowsPerRange × 1.5} rows, for a table without a primary key, or when a key column has a type that cannot
   * bound a range.
   */
  static List<KeySet> of(DatabaseClient client, TablePlan table, Timestamp readAt, int rowsPerRange) {
    return of(client, table, readAt, rowsPerRange, SpannerDialect.GOOGLE_STANDARD_SQL);
  }

  /**
   * The ranges of a table in a database of {@code dialect}. In the PostgreSQL dialect the boundaries come from one
   * scan of the key columns in key order (every n-th key) instead of a reservoir sample: the emulator (1.5.28)
   * closes the connection on {@code TABLESAMPLE RESERVOIR} in that dialect.
   */
  public static List<KeySet> of(DatabaseClient client, TablePlan table, Timestamp readAt, int rowsPerRange,
      SpannerDialect dialect) {
    List<String> key = table.primaryKey().stream().map(KeyPart::column).toList();
    if (key.isEmpty() || !keyTypesSupported(table, key, dialect)) {
      return List.of(KeySet.all());
    }
    TimestampBound at = TimestampBound.ofReadTimestamp(readAt);
    long rows = count(client, table, at, dialect);
    if (rows <= rowsPerRange + rowsPerRange / 2L) {
      return List.of(KeySet.all());
    }
    int ranges = (int) Math.min(MAX_RANGES, (rows + rowsPerRange - 1) / rowsPerRange);
    List<Key> sorted = dialect.isPostgres() ? everyNthKey(client, table, key, at, Math.max(1, rows / ranges))
        : sortedSample(client, table, key, at, (long) ranges * OVERSAMPLE);
    if (sorted.isEmpty()) {
      return List.of(KeySet.all());
    }
    List<KeySet> result = new ArrayList<>(ranges);
    Key start = Key.of();
    boolean startClosed = true;
    for (int i = 1; i < ranges; i++) {
      Key boundary = sorted.get((int) ((long) i * sorted.size() / ranges));
      if (boundary.equals(start)) {
        continue;
      }
      result.add(KeySet.range(KeyRange.closedOpen(start, boundary)));
      start = boundary;
    }
    result.add(KeySet.range(KeyRange.closedClosed(start, Key.of())));
    return result;
  }

  /**
   * The columns a range read returns: the primary key's, then {@code columns}, each once (a table with neither
   * reads its first column, so that its rows are still counted).
   */
  static List<String> readColumns(TablePlan table, List<String> columns) {
    Set<String> all = new LinkedHashSet<>();
    table.primaryKey().forEach(k -> all.add(k.column()));
    all.addAll(columns);
    if (all.isEmpty()) {
      all.add(table.columns().get(0).target());
    }
    return List.copyOf(all);
  }

  private static long count(DatabaseClient client, TablePlan table, TimestampBound at, SpannerDialect dialect) {
    try (ResultSet rs = client.singleUse(at).executeQuery(Statement.of("SELECT COUNT(*) FROM "
        + SpannerNames.qualified(dialect, table.targetSchema(), table.targetName())))) {
      rs.next();
      return rs.getLong(0);
    }
  }

  private static List<Key> sortedSample(DatabaseClient client, TablePlan table, List<String> key,
      TimestampBound at, long size) {
    String columns = key.stream().map(c -> "s." + SpannerNames.quote(c)).collect(Collectors.joining(", "));
    // `s.` keeps a column named like its table a column (a bare name would be the whole row).
    String sql = "SELECT " + columns + " FROM " + from(table) + " AS s TABLESAMPLE RESERVOIR (" + size + " ROWS)";
    KeySet.Builder sample = KeySet.newBuilder();
    try (ResultSet rs = client.singleUse(at).executeQuery(Statement.of(sql))) {
      while (rs.next()) {
        sample.addKey(keyOf(rs, key.size()));
      }
    }
    // Read back through the read API: its rows come in primary-key order, which is the order ranges are cut in.
    List<Key> sorted = new ArrayList<>();
    try (ResultSet rs = client.singleUse(at).read(table.target(), sample.build(), key)) {
      while (rs.next()) {
        sorted.add(keyOf(rs, key.size()));
      }
    }
    return sorted;
  }

  private static String from(TablePlan table) {
    return SpannerNames.qualified(table.targetSchema(), table.targetName());
  }

  /** Every {@code step}-th key of the table, reading only the key columns, in key order. */
  private static List<Key> everyNthKey(DatabaseClient client, TablePlan table, List<String> key, TimestampBound at,
      long step) {
    List<Key> keys = new ArrayList<>();
    long n = 0;
    try (ResultSet rs = client.singleUse(at).read(table.target(), KeySet.all(), key)) {
      while (rs.next()) {
        if (n++ % step == 0) {
          keys.add(keyOf(rs, key.size()));
        }
      }
    }
    return keys;
  }

  private static boolean keyTypesSupported(TablePlan table, List<String> key, SpannerDialect dialect) {
    for (String column : key) {
      String text = table.column(column).map(c -> c.targetType()).orElse("");
      SpannerType type;
      try {
        type = SpannerType.parse(dialect, text);
      } catch (IllegalArgumentException e) {
        return false;
      }
      if (type.isArray() || type.base() == SpannerType.Base.JSON) {
        return false;
      }
    }
    return true;
  }

  /** The first {@code parts} columns of a row as a key. */
  static Key keyOf(StructReader row, int parts) {
    Key.Builder key = Key.newBuilder();
    for (int i = 0; i < parts; i++) {
      Value v = row.getValue(i);
      if (v.isNull()) {
        key.appendObject(null);
        continue;
      }
      Type.Code code = v.getType().getCode();
      switch (code) {
        case BOOL -> key.append(v.getBool());
        case INT64 -> key.append(v.getInt64());
        case FLOAT64 -> key.append(v.getFloat64());
        case FLOAT32 -> key.append((double) v.getFloat32());
        case NUMERIC -> key.append(v.getNumeric());
        case STRING -> key.append(v.getString());
        case BYTES -> key.append(v.getBytes());
        case TIMESTAMP -> key.append(v.getTimestamp());
        case DATE -> key.append(v.getDate());
        case UUID -> key.append(v.getUuid());
        default -> throw new IllegalStateException("a key column of type " + v.getType() + " cannot bound a range");
      }
    }
    return key.build();
  }
}
