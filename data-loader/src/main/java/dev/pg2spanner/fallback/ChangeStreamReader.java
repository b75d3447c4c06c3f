package dev.pg2spanner.fallback;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.spanner.SpannerDialect;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a Spanner change stream over one window of commit time: every data change committed after {@code after} and
 * at or before {@code end}, over every partition, in commit order.
 *
 * <p>GoogleSQL: {@code SELECT ChangeRecord FROM READ_<stream>(...)} returns each record as a STRUCT. PostgreSQL dialect:
 * {@code SELECT * FROM spanner.read_json_<stream>($1, $2, $3, $4, $5)} (start, end, partition token, heartbeat
 * milliseconds, read options) returns each record as one JSONB value with the same fields (timestamps written with a
 * {@code +00:00} offset). Both become the same {@link Change}s; the mods' keys and values are the same JSON in both.
 *
 * <p>A change-stream query is a strong single-use read executed through ExecuteStreamingSql (the client's
 * {@code singleUse().executeQuery}); ExecuteSql refuses it. The query without a partition token returns the
 * partitions that exist at its start timestamp as child partitions; each partition's query ends at the window's end or
 * when the partition splits or merges, reporting its children, which are read in turn (a merged child is reported by
 * each parent and read once). The records of all partitions are then sorted by commit timestamp, transaction and
 * record sequence: Spanner orders a key's changes within its partition only, and a key may move between partitions.
 *
 * <p>Not thread-safe; stateless between windows (each window starts again from the partitions at its start).
 */
public final class ChangeStreamReader {

  /** Heartbeats keep an idle partition's query alive; a window ends at its end timestamp whatever they say. */
  private static final long HEARTBEAT_MILLISECONDS = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DatabaseClient client;
  private final String stream;
  private final SpannerDialect dialect;

  /**
   * A reader of a GoogleSQL-dialect database's stream.
   *
   * @param client the target database
   * @param stream the change stream's name (a plain identifier: the stream's read function is {@code READ_<name>})
   */
  public ChangeStreamReader(DatabaseClient client, String stream) {
    this(client, stream, SpannerDialect.GOOGLE_STANDARD_SQL);
  }

  /**
   * @param client the target database
   * @param stream the change stream's name (a plain lower-case identifier: its read function is {@code READ_<name>},
   *     in the PostgreSQL dialect {@code spanner.read_json_<name>})
   * @param dialect the database's dialect
   */
  public ChangeStreamReader(DatabaseClient client, String stream, SpannerDialect dialect) {
    this.client = client;
    this.stream = stream;
    this.dialect = dialect;
  }

  /** One column's type as the change record declares it. */
  public record ColumnType(String name, JsonNode type, boolean primaryKey, long ordinal) {
    /** The type code: INT64, STRING, ARRAY ... */
    public String code() {
      return type.path("code").asText();
    }

    /** The element type code of an ARRAY, else null. */
    public String elementCode() {
      JsonNode e = type.path("array_element_type");
      return e.isMissingNode() ? null : e.path("code").asText();
    }
  }

  /** INSERT, UPDATE or DELETE. */
  public enum ModType { INSERT, UPDATE, DELETE }

  /**
   * One row's change: one mod of a data change record.
   *
   * @param commitTimestamp when the Spanner transaction committed
   * @param transactionId the server transaction id (unique per transaction)
   * @param recordSequence the record's sequence within its transaction (a decimal string)
   * @param modIndex the mod's place within its record
   * @param table the Spanner table
   * @param modType what happened
   * @param columns the types of the columns the record carries, by name
   * @param keys the primary key's values (Spanner's JSON encoding: INT64 as a string, BYTES base64 ...)
   * @param newValues the new values (for NEW_ROW_AND_OLD_VALUES: every non-key column on insert and update; none on
   *     delete)
   * @param oldValues the old values of the columns changed (every non-key column on delete)
   */
  public record Change(Timestamp commitTimestamp, String transactionId, String recordSequence, int modIndex,
      String table, ModType modType, Map<String, ColumnType> columns, Map<String, JsonNode> keys,
      Map<String, JsonNode> newValues, Map<String, JsonNode> oldValues) {}

  /** Commit order: timestamp, then transaction, then the record's sequence and the mod's place in it. */
  public static final Comparator<Change> ORDER = Comparator.comparing(Change::commitTimestamp)
      .thenComparing(Change::transactionId)
      .thenComparing(Change::recordSequence, ChangeStreamReader::compareSequence)
      .thenComparingInt(Change::modIndex);

  /**
   * Every data change committed in (after, end], in commit order.
   *
   * @throws Pg2SpannerException TARGET_CONNECTION when the stream cannot be read (the message says what to do)
   */
  public List<Change> read(Timestamp after, Timestamp end) {
    List<Change> changes = new ArrayList<>();
    Deque<Partition> todo = new ArrayDeque<>();
    Set<String> seen = new HashSet<>();
    todo.add(new Partition(null, after));
    while (!todo.isEmpty()) {
      Partition p = todo.poll();
      Timestamp start = p.start().compareTo(after) < 0 ? after : p.start();
      if (start.compareTo(end) > 0) {
        continue;
      }
      try (ResultSet rs = client.singleUse().executeQuery(statement(start, end, p.token()))) {
        while (rs.next()) {
          if (dialect.isPostgres()) {
            collect(JSON.readTree(rs.getPgJsonb(0)), after, end, changes, seen, todo);
            continue;
          }
          for (Struct record : rs.getStructList(0)) {
            for (Struct data : record.getStructList("data_change_record")) {
              collect(data, after, end, changes);
            }
            for (Struct children : record.getStructList("child_partitions_record")) {
              Timestamp childStart = children.getTimestamp("start_timestamp");
              for (Struct child : children.getStructList("child_partitions")) {
                String token = child.getString("token");
                if (seen.add(token)) {
                  todo.add(new Partition(token, childStart));
                }
              }
            }
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException("the change stream " + stream + " sent a record that is not JSON", e);
      } catch (SpannerException e) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot read the change stream " + stream
            + " from " + after + " to " + end + " (" + e.getErrorCode() + ": " + e.getMessage() + "); check that "
            + "the stream exists (cutover created it) and that " + after + " is within its retention period, then "
            + "run fallback again: it continues from the position the source holds", e);
      }
    }
    changes.sort(ORDER);
    return changes;
  }

