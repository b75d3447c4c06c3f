package dev.pg2spanner.live.apply;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.targetdb.SpannerTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the applier reads from the target, as interfaces the applier is given (tests give their own) and their
 * production forms: a row at its key, the rows of a keyless table by row hash or by content, and every key of a table
 * (a TRUNCATE). The applier reaches Spanner only through these and its commit target.
 * Every read is strong, and bounded in time ({@link #ROW_READ_SECONDS}).
 */
final class TargetReads {

  /** Rows read per content lookup (a table without a key may hold identical rows). */
  static final int LOOKUP_LIMIT = 100;

  private TargetReads() {}

  /**
   * Hands the keys of every row of a table to {@code chunk}, a bounded number at a time (for a TRUNCATE: Spanner
   * deletes a key range only when its bounds differ in the last key part, so rows are deleted by key).
   */
  @FunctionalInterface
  interface TableKeys {
    void forEachChunk(TablePlan table, java.util.function.Consumer<List<Key>> chunk);
  }

  /** Reads one row of a target table as Spanner holds it now, or null when it has none at that key. */
  @FunctionalInterface
  interface TargetRows {
    Struct read(String table, Key key, List<String> columns);
  }

  /** The production {@link TargetRows}: a strong single read. */
  static TargetRows readingRows(DatabaseClient client) {
    return (table, key, columns) -> withinReadBound(() -> client.singleUse(TimestampBound.strong()).readRow(table,
        key, columns));
  }

  /**
   * Runs a read of the target within {@link #ROW_READ_SECONDS} (DEADLINE_EXCEEDED past it): the emulator has been seen
   * (once, PostgreSQL dialect) never to answer such a read.
   */
  private static <T> T withinReadBound(java.util.concurrent.Callable<T> read) {
    return withinBound(ROW_READ_SECONDS, read);
  }

  /** Runs a read of the target within {@code seconds} (DEADLINE_EXCEEDED past it). */
  private static <T> T withinBound(long seconds, java.util.concurrent.Callable<T> read) {
    io.grpc.Context.CancellableContext bounded = io.grpc.Context.current()
        .withDeadlineAfter(seconds, java.util.concurrent.TimeUnit.SECONDS, READ_DEADLINES);
    try {
      return bounded.call(read);
    } catch (SpannerException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      bounded.cancel(null);
    }
  }

  /**
   * Reads the rows of a keyless table whose row hash is one of {@code hashes}, through the hash's index
   * ({@link TablePlan#rowHash()}): by hash, at most {@link #LOOKUP_LIMIT} rows each, with the key columns and
   * {@code columns}. A hash without rows maps to an empty list; a hash missing from the answer is not known (the read
   * was cut short by its limit) and is looked up alone.
   */
  @FunctionalInterface
  interface HashedRows {
    Map<Long, List<Struct>> read(TablePlan table, Set<Long> hashes, List<String> columns);
  }

  /**
   * The production {@link HashedRows}: one strong read of the hash's index for every hash (the keys it holds), then
   * one strong read of those rows by key — two reads for a whole batch of lookups, whatever the table's size.
   */
  static HashedRows readingHashes(DatabaseClient client) {
    return (table, hashes, columns) -> withinReadBound(() -> {
      String hashColumn = table.rowHash().column();
      List<String> keyColumns = table.primaryKey().stream().map(KeyPart::column).toList();
      List<String> indexColumns = new ArrayList<>(keyColumns);
      indexColumns.add(hashColumn);
      KeySet.Builder ranges = KeySet.newBuilder();
      hashes.forEach(h -> ranges.addRange(com.google.cloud.spanner.KeyRange.prefix(Key.of(h))));
      long limit = (long) LOOKUP_LIMIT * hashes.size();
      Map<Long, List<Key>> keysOf = new HashMap<>();
      Map<Key, Long> hashOf = new HashMap<>();
      long read = 0;
      try (ResultSet rs = client.singleUse(TimestampBound.strong()).readUsingIndex(table.target(),
          table.rowHash().index(), ranges.build(), indexColumns, com.google.cloud.spanner.Options.limit(limit))) {
        while (rs.next()) {
          read++;
          Struct entry = rs.getCurrentRowAsStruct();
          long hash = entry.getLong(hashColumn);
          List<Key> keys = keysOf.computeIfAbsent(hash, h -> new ArrayList<>());
          if (keys.size() < LOOKUP_LIMIT) {
            Key key = keyOf(table, entry);
            keys.add(key);
            hashOf.put(key, hash);
          }
        }
      }
      // Cut short by the limit: only hashes that reached their own limit are known (as a lookup of one would be).
      boolean cut = read >= limit;
      Map<Long, List<Struct>> rows = new HashMap<>();
      for (Long hash : hashes) {
        List<Key> keys = keysOf.get(hash);
        if (!cut || keys != null && keys.size() >= LOOKUP_LIMIT) {
          rows.put(hash, new ArrayList<>());
        }
      }
      KeySet.Builder wanted = KeySet.newBuilder();
      boolean any = false;
      for (Map.Entry<Key, Long> e : hashOf.entrySet()) {
        if (rows.containsKey(e.getValue())) {
          wanted.addKey(e.getKey());
          any = true;
        }
      }
      if (!any) {
        return rows;
      }
      List<String> rowColumns = new ArrayList<>(keyColumns);
      columns.stream().filter(c -> !rowColumns.contains(c)).forEach(rowColumns::add);
      try (ResultSet rs = client.singleUse(TimestampBound.strong()).read(table.target(), wanted.build(),
          rowColumns)) {
        while (rs.next()) {
          Struct row = rs.getCurrentRowAsStruct();
          Long hash = hashOf.get(keyOf(table, row));
          if (hash != null) {
            rows.get(hash).add(row);
          }
        }
      }
      return rows;
    });
  }

  /**
   * Reads the rows of a target table whose columns hold the given values, at most {@link #LOOKUP_LIMIT}, with the key
   * columns and {@code columns}: the candidates of a lookup by content (a table without a usable key, or a row hash
   * that did not find the row), which the caller compares exactly. {@code equal} maps a column to its value in column
   * order; a NULL value is matched with IS NULL, and a value Spanner cannot compare by equality in a query (floats,
   * JSON, arrays) is left out of the condition.
   */
  @FunctionalInterface
  interface RowsByContent {
    List<Struct> read(TablePlan table, SpannerDialect dialect, List<String> columns, Map<String, Value> equal);
  }

  /**
   * The production {@link RowsByContent}: one strong query, bounded by {@link #CONTENT_SCAN_SECONDS}. It may scan the
   * table (no index holds the identity's columns), so its bound is far longer than a row read's; it is a bound all
   * the same, so a target that stops answering stops the stream with a clear error instead of holding it forever.
   */
  static RowsByContent readingByContent(DatabaseClient client) {
    return (table, dialect, columns, equal) -> withinBound(CONTENT_SCAN_SECONDS, () -> {
      StringBuilder sql = new StringBuilder("SELECT ");
      for (int i = 0; i < columns.size(); i++) {
        sql.append(i == 0 ? "" : ", ").append(SpannerNames.quote(dialect, columns.get(i)));
      }
      sql.append(" FROM ").append(SpannerNames.qualified(dialect, table.targetSchema(), table.targetName()));
      List<String> conditions = new ArrayList<>();
      Map<String, Value> parameters = new LinkedHashMap<>();
      for (Map.Entry<String, Value> e : equal.entrySet()) {
        Value v = e.getValue();
        String column = SpannerNames.quote(dialect, e.getKey());
        if (v.isNull()) {
          conditions.add(column + " IS NULL");
        } else if (comparable(v.getType())) {
          // GoogleSQL names its parameters (@p1); the PostgreSQL dialect numbers them ($1), bound as p1.
          int n = parameters.size() + 1;
          conditions.add(column + (dialect.isPostgres() ? " = $" + n : " = @p" + n));
          parameters.put("p" + n, v);
        }
      }
      if (!conditions.isEmpty()) {
        sql.append(" WHERE ").append(String.join(" AND ", conditions));
      }
      sql.append(" LIMIT ").append(LOOKUP_LIMIT);
      Statement.Builder bound = Statement.newBuilder(sql.toString());
      parameters.forEach((name, v) -> bound.bind(name).to(v));
      List<Struct> rows = new ArrayList<>();
      try (ResultSet rs = client.singleUse(TimestampBound.strong()).executeQuery(bound.build())) {
        while (rs.next()) {
          rows.add(rs.getCurrentRowAsStruct());
        }
      }
      return rows;
    });
  }

  /** Types a query can compare by equality as the applier compares them (exactly). */
  private static boolean comparable(Type type) {
    return switch (type.getCode()) {
      case INT64, STRING, BOOL, DATE, TIMESTAMP, BYTES, NUMERIC -> true;
      default -> false;
    };
  }

  /** How long a read of one row (or of one batch's rows by hash) may take before the applier stops waiting for it. */
  static final long ROW_READ_SECONDS = 20;

  /**
   * How long a lookup by content may take: a scan of a table without a usable row hash. A table that large is better
   * served by its row hash (plan gives every table without a key one).
   */
  static final long CONTENT_SCAN_SECONDS = 600;

  private static final java.util.concurrent.ScheduledExecutorService READ_DEADLINES =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "pg2spanner-read-deadline");
        t.setDaemon(true);
        return t;
      });

  /** The production {@link TableKeys}: the table read in bounded key ranges at one timestamp, keys only. */
  static TableKeys readingKeys(DatabaseClient client, Plan plan) {
    return (table, chunk) -> {
      int perCommit = Math.max(1, ChangeApplier.TRUNCATE_ROWS_PER_COMMIT / (1 + table.indexes().size()));
      com.google.cloud.Timestamp at = SpannerTime.strongTimestamp(client);
      List<String> keyColumns = table.primaryKey().stream().map(KeyPart::column).toList();
      List<Key> keys = new ArrayList<>(perCommit);
      for (KeySet range : dev.pg2spanner.verify.TargetRanges.of(client, table, at, perCommit,
          plan.target().spannerDialect())) {
        try (ResultSet rs = client.singleUse(TimestampBound.ofReadTimestamp(at)).read(table.target(), range,
            keyColumns)) {
          while (rs.next()) {
            keys.add(keyOf(table, rs.getCurrentRowAsStruct()));
            if (keys.size() == perCommit) {
              chunk.accept(List.copyOf(keys));
              keys.clear();
            }
          }
        }
      }
      if (!keys.isEmpty()) {
        chunk.accept(List.copyOf(keys));
      }
    };
  }

  /** The Spanner key of {@code row}, read with (at least) the table's key columns. */
  static Key keyOf(TablePlan table, Struct row) {
    Key.Builder key = Key.newBuilder();
    for (KeyPart part : table.primaryKey()) {
      SpannerKeys.append(key, row.getValue(part.column()));
    }
    return key.build();
  }
}
