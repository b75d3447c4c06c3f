package dev.pg2spanner.live.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.live.stream.PgOutput;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.RowHash;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: the row-hash lookups of a keyless table's changes are made together, one read per table for many changes,
 * against an in-memory target: duplicates, rows changed earlier in the same batch, a read cut short, and a commit in
 * the middle of a batch all end exact.
 */
class ChangeApplierKeylessTest {

  @TempDir
  Path dir;

  private static final String HASH = "pg2spanner_row_hash";

  /** kind text, n bigint: no key (a synthetic row_id), a row hash over both. */
  private static final TablePlan EVENTS = new TablePlan("public.events", false, "events", null, 0, List.of(
      new ColumnPlan(null, null, "row_id", "STRING(36)", true, ValueConversion.SYNTHETIC, "GENERATE_UUID()", null),
      new ColumnPlan("kind", "text", "kind", "STRING(MAX)", true, ValueConversion.STRING, null, null),
      new ColumnPlan("n", "bigint", "n", "INT64", true, ValueConversion.INT64, null, null),
      new ColumnPlan(null, null, HASH, "INT64", false, ValueConversion.SYNTHETIC, null, null)),
      List.of(KeyPart.asc("row_id")), KeyStrategy.synthetic("test"), null,
      List.of(new IndexPlan(null, "ix_events_row_hash", List.of(KeyPart.asc(HASH)), false, false, List.of(), null)),
      List.of(), List.of(), List.of(), List.of(), new RowHash(HASH, "ix_events_row_hash", List.of("kind", "n")));
  /** A keyed table: a row that moves to another key with an unchanged TOASTed value makes the applier commit. */
  private static final TablePlan PARENT = new TablePlan("public.parent", false, "parent", null, 0, List.of(
      new ColumnPlan("id", "bigint", "id", "INT64", true, ValueConversion.INT64, null, null),
      new ColumnPlan("big", "text", "big", "STRING(MAX)", false, ValueConversion.STRING, null, null)),
      List.of(KeyPart.asc("id")), KeyStrategy.keep("k"), null, null, null, null, null);
  private static final Plan PLAN = new Plan(Plan.FORMAT_VERSION, "test", Instant.EPOCH,
      new Plan.Source("h:1/d", "15", List.of("public"), "f"), new Plan.Target("GOOGLE_STANDARD_SQL", true, 1),
      List.of(EVENTS, PARENT), List.of(), List.of());
  private static final List<SourceShape.Relation> SHAPES = List.of(
      new SourceShape.Relation(1, "public", "events", "events", "public.events", List.of(
          new SourceShape.Column("kind", 25, -1, "text"), new SourceShape.Column("n", 20, -1, "bigint"))),
      new SourceShape.Relation(2, "public", "parent", "parent", "public.parent", List.of(
          new SourceShape.Column("id", 20, -1, "bigint"), new SourceShape.Column("big", 25, -1, "text"))));
  /** REPLICA IDENTITY FULL: every column is in the identity. */
  private static final PgOutput.Relation EVENTS_REL = new PgOutput.Relation(1, "public", "events", 'f', List.of(
      new PgOutput.Column(true, "kind", 25, -1), new PgOutput.Column(true, "n", 20, -1)));
  private static final PgOutput.Relation PARENT_REL = new PgOutput.Relation(2, "public", "parent", 'd', List.of(
      new PgOutput.Column(true, "id", 20, -1), new PgOutput.Column(false, "big", 25, -1)));

  /** The target: table to rows by key, as the commits left them. */
  private final Map<String, Map<Key, Map<String, Value>>> target = new ConcurrentHashMap<>();
  private final List<Set<Long>> hashReads = Collections.synchronizedList(new ArrayList<>());
  private final List<Map<String, Value>> contentReads = Collections.synchronizedList(new ArrayList<>());
  private final List<List<Mutation>> commits = Collections.synchronizedList(new ArrayList<>());
  private final ApplyCounters counters = new ApplyCounters();
  /** Hashes a read of many answers at most (the rest are "not known", as a read cut short by its limit). */
  private int answeredPerRead = Integer.MAX_VALUE;