  private record Partition(String token, Timestamp start) {}

  /** One partition's query (the whole database's partitions when {@code token} is null). */
  private Statement statement(Timestamp start, Timestamp end, String token) {
    if (dialect.isPostgres()) {
      return Statement.newBuilder("SELECT * FROM spanner.read_json_" + stream + "($1, $2, $3, $4, $5)")
          .bind("p1").to(start)
          .bind("p2").to(end)
          .bind("p3").to(Value.string(token))
          .bind("p4").to(HEARTBEAT_MILLISECONDS)
          .bind("p5").toStringArray(null)
          .build();
    }
    return Statement.newBuilder("SELECT ChangeRecord FROM READ_" + stream + " ("
            + "start_timestamp => @start, end_timestamp => @end, partition_token => @token, "
            + "heartbeat_milliseconds => @heartbeat)")
        .bind("start").to(start)
        .bind("end").to(end)
        .bind("token").to(Value.string(token))
        .bind("heartbeat").to(HEARTBEAT_MILLISECONDS)
        .build();
  }

  /** One PostgreSQL-dialect record: a data change, child partitions, or a heartbeat (ignored). */
  private static void collect(JsonNode record, Timestamp after, Timestamp end, List<Change> out, Set<String> seen,
      Deque<Partition> todo) {
    JsonNode children = record.path("child_partitions_record");
    if (children.isObject()) {
      Timestamp childStart = timestamp(children.path("start_timestamp").asText());
      for (JsonNode child : children.path("child_partitions")) {
        String token = child.path("token").asText();
        if (seen.add(token)) {
          todo.add(new Partition(token, childStart));
        }
      }
    }
    JsonNode data = record.path("data_change_record");
    if (!data.isObject()) {
      return;
    }
    Timestamp commit = timestamp(data.path("commit_timestamp").asText());
    if (commit.compareTo(after) <= 0 || commit.compareTo(end) > 0) {
      return;
    }
    if (data.path("is_system_transaction").asBoolean(false)) {
      return;
    }
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    for (JsonNode c : data.path("column_types")) {
      String name = c.path("name").asText();
      columns.put(name, new ColumnType(name, c.path("type"), c.path("is_primary_key").asBoolean(),
          c.path("ordinal_position").asLong()));
    }
    ModType type = ModType.valueOf(data.path("mod_type").asText());
    String tx = data.path("server_transaction_id").asText();
    String sequence = data.path("record_sequence").asText();
    String table = data.path("table_name").asText();
    int i = 0;
    for (JsonNode mod : data.path("mods")) {
      out.add(new Change(commit, tx, sequence, i++, table, type, columns, fields(mod.path("keys")),
          fields(mod.path("new_values")), fields(mod.path("old_values"))));
    }
  }

  /** A record's timestamp: RFC 3339 with a {@code +00:00} offset in the PostgreSQL dialect. */
  static Timestamp timestamp(String text) {
    String zulu = text.endsWith("+00:00") ? text.substring(0, text.length() - 6) + "Z" : text;
    return Timestamp.parseTimestamp(zulu);
  }

  private static void collect(Struct data, Timestamp after, Timestamp end, List<Change> out) {
    Timestamp commit = data.getTimestamp("commit_timestamp");
    // The window is (after, end]: a record at "after" was applied by the window before.
    if (commit.compareTo(after) <= 0 || commit.compareTo(end) > 0) {
      return;
    }
    if (!data.isNull("is_system_transaction") && data.getBoolean("is_system_transaction")) {
      return;
    }
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    for (Struct c : data.getStructList("column_types")) {
      columns.put(c.getString("name"), new ColumnType(c.getString("name"), json(c, "type"),
          c.getBoolean("is_primary_key"), c.getLong("ordinal_position")));
    }
    ModType type = ModType.valueOf(data.getString("mod_type"));
    String tx = data.getString("server_transaction_id");
    String sequence = data.getString("record_sequence");
    String table = data.getString("table_name");
    int i = 0;
    for (Struct mod : data.getStructList("mods")) {
      out.add(new Change(commit, tx, sequence, i++, table, type, columns, fields(json(mod, "keys")),
          fields(json(mod, "new_values")), fields(json(mod, "old_values"))));
    }
  }

  private static JsonNode json(Struct s, String field) {
    if (s.isNull(field)) {
      return JSON.nullNode();
    }
    try {
      return JSON.readTree(s.getJson(field));
    } catch (IOException e) {
      throw new IllegalStateException("the change stream sent unreadable JSON in " + field, e);
    }
  }

  private static Map<String, JsonNode> fields(JsonNode object) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    if (object != null && object.isObject()) {
      object.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue()));
    }
    return m;
  }

  /** Record sequences are decimal strings; compare them as numbers whatever their padding. */
  static int compareSequence(String a, String b) {
    String x = a.replaceFirst("^0+(?=.)", "");
    String y = b.replaceFirst("^0+(?=.)", "");
    return x.length() != y.length() ? Integer.compare(x.length(), y.length()) : x.compareTo(y);
  }
}
