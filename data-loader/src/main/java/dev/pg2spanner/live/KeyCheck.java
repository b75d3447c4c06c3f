package dev.pg2spanner.live;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.apply.SpannerKeys;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.convert.ValueRejection;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.verify.Verifier;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares chosen rows of one table, named by their Spanner key's source texts ({@link Binding#keyTexts}), on both
 * sides of a consistent cut: the source rows in the cut's snapshot, read by key and converted by the load's own
 * converter, against the Spanner rows read by key at the cut's timestamp. Rows are matched and hashed exactly as
 * {@link Verifier} matches and hashes them ({@link RowKey#forVerify}, {@link Canonical#rowHash}), so a row the full
 * comparison calls equal this one does too. A row missing on both sides (deleted) is equal; a source row the
 * dead-letter file lists is left out, as verify leaves it out.
 *
 * <p>Cost: one source query and one Spanner read per {@value #BATCH} rows; nothing else is read.
 */
final class KeyCheck {

  /** Rows per source query and Spanner read. */
  static final int BATCH = 500;

  /**
   * What the comparison found.
   *
   * @param compared rows compared (those absent on both sides included)
   * @param leftOut source rows the dead-letter file lists
   * @param differing key texts of the rows that differ
   * @param described those rows for people ("different: KEY", "missing in target: KEY", ...)
   */
  record Result(long compared, long leftOut, Set<List<String>> differing, List<String> described) {}

  /** The table's rows cannot be named by key texts for this comparison (compare it whole instead). */
  static final class NotByKey extends Exception {
    NotByKey(String message) {
      super(message);
    }
  }

  private final TablePlan table;
  private final TableConverter converter;
  private final SpannerKeys keys;
  private final List<String> inputs;
  private final List<String> verifyColumns;
  private final RowKey verifyKey;
  private final int[] verifyKeyPositions;
  private final Set<String> deadLettered;

  /**
   * @param deadLettered {@link DeadLetterFile#identity} of the rows the dead-letter file lists
   * @throws NotByKey when the table's rows are not named by key texts (no key, a synthetic key, a verify key that is
   *     not among the key's inputs)
   */
  KeyCheck(TablePlan table, TableConverter converter, Set<String> deadLettered) throws NotByKey {
    this.table = table;
    this.converter = converter;
    this.deadLettered = deadLettered;
    if (converter.rowKey().kind() == RowKey.Kind.SYNTHETIC) {
      throw new NotByKey(table.target() + " has no source key");
    }
    this.keys = SpannerKeys.of(table, converter.dialect());
    this.inputs = keys.inputColumns();
    this.verifyColumns = Verifier.loadedColumns(table).stream().map(ColumnPlan::target).toList();
    this.verifyKey = RowKey.forVerify(table);
    if (!inputs.containsAll(verifyKey.columns())) {
      throw new NotByKey(table.target() + " is matched by " + verifyKey.columns() + ", not by its key's inputs "
          + inputs);
    }
    this.verifyKeyPositions = verifyKey.columns().stream().mapToInt(verifyColumns::indexOf).toArray();
  }

  /**
   * Compares the rows named by {@code rows}.
   *
   * @param reader a reader inside the cut's snapshot ({@code SnapshotSession.openReader()})
   * @param readAt the cut's Spanner timestamp
   * @throws NotByKey when a key text cannot be converted (then the table is compared whole)
   */
  Result run(Connection reader, DatabaseClient client, Timestamp readAt, List<List<String>> rows)
      throws SQLException, NotByKey {
    long compared = 0;
    long leftOut = 0;
    Set<List<String>> differing = new HashSet<>();
    List<String> described = new ArrayList<>();
    for (int from = 0; from < rows.size(); from += BATCH) {
      List<List<String>> batch = rows.subList(from, Math.min(rows.size(), from + BATCH));
      // The rows asked for, by the text verify names them by.
      Map<String, List<String>> asked = new LinkedHashMap<>();
      List<Key> spannerKeys = new ArrayList<>(batch.size());
      for (List<String> texts : batch) {
        Map<String, Value> values = parse(texts);
        asked.put(verifyKey.text(verifyKey.columns().stream().map(values::get).toList()), texts);
        try {
          spannerKeys.add(keys.key(values::get));
        } catch (IllegalArgumentException e) {
          throw new NotByKey(table.target() + ": " + e.getMessage());
        }
      }
      // Both sides at once: the Spanner read on another thread while the source is read here.
      java.util.concurrent.CompletableFuture<Map<String, byte[]>> targetRead =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> readTarget(client, readAt, spannerKeys), READS);
      Map<String, Object> source;
      try {
        source = readSource(reader, batch);
      } catch (SQLException | RuntimeException e) {
        targetRead.cancel(true);
        throw e;
      }
      Map<String, byte[]> target = awaitTarget(targetRead);
      for (Map.Entry<String, List<String>> e : asked.entrySet()) {
        compared++;
        Object s = source.remove(e.getKey());
        byte[] t = target.remove(e.getKey());
        String what = null;
        if (s == LEFT_OUT) {
          leftOut++;
          what = t == null ? null : "extra in target (the dead-letter file lists it): ";
        } else if (s instanceof String reason) {
          differing.add(e.getValue());
          describe(described, "not convertible, in no dead-letter file: " + e.getKey() + " (" + reason + ")");
          continue;
        } else if (s == null && t != null) {
          what = "extra in target: ";
        } else if (s != null && t == null) {
          what = "missing in target: ";
        } else if (s != null && !Arrays.equals((byte[]) s, t)) {
          what = "different: ";
        }
        if (what != null) {
          differing.add(e.getValue());
          describe(described, what + e.getKey());
        }
      }
      // Rows read that no asked key names (a rejected row named by its location): the batch cannot be cleared.
      for (Map.Entry<String, Object> e : source.entrySet()) {
        if (e.getValue() instanceof String reason) {
          differing.addAll(batch);
          describe(described, "not convertible, in no dead-letter file: " + e.getKey() + " (" + reason + ")");
        }
      }
    }
    return new Result(compared, leftOut, differing, described);
  }

  private static final Object LEFT_OUT = new Object();

  /** Target reads run here, beside the source read of the same batch. */
  private static final java.util.concurrent.ExecutorService READS = java.util.concurrent.Executors.newCachedThreadPool(
      r -> {
        Thread t = new Thread(r, "pg2spanner-keycheck-read");
        t.setDaemon(true);
        return t;
      });

  private static Map<String, byte[]> awaitTarget(java.util.concurrent.CompletableFuture<Map<String, byte[]>> read) {
    try {
      return read.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  private static void describe(List<String> described, String line) {
    if (described.size() < Verifier.MAX_DIFFERING_KEYS) {
      described.add(line.length() <= Verifier.MAX_KEY_CHARS ? line : line.substring(0, Verifier.MAX_KEY_CHARS - 1)
          + "…");
    }
  }

  /** The key's input values, converted as the load converts them. */
  private Map<String, Value> parse(List<String> texts) throws NotByKey {
    Map<String, Value> values = new HashMap<>();
    List<String> loaded = converter.loadedColumns();
    for (int i = 0; i < inputs.size(); i++) {
      try {
        values.put(inputs.get(i), converter.parseColumn(loaded.indexOf(inputs.get(i)), texts.get(i)));
      } catch (ValueRejection e) {
        throw new NotByKey(table.target() + ": the key value " + texts.get(i) + " cannot be converted ("
            + e.getMessage() + ")");
      }
    }
    return values;
  }

  /**
   * The source rows of a batch, by verify key text: the row hash, {@link #LEFT_OUT} for a row the dead-letter file
   * lists, or the reason a row the converter refused is not convertible.
   */
  private Map<String, Object> readSource(Connection reader, List<List<String>> batch) throws SQLException {
    List<String> columns = new ArrayList<>();
    List<String> types = new ArrayList<>();
    for (String input : inputs) {
      ColumnPlan column = table.column(input).orElseThrow();
      columns.add(PgNames.quote(column.source()));
      types.add(column.sourceType());
    }
    String tuple = columns.size() == 1 ? columns.get(0) : "(" + String.join(", ", columns) + ")";
    StringBuilder in = new StringBuilder();
    for (int r = 0; r < batch.size(); r++) {
      in.append(r == 0 ? "" : ", ").append(columns.size() == 1 ? "" : "(");
      for (int c = 0; c < columns.size(); c++) {
        in.append(c == 0 ? "" : ", ").append("CAST(? AS ").append(types.get(c)).append(')');
      }
      in.append(columns.size() == 1 ? "" : ")");
    }
    int dot = table.source().indexOf('.');
    String from = (table.readOnly() ? "ONLY " : "") + PgNames.qualified(table.source().substring(0, dot),
        table.source().substring(dot + 1));
    Map<String, Object> rows = new HashMap<>();
    try (PreparedStatement ps = reader.prepareStatement(converter.selectSql(from, tuple + " IN (" + in + ")"))) {
      int p = 1;
      for (List<String> texts : batch) {
        for (String text : texts) {
          ps.setString(p++, text);
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          TableConverter.Result result = converter.convert(rs);
          if (result instanceof TableConverter.Converted converted) {
            String key = converted.row().key();
            if (listed(key)) {
              rows.put(key, LEFT_OUT);
              continue;
            }
            List<Value> values = new ArrayList<>(verifyColumns.size());
            for (Value v : converted.row().mutation().getValues()) {
              if (values.size() == verifyColumns.size()) {
                break;
              }
              values.add(v);
            }
            rows.put(keyText(values), Canonical.rowHash(values));
          } else {
            var rejected = ((TableConverter.Rejected) result).row();
            rows.put(rejected.key(), listed(rejected.key()) ? LEFT_OUT
                : (rejected.column() == null ? "" : "column " + rejected.column() + ": ") + rejected.reason());
          }
        }
      }
    }
    return rows;
  }

  private boolean listed(String key) {
    return !deadLettered.isEmpty() && deadLettered.contains(DeadLetterFile.identity(table.target(), key));
  }

  /** The Spanner rows of a batch at the cut, by verify key text, as row hashes. */
  private Map<String, byte[]> readTarget(DatabaseClient client, Timestamp readAt, List<Key> spannerKeys) {
    KeySet.Builder set = KeySet.newBuilder();
    spannerKeys.forEach(set::addKey);
    Map<String, byte[]> rows = new HashMap<>();
    try (com.google.cloud.spanner.ResultSet rs = client.singleUse(TimestampBound.ofReadTimestamp(readAt))
        .read(table.target(), set.build(), verifyColumns)) {
      while (rs.next()) {
        Struct row = rs.getCurrentRowAsStruct();
        List<Value> values = new ArrayList<>(verifyColumns.size());
        for (int i = 0; i < verifyColumns.size(); i++) {
          values.add(row.getValue(i));
        }
        rows.put(keyText(values), Canonical.rowHash(values));
      }
    } catch (SpannerException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot read the changed rows of " + table.target()
          + " at the verification cut (" + e.getErrorCode() + ": " + e.getMessage() + ")", e);
    }
    return rows;
  }

  private String keyText(List<Value> values) {
    List<Value> key = new ArrayList<>(verifyKeyPositions.length);
    for (int p : verifyKeyPositions) {
      key.add(values.get(p));
    }
    return verifyKey.text(key);
  }
}