  private ChangeApplier applier(DeadLetterFile dead) {
    ChangeApplier a = new ChangeApplier(PLAN, TableConverter.compileAll(PLAN), SHAPES, this::commit,
        new RetryPolicy(1, Duration.ZERO, Duration.ZERO, ms -> { }), new LivePosition(null, "slot"), null, null, dead,
        0, counters, new ChangeApplier.Events() {
          @Override
          public void committed(LivePosition.Applied a) {
          }

          @Override
          public void barrier(String content) {
          }
        }, (table, chunk) -> { }, (table, key, columns) -> struct(target.get(table).get(key), columns),
        this::readByHash, this::readByContent);
    a.accept(EVENTS_REL);
    a.accept(PARENT_REL);
    return a;
  }

  private void commit(List<Mutation> mutations) {
    commits.add(List.copyOf(mutations));
    for (Mutation m : mutations) {
      TablePlan table = PLAN.tableByTarget(m.getTable()).orElse(null);
      if (table == null) {
        continue; // the position
      }
      Map<Key, Map<String, Value>> rows = target.computeIfAbsent(m.getTable(), t -> new ConcurrentHashMap<>());
      if (m.getOperation() == Mutation.Op.DELETE) {
        m.getKeySet().getKeys().forEach(rows::remove);
        continue;
      }
      Map<String, Value> values = m.asMap();
      Key.Builder key = Key.newBuilder();
      table.primaryKey().forEach(p -> SpannerKeys.append(key, values.get(p.column())));
      rows.computeIfAbsent(key.build(), k -> new HashMap<>()).putAll(values);
    }
  }

  private Map<Long, List<Struct>> readByHash(TablePlan table, Set<Long> hashes, List<String> columns) {
    assertThat(table.target()).isEqualTo("events");
    hashReads.add(new TreeSet<>(hashes));
    Map<Long, List<Struct>> found = new HashMap<>();
    for (Long hash : new TreeSet<>(hashes)) {
      if (found.size() == answeredPerRead) {
        break;
      }
      List<Struct> rows = new ArrayList<>();
      target.getOrDefault("events", Map.of()).entrySet().stream()
          .sorted(java.util.Comparator.comparing(e -> e.getKey().toString())).forEach(e -> {
            if (Value.int64(hash).equals(e.getValue().get(HASH))) {
              List<String> wanted = new ArrayList<>(List.of("row_id"));
              columns.stream().filter(c -> !wanted.contains(c)).forEach(wanted::add);
              rows.add(struct(e.getValue(), wanted));
            }
          });
      found.put(hash, rows);
    }
    return found;
  }

  /** The target's events whose columns equal {@code equal} (NULL: IS NULL), as a query by content answers. */
  private List<Struct> readByContent(TablePlan table, dev.pg2spanner.spanner.SpannerDialect dialect,
      List<String> columns, Map<String, Value> equal) {
    assertThat(table.target()).isEqualTo("events");
    contentReads.add(new java.util.LinkedHashMap<>(equal));
    return target.getOrDefault("events", Map.of()).entrySet().stream()
        .sorted(java.util.Comparator.comparing(e -> e.getKey().toString()))
        .filter(e -> equal.entrySet().stream().allMatch(q -> q.getValue().equals(e.getValue().get(q.getKey()))))
        .limit(TargetReads.LOOKUP_LIMIT)
        .map(e -> {
          List<String> wanted = new ArrayList<>(List.of("row_id"));
          columns.stream().filter(c -> !wanted.contains(c)).forEach(wanted::add);
          return struct(e.getValue(), wanted);
        }).toList();
  }

  private static Struct struct(Map<String, Value> row, List<String> columns) {
    if (row == null) {
      return null;
    }
    Struct.Builder struct = Struct.newBuilder();
    columns.forEach(c -> struct.set(c).to(row.get(c)));
    return struct.build();
  }

  private static long hash(String kind, long n) {
    return Canonical.rowHash64(List.of(Value.string(kind), Value.int64(n)));
  }

  /** Loads rows as the loader would have: a row_id each, the row hash beside. */
  private void load(Object... kindAndN) {
    Map<Key, Map<String, Value>> rows = target.computeIfAbsent("events", t -> new ConcurrentHashMap<>());
    for (int i = 0; i < kindAndN.length; i += 2) {
      String id = String.format("id-%03d", rows.size());
      Map<String, Value> row = new HashMap<>();
      row.put("row_id", Value.string(id));
      row.put("kind", Value.string((String) kindAndN[i]));
      row.put("n", Value.int64(((Number) kindAndN[i + 1]).longValue()));
      row.put(HASH, Value.int64(hash((String) kindAndN[i], ((Number) kindAndN[i + 1]).longValue())));
      rows.put(Key.of(id), row);
    }
  }

  /** The target's events as "kind n" lines, sorted. */
  private List<String> events() {
    return target.getOrDefault("events", Map.of()).values().stream()
        .map(r -> r.get("kind").getString() + " " + r.get("n").getInt64()).sorted().toList();
  }

  private static PgOutput.Tuple row(String kind, long n) {
    return new PgOutput.Tuple(new byte[] {PgOutput.Tuple.TEXT, PgOutput.Tuple.TEXT},
        new String[] {kind, Long.toString(n)});
  }

  private static PgOutput.Update update(String kind, long n, String newKind, long newN) {
    return new PgOutput.Update(1, 'O', row(kind, n), row(newKind, newN));
  }

  private static PgOutput.Delete delete(String kind, long n) {
    return new PgOutput.Delete(1, 'O', row(kind, n));
  }

  private static void transaction(ChangeApplier a, long lsn, PgOutput.Message... changes) {
    a.accept(new PgOutput.Begin(lsn, Instant.EPOCH, 1));
    for (PgOutput.Message m : changes) {
      a.accept(m);
    }
    a.accept(new PgOutput.Commit(lsn, lsn + 10, Instant.EPOCH));
  }

  @Test
  void theLookupsOfManySingleChangeTransactionsAreOneReadAndExact() throws Exception {
    // Three identical rows: two DELETEs remove two of them, one stays.
    load("a", 1, "a", 1, "a", 1, "b", 2, "c", 3, "d", 4);
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(dead);
      transaction(a, 100, delete("a", 1));
      transaction(a, 200, delete("a", 1));
      transaction(a, 300, update("b", 2, "b", 20));
      transaction(a, 400, update("b", 20, "b", 200)); // the row the transaction before updated, not committed yet
      transaction(a, 500, new PgOutput.Insert(1, row("e", 5)));
      transaction(a, 600, delete("e", 5)); // inserted by the transaction before
      transaction(a, 700, delete("c", 3));
      assertThat(commits).as("nothing is committed while the changes are held back").isEmpty();
      a.flush();
      assertThat(events()).containsExactly("a 1", "b 200", "d 4");
      assertThat(hashReads).as("one read for every lookup").containsExactly(new TreeSet<>(Set.of(hash("a", 1),
          hash("b", 2), hash("b", 20), hash("e", 5), hash("c", 3))));
      assertThat(counters.hashReads.sum()).isEqualTo(1);
      assertThat(counters.rejected.sum()).isZero();
      // Every change is in the commits with the last transaction's position, in order.
      List<Mutation> last = commits.get(commits.size() - 1);
      assertThat(last.get(last.size() - 1).asMap()).containsEntry("end_lsn", Value.int64(710));
      a.close();
    }
  }

  @Test
  void changesInOneTransactionToRowsItInsertedOrUpdatedAreFoundAmongItsOwnWrites() throws Exception {
    load("a", 1, "a", 1, "b", 2);
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(dead);
      transaction(a, 100, new PgOutput.Insert(1, row("a", 1)), update("a", 1, "x", 9), update("x", 9, "y", 9),
          delete("a", 1), delete("a", 1), update("b", 2, "a", 1), delete("y", 9));
      a.flush();
      // Three "a 1" (two loaded, one inserted): one updated (then gone as y 9), two deleted; b 2 became a 1.
      assertThat(events()).containsExactly("a 1");
      assertThat(counters.hashReads.sum()).isEqualTo(1);
      assertThat(counters.rejected.sum()).isZero();
      a.close();
    }
  }

  @Test
  void hashesAReadCutShortLeavesUnknownAreLookedUpAlone() throws Exception {
    load("a", 1, "b", 2, "c", 3, "d", 4);
    answeredPerRead = 2;
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(dead);
      transaction(a, 100, delete("a", 1), delete("b", 2), delete("c", 3), delete("d", 4));
      a.flush();
      assertThat(events()).isEmpty();
      assertThat(hashReads).hasSize(3); // the batch (two answered), then each of the other two alone
      assertThat(hashReads.subList(1, 3)).allSatisfy(read -> assertThat(read).hasSize(1));
      assertThat(counters.foundByHash.sum()).isEqualTo(4);
      a.close();
    }
  }

  @Test
  void aCommitInTheMiddleOfABatchMakesItsLaterLookupsReadAgain() throws Exception {
    load("a", 1, "a", 1);
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(dead);
      PgOutput.Tuple moved = new PgOutput.Tuple(new byte[] {PgOutput.Tuple.TEXT, PgOutput.Tuple.UNCHANGED},
          new String[] {"2", null});
      PgOutput.Tuple old = new PgOutput.Tuple(new byte[] {PgOutput.Tuple.TEXT, PgOutput.Tuple.NULL},
          new String[] {"1", null});
      // The first delete is answered by the batch's read; the parent row's move then commits everything (to read
      // the value it keeps), which forgets the applier's own writes: the second delete must not take the first
      // one's row from that read again (it is gone), but read anew and delete the other copy.
      transaction(a, 100, delete("a", 1), new PgOutput.Insert(2, new PgOutput.Tuple(new byte[] {PgOutput.Tuple.TEXT,
          PgOutput.Tuple.TEXT}, new String[] {"1", "kept"})), new PgOutput.Update(2, 'K', old, moved),
          delete("a", 1));
      a.flush();
      assertThat(events()).isEmpty();
      assertThat(target.get("parent")).containsOnlyKeys(Key.of(2L));
      assertThat(target.get("parent").get(Key.of(2L))).containsEntry("big", Value.string("kept"));
      assertThat(hashReads).as("the batch's read, then the rest's again after the commit").hasSize(2)
          .allSatisfy(read -> assertThat(read).containsExactly(hash("a", 1)));
      assertThat(counters.rejected.sum()).isZero();
      a.close();
    }
  }

  @Test
  void aKeyedTableAloneIsNeverHeldBack() throws Exception {
    load("z", 0);
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(dead);
      a.accept(new PgOutput.Begin(100, Instant.EPOCH, 1));
      a.accept(new PgOutput.Insert(2, new PgOutput.Tuple(new byte[] {PgOutput.Tuple.TEXT, PgOutput.Tuple.TEXT},
          new String[] {"1", "x"})));
      assertThat(a.inTransaction()).isTrue();
      a.accept(new PgOutput.Commit(100, 110, Instant.EPOCH));
      assertThat(a.inTransaction()).as("applied at once, nothing held back").isFalse();
      a.accept(new PgOutput.Begin(200, Instant.EPOCH, 1));
      a.accept(delete("z", 0));
      a.accept(new PgOutput.Commit(200, 210, Instant.EPOCH));
      assertThat(a.inTransaction()).as("a keyless lookup is held back").isTrue();
      a.idle();
      assertThat(a.inTransaction()).as("held back a little longer while the stream is idle").isTrue();
      Thread.sleep(ChangeApplier.MAX_AHEAD_NANOS / 1_000_000 + 20);
      a.idle();
      assertThat(a.inTransaction()).as("at most MAX_AHEAD_NANOS").isFalse();
      assertThat(events()).isEmpty();
      a.close();
    }
  }

  @Test
  void aRowItsHashDoesNotFindIsFoundByItsContent() throws Exception {
    load("click", 1, "view", 2);
    // A row written in part (by the application after cutover, say) has no row hash: the hash read misses it.
    target.get("events").values().stream().filter(r -> r.get("kind").getString().equals("view"))
        .forEach(r -> r.put(HASH, Value.int64(null)));
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(dead);
      transaction(a, 100, delete("view", 2));
      a.flush();
      assertThat(events()).containsExactly("click 1");
      // Found by one query on the identity's values, compared exactly, after the hash read found nothing.
      assertThat(hashReads).containsExactly(Set.of(hash("view", 2)));
      assertThat(contentReads).containsExactly(Map.of("kind", Value.string("view"), "n", Value.int64(2)));
      assertThat(counters.lookupScans.sum()).isEqualTo(1);
      assertThat(counters.rejected.sum()).isZero();
      a.close();
    }
  }
}
