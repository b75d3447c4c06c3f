package dev.pg2spanner.live.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerExceptionFactory;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.PgOutput;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The applier against a recording target: what each change becomes, and what each commit holds. */
class ChangeApplierTest {

  @TempDir
  Path dir;

  private static final TablePlan PARENT = new TablePlan("public.parent", false, "parent", null, 0, List.of(
      new ColumnPlan("id", "bigint", "id", "INT64", true, ValueConversion.INT64, null, null),
      new ColumnPlan("name", "text", "name", "STRING(MAX)", true, ValueConversion.STRING, null, null),
      new ColumnPlan("big", "text", "big", "STRING(MAX)", false, ValueConversion.STRING, null, null)),
      List.of(KeyPart.asc("id")), KeyStrategy.keep("k"), null, null, null, null, null);
  private static final TablePlan CHILD = new TablePlan("public.child", false, "child", null, 0, List.of(
      new ColumnPlan("id", "bigint", "id", "INT64", true, ValueConversion.INT64, null, null),
      new ColumnPlan("seq", "integer", "seq", "INT64", true, ValueConversion.INT64, null, null)),
      List.of(KeyPart.asc("id"), KeyPart.asc("seq")), KeyStrategy.keep("k"),
      new Interleave("parent", Interleave.OnDelete.CASCADE, "child_fk"), null, null, null, null);
  private static final Plan PLAN = new Plan(Plan.FORMAT_VERSION, "test", Instant.EPOCH,
      new Plan.Source("h:1/d", "15", List.of("public"), "f"), new Plan.Target("GOOGLE_STANDARD_SQL", true, 1),
      List.of(PARENT, CHILD), List.of(), List.of());

  private static final List<SourceShape.Relation> SHAPES = List.of(
      new SourceShape.Relation(1, "public", "parent", "parent", "public.parent", List.of(
          new SourceShape.Column("id", 20, -1, "bigint"), new SourceShape.Column("name", 25, -1, "text"),
          new SourceShape.Column("big", 25, -1, "text"))),
      new SourceShape.Relation(2, "public", "child", "child", "public.child", List.of(
          new SourceShape.Column("id", 20, -1, "bigint"), new SourceShape.Column("seq", 23, -1, "integer"))));

  private static final PgOutput.Relation PARENT_REL = new PgOutput.Relation(1, "public", "parent", 'd', List.of(
      new PgOutput.Column(true, "id", 20, -1), new PgOutput.Column(false, "name", 25, -1),
      new PgOutput.Column(false, "big", 25, -1)));
  private static final PgOutput.Relation CHILD_REL = new PgOutput.Relation(2, "public", "child", 'd', List.of(
      new PgOutput.Column(true, "id", 20, -1), new PgOutput.Column(true, "seq", 23, -1)));

  private final List<List<Mutation>> commits = new ArrayList<>();
  /** The relations the load read, as the applier is given them. */
  private List<SourceShape.Relation> shapes = SHAPES;
  /** What the applier reads from the source; null: nothing may be read. */
  private dev.pg2spanner.live.stream.SourceReads source;
  /** The text of the test target's refusals, when not the default for the code. */
  private String refusalMessage;
  private final List<LivePosition.Applied> recorded = new ArrayList<>();

  private ChangeApplier applier(LivePosition.Applied applied, DeadLetterFile dead, java.util.function.Predicate<
      List<Mutation>> refuse) {
    return applier(applied, dead, refuse, ErrorCode.INVALID_ARGUMENT);
  }

  private ChangeApplier applier(LivePosition.Applied applied, DeadLetterFile dead, java.util.function.Predicate<
      List<Mutation>> refuse, ErrorCode refusal) {
    LivePosition position = new LivePosition(null, "slot");
    return new ChangeApplier(PLAN, TableConverter.compileAll(PLAN), shapes, mutations -> {
      if (refuse.test(mutations)) {
        throw SpannerExceptionFactory.newSpannerException(refusal, refusalMessage != null ? refusalMessage
            : refusal == ErrorCode.NOT_FOUND ? "Table parent: Row {Int64(9)} not found." : "refused for the test");
      }
      commits.add(List.copyOf(mutations));
      applyToTarget(mutations);
    }, new RetryPolicy(1, Duration.ZERO, Duration.ZERO, ms -> { }), position, applied, source, dead, 5,
        new ApplyCounters(), new ChangeApplier.Events() {
          @Override
          public void committed(LivePosition.Applied a) {
            recorded.add(a);
          }

          @Override
          public void barrier(String content) {
          }
        }, (table, chunk) -> {
          if (table.target().equals("child")) {
            chunk.accept(List.of(Key.of(1, 1), Key.of(1, 2)));
            chunk.accept(List.of(Key.of(2, 1)));
          } else {
            chunk.accept(List.of(Key.of(1), Key.of(2)));
          }
        }, (table, key, columns) -> {
          reads.add(table + " " + key + " after " + commits.size() + " commit(s)");
          Map<String, Value> row = target.get(table + " " + key);
          if (row == null) {
            return null;
          }
          com.google.cloud.spanner.Struct.Builder struct = com.google.cloud.spanner.Struct.newBuilder();
          for (String column : columns) {
            struct.set(column).to(row.get(column));
          }
          return struct.build();
        }, null, null);
  }

  /** The parent rows the recorded commits hold, as "table [key]" to their values (what a read of the target sees). */
  private final Map<String, Map<String, Value>> target = new HashMap<>();
  private final List<String> reads = new ArrayList<>();

  private void applyToTarget(List<Mutation> mutations) {
    for (Mutation m : mutations) {
      if (!m.getTable().equals("parent")) {
        continue;
      }
      if (m.getOperation() == Mutation.Op.DELETE) {
        m.getKeySet().getKeys().forEach(k -> target.remove("parent " + k));
        continue;
      }
      Map<String, Value> values = m.asMap();
      String key = "parent " + Key.of(values.get("id").getInt64());
      if (m.getOperation() == Mutation.Op.UPDATE) {
        target.get(key).putAll(values);
      } else {
        target.put(key, new HashMap<>(values));
      }
    }
  }

  private static PgOutput.Tuple tuple(Object... values) {
    byte[] kinds = new byte[values.length];
    String[] texts = new String[values.length];
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        kinds[i] = PgOutput.Tuple.NULL;
      } else if (values[i] == PgOutput.class) {
        kinds[i] = PgOutput.Tuple.UNCHANGED;
      } else {
        kinds[i] = PgOutput.Tuple.TEXT;
        texts[i] = values[i].toString();
      }
    }
    return new PgOutput.Tuple(kinds, texts);
  }

  private static final Object UNCHANGED = PgOutput.class;

  private static void transaction(ChangeApplier a, long lsn, PgOutput.Message... changes) {
    a.accept(new PgOutput.Begin(lsn, Instant.parse("2026-01-01T00:00:00Z"), 1));
    for (PgOutput.Message m : changes) {
      a.accept(m);
    }
    a.accept(new PgOutput.Commit(lsn, lsn + 10, Instant.parse("2026-01-01T00:00:00Z")));
  }

  @Test
  void changesBecomeMutationsAndThePositionIsInTheSameCommit() throws Exception {
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> false);
      a.accept(PARENT_REL);
      a.accept(CHILD_REL);
      transaction(a, 100,
          new PgOutput.Insert(1, tuple(7, "seven", "x".repeat(3000))),
          new PgOutput.Insert(2, tuple(7, 1)),
          // big unchanged (TOASTed): an update of the columns sent
          new PgOutput.Update(1, (char) 0, null, tuple(7, "renamed", UNCHANGED)),
          // the key moves: delete the old key, write the new row
          new PgOutput.Update(2, 'K', tuple(7, 1), tuple(7, 2)),
          new PgOutput.Delete(1, 'K', tuple(8, null, null)));
      a.flush();
      assertThat(commits).hasSize(1);
      List<Mutation> c = commits.get(0);
      assertThat(c).hasSize(7);
      assertThat(c.get(0).getOperation()).isEqualTo(Mutation.Op.INSERT_OR_UPDATE);
      assertThat(c.get(0).asMap().get("big").getString()).hasSize(3000);
      assertThat(c.get(1).getTable()).isEqualTo("child");
      assertThat(c.get(2).getOperation()).isEqualTo(Mutation.Op.UPDATE);
      assertThat(c.get(2).asMap()).containsOnlyKeys("id", "name");
      assertThat(c.get(3)).isEqualTo(Mutation.delete("child", Key.of(7L, 1L)));
      assertThat(c.get(4).asMap()).containsEntry("seq", Value.int64(2));
      assertThat(c.get(5)).isEqualTo(Mutation.delete("parent", Key.of(8L)));
      assertThat(c.get(6).getTable()).isEqualTo(LivePosition.TABLE);
      assertThat(c.get(6).asMap()).containsEntry("end_lsn", Value.int64(110)).containsEntry("lsn",
          Value.string("0/6E"));
      assertThat(recorded).containsExactly(new LivePosition.Applied(110, Instant.parse("2026-01-01T00:00:00Z")));
      assertThat(a.applied().endLsn()).isEqualTo(110);
    }
  }

  /**
   * A row that moves to another key keeps its unchanged TOASTed values as Spanner holds them at the old key, read after
   * what waits for the table is committed; never from the source, which may have moved or deleted the row since (a
   * cut between the two transactions would find it missing). The old values are read even when the row was written
   * in the same batch.
   */
  @Test
  void aRowThatMovesKeepsItsUnchangedValuesFromTheTargetsOldRow() throws Exception {
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> false);
      a.accept(PARENT_REL);
      transaction(a, 100, new PgOutput.Insert(1, tuple(7, "seven", "x".repeat(3000))));
      // Waiting, not committed: the read that the move needs commits it first.
      transaction(a, 200, new PgOutput.Update(1, 'K', tuple(7, null, null), tuple(9, "moved", UNCHANGED)));
      // Moved again in a later transaction (the source no longer has key 9: a source lookup would find nothing).
      transaction(a, 300, new PgOutput.Update(1, 'K', tuple(9, null, null), tuple(11, "again", UNCHANGED)));
      a.flush();
      assertThat(reads).containsExactly("parent [7] after 1 commit(s)", "parent [9] after 2 commit(s)");
      assertThat(target).containsOnlyKeys("parent [11]");
      assertThat(target.get("parent [11]").get("big").getString()).isEqualTo("x".repeat(3000));
      assertThat(target.get("parent [11]").get("name").getString()).isEqualTo("again");
      List<Mutation> second = commits.get(1);
      assertThat(second.get(0)).isEqualTo(Mutation.delete("parent", Key.of(7L)));
      assertThat(second.get(1).getOperation()).as("the whole row, at a key Spanner does not have yet")
          .isEqualTo(Mutation.Op.INSERT_OR_UPDATE);
      assertThat(dead.count()).isZero();
    }
  }

  /**
   * A cut is exact or refused: while its slot is being made the stream waits at its next transaction, so the cut is
   * reached before anything past it is applied; a cut asked for after the stream applied a transaction past its
   * position is refused (no Spanner state is exactly the cut's), never completed with a timestamp that is ahead.
   */
  @Test
  void aCutIsReachedBeforeAnyTransactionPastItOrRefused() throws Exception {
    java.util.concurrent.ExecutorService stream = java.util.concurrent.Executors.newSingleThreadExecutor();
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> false);
      a.accept(PARENT_REL);
      // Held: the stream does not apply transaction 100 (nor 200) until the cut's position is known.
      a.holdForCut();
      java.util.concurrent.Future<?> streamed = stream.submit(() -> {
        transaction(a, 100, new PgOutput.Insert(1, tuple(1, "one", null)));
        transaction(a, 200, new PgOutput.Insert(1, tuple(2, "two", null)));
        a.flush();
      });
      Thread.sleep(300);
      assertThat(streamed.isDone()).as("the stream waits while the cut is taken").isFalse();
      List<Integer> committedAtCut = new ArrayList<>();
      java.util.concurrent.CompletableFuture<com.google.cloud.Timestamp> done =
          new java.util.concurrent.CompletableFuture<>();
      a.requestCut(new ChangeApplier.CutRequest(150, () -> {
        committedAtCut.add(target.size());
        return com.google.cloud.Timestamp.ofTimeMicroseconds(1);
      }, done));
      streamed.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(done.get(1, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
      assertThat(committedAtCut).as("rows in Spanner when the cut's timestamp was taken").containsExactly(1);
      assertThat(target).containsOnlyKeys("parent [1]", "parent [2]");

      // Asked for only after transaction 300 (past it) was applied: refused.
      transaction(a, 300, new PgOutput.Insert(1, tuple(3, "three", null)));
      java.util.concurrent.CompletableFuture<com.google.cloud.Timestamp> late =
          new java.util.concurrent.CompletableFuture<>();
      a.requestCut(new ChangeApplier.CutRequest(250, () -> com.google.cloud.Timestamp.ofTimeMicroseconds(2), late));
      transaction(a, 400, new PgOutput.Insert(1, tuple(4, "four", null)));
      assertThat(late).isCompletedExceptionally();
      assertThatThrownBy(late::get).hasMessageContaining("past the cut");
      a.flush();
      assertThat(target).hasSize(4);
    } finally {
      stream.shutdownNow();
    }
  }

  @Test
  void transactionsAtOrBeforeTheAppliedPositionAreSkipped() throws Exception {
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(new LivePosition.Applied(110, null), dead, m -> false);
      a.accept(PARENT_REL);
      transaction(a, 100, new PgOutput.Insert(1, tuple(1, "replayed", null)));
      transaction(a, 120, new PgOutput.Insert(1, tuple(2, "new", null)));
      a.flush();
      assertThat(commits).hasSize(1);
      assertThat(commits.get(0)).extracting(Mutation::getTable).containsExactly("parent", LivePosition.TABLE);
      assertThat(commits.get(0).get(0).asMap()).containsEntry("id", Value.int64(2));
    }
  }

  @Test
  void aChangeSpannerRefusesIsDeadLetteredAndTheRestCommitted() throws Exception {
    Path file = dir.resolve("dead.jsonl");
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      ChangeApplier a = applier(null, dead, m -> m.size() > 1
          || (m.get(0).getTable().equals("parent") && m.get(0).asMap().get("id").getInt64() == 66));
      a.accept(PARENT_REL);
      transaction(a, 200, new PgOutput.Insert(1, tuple(65, "ok", null)), new PgOutput.Insert(1, tuple(66, "bad",
          null)));
      a.flush();
    }
    assertThat(commits).extracting(m -> m.get(0).getTable()).containsExactly("parent", LivePosition.TABLE);
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).contains("\"key\":\"66\"").contains("refused for the test")
        .contains("committed at 0/C8");
  }

  /**
   * Applies one insert into a target that fails every commit with {@code code} and {@code message}: the failure that
   * stops the stream, after checking that nothing was dead-lettered (the rows are not at fault).
   */
  private Pg2SpannerException targetFailing(ErrorCode code, String message) throws Exception {
    refusalMessage = message;
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> true, code);
      a.accept(PARENT_REL);
      transaction(a, 200, new PgOutput.Insert(1, tuple(65, "ok", null)));
      Pg2SpannerException stopped = org.junit.jupiter.api.Assertions.assertThrows(Pg2SpannerException.class,
          a::flush);
      assertThat(dead.count()).as("nothing dead-lettered: the rows are not at fault").isZero();
      a.close();
      return stopped;
    }
  }

  @Test
  void aTargetWhoseTableIsGoneStopsTheStreamAsAConflictNotAsALostConnection() throws Exception {
    Pg2SpannerException e = targetFailing(ErrorCode.NOT_FOUND, "Table not found: parent");
    assertThat(e.code()).isEqualTo(ExitCode.TARGET_CONFLICT);
    assertThat(e.getMessage()).contains("no longer match the plan").contains("--resume");
    assertThat(commits).isEmpty();
  }

  @Test
  void aTargetThatStopsAnsweringStopsTheStreamWithItsWayOnAndDeadLettersNothing() throws Exception {
    Pg2SpannerException e = targetFailing(ErrorCode.UNAVAILABLE, "the emulator went away");
    assertThat(e.code()).isEqualTo(ExitCode.TARGET_CONNECTION);
    assertThat(e.next()).isEqualTo(dev.pg2spanner.error.NextStep.RESUME);
    assertThat(e.getMessage()).contains("did not accept the streamed changes after 1 attempt(s)")
        .contains("the emulator went away").contains("rerun migrate --live --resume")
        .contains("the slot keeps every change not yet applied");
    assertThat(recorded).as("no position recorded past what Spanner holds").isEmpty();
  }

  @Test
  void aTargetThatRefusesWhoWeAreIsNamedAsARefusalAtOnce() throws Exception {
    Pg2SpannerException e = targetFailing(ErrorCode.PERMISSION_DENIED,
        "caller lacks permission spanner.sessions.create");
    assertThat(e.code()).isEqualTo(ExitCode.TARGET_CONNECTION);
    assertThat(e.getMessage()).startsWith("Spanner refused the streamed changes (PERMISSION_DENIED")
        .contains("its permissions").contains("--resume");
  }

  @Test
  void aTransactionTooBigForOneCommitIsRecordedAsPartialAndItsReplayToleratesItsOwnEffects() throws Exception {
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(new LivePosition.Applied(110, null), dead, m -> false);
      a.accept(PARENT_REL);
      a.accept(new PgOutput.Begin(500, Instant.EPOCH, 9));
      for (int i = 0; i < 7_000; i++) {
        a.accept(new PgOutput.Insert(1, tuple(i, "n", null)));
      }
      // 7,000 rows of 3 cells passed 20,000 mutations: the first part is committed (on the committer's thread,
      // while the stream goes on), marked partial.
      a.awaitCommitted();
      assertThat(commits).hasSize(1);
      Mutation mark = commits.get(0).get(commits.get(0).size() - 1);
      assertThat(mark.getTable()).isEqualTo(LivePosition.TABLE);
      assertThat(mark.asMap()).containsEntry("end_lsn", Value.int64(110)).containsEntry("partial_lsn",
          Value.int64(500));
      a.accept(new PgOutput.Commit(500, 510, Instant.EPOCH));
      a.flush();
      assertThat(commits.get(1).get(commits.get(1).size() - 1).asMap()).containsEntry("end_lsn", Value.int64(510))
          .containsEntry("partial_lsn", Value.int64((Long) null));
    }
    Path file = dir.resolve("replay.jsonl");
    commits.clear();
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      // The crash came after the first part: the replay meets rows its own later part already deleted.
      ChangeApplier a = applier(new LivePosition.Applied(110, null, 500L), dead,
          m -> m.get(0).getOperation() == Mutation.Op.UPDATE, ErrorCode.NOT_FOUND);
      a.accept(PARENT_REL);
      transaction(a, 500, new PgOutput.Update(1, (char) 0, null, tuple(9, "x", UNCHANGED)),
          new PgOutput.Delete(1, 'K', tuple(9, null, null)));
      a.flush();
      // Another transaction's update of a missing row is still a rejected change.
      transaction(a, 600, new PgOutput.Update(1, (char) 0, null, tuple(9, "y", UNCHANGED)));
      a.flush();
    }
    assertThat(Files.readAllLines(file)).hasSize(1).allMatch(l -> l.contains("committed at 0/258"));
  }

  @Test
  void aNullInANotNullColumnIsRejectedAndTooManyRejectsStopTheStream() throws Exception {
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> false);
      a.accept(PARENT_REL);
      assertThatThrownBy(() -> {
        for (int i = 0; i < 6; i++) {
          transaction(a, 300 + i * 20, new PgOutput.Insert(1, tuple(i, null, null)));
        }
        a.flush();
      }).isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
        assertThat(e.code()).isEqualTo(ExitCode.DATA_REJECTED);
        assertThat(e.getMessage()).startsWith("6 streamed changes were rejected (limit --max-bad-rows 5)");
      });
    }
  }

  @Test
  void theStreamGoesOnWhileACommitIsInFlightAndCommitsStayInOrder() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch firstStarted = new java.util.concurrent.CountDownLatch(1);
    List<List<Mutation>> seen = java.util.Collections.synchronizedList(new ArrayList<>());
    LivePosition position = new LivePosition(null, "slot");
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = new ChangeApplier(PLAN, TableConverter.compileAll(PLAN), SHAPES, mutations -> {
        firstStarted.countDown();
        try {
          release.await(); // the first commit hangs until the test lets it go
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        seen.add(List.copyOf(mutations));
      }, new RetryPolicy(1, Duration.ZERO, Duration.ZERO, ms -> { }), position, null, null, dead, 5,
          new ApplyCounters(), new ChangeApplier.Events() {
            @Override
            public void committed(LivePosition.Applied applied) {
            }

            @Override
            public void barrier(String content) {
            }
          }, (table, chunk) -> { }, (table, key, columns) -> null, null, null);
      a.accept(PARENT_REL);
      // 7,000 rows of 3 cells: past 20,000 mutations the first part goes to the committer, which hangs.
      a.accept(new PgOutput.Begin(500, Instant.EPOCH, 9));
      for (int i = 0; i < 7_000; i++) {
        a.accept(new PgOutput.Insert(1, tuple(i, "n", null)));
      }
      assertThat(firstStarted.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("a commit started").isTrue();
      // The stream is not held by it: the rest of the transaction is taken in while the commit hangs.
      for (int i = 7_000; i < 7_100; i++) {
        a.accept(new PgOutput.Insert(1, tuple(i, "n", null)));
      }
      a.accept(new PgOutput.Commit(500, 510, Instant.EPOCH));
      assertThat(seen).isEmpty();
      release.countDown();
      a.flush();
      assertThat(seen).hasSize(2);
      assertThat(seen.get(0).get(0).asMap().get("id")).isEqualTo(Value.int64(0));
      assertThat(seen.get(1).get(seen.get(1).size() - 1).asMap()).containsEntry("end_lsn", Value.int64(510));
      assertThat(a.applied().endLsn()).isEqualTo(510);
      a.close();
    }
  }

  @Test
  void smallTransactionsPastTheDelayWaitInTheNextCommitWhileOneIsInFlightInsteadOfHoldingTheStream()
      throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch firstStarted = new java.util.concurrent.CountDownLatch(1);
    List<List<Mutation>> seen = java.util.Collections.synchronizedList(new ArrayList<>());
    List<LivePosition.Applied> positions = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.ExecutorService stream = java.util.concurrent.Executors.newSingleThreadExecutor();
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = new ChangeApplier(PLAN, TableConverter.compileAll(PLAN), SHAPES, mutations -> {
        firstStarted.countDown();
        try {
          release.await(); // every commit hangs until the test lets them go
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        seen.add(List.copyOf(mutations));
      }, new RetryPolicy(1, Duration.ZERO, Duration.ZERO, ms -> { }), new LivePosition(null, "slot"), null, null,
          dead, 5, new ApplyCounters(), new ChangeApplier.Events() {
            @Override
            public void committed(LivePosition.Applied applied) {
              positions.add(applied);
            }

            @Override
            public void barrier(String content) {
            }
          }, (table, chunk) -> { }, (table, key, columns) -> null, null, null);
      a.accept(PARENT_REL);
      // A transaction of 7,000 rows: past 20,000 mutations its first part goes to the committer, which hangs.
      a.accept(new PgOutput.Begin(500, Instant.EPOCH, 9));
      for (int i = 0; i < 7_000; i++) {
        a.accept(new PgOutput.Insert(1, tuple(i, "n", null)));
      }
      a.accept(new PgOutput.Commit(500, 510, Instant.EPOCH));
      assertThat(firstStarted.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("a commit started").isTrue();
      Thread.sleep(ChangeApplier.MAX_DELAY_NANOS / 1_000_000 + 50); // what waits is now due
      // 50 single-row transactions arrive while the commit hangs: the stream takes them all in.
      java.util.concurrent.Future<?> taken = stream.submit(() -> {
        for (int t = 0; t < 50; t++) {
          transaction(a, 1_000 + t * 100L, new PgOutput.Insert(1, tuple(10_000 + t, "n", null)));
        }
      });
      taken.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(seen).as("still one commit in flight, none finished").isEmpty();
      release.countDown();
      a.flush();
      // Two commits in order: the first part of the big transaction, then its rest with all 50 small ones, recorded
      // at the last one's end.
      assertThat(seen).hasSize(2);
      List<Mutation> second = seen.get(1);
      assertThat(second.get(second.size() - 2).asMap()).containsEntry("id", Value.int64(10_049));
      assertThat(second.get(second.size() - 1).asMap()).containsEntry("end_lsn", Value.int64(1_000 + 49 * 100 + 10));
      assertThat(positions).extracting(LivePosition.Applied::endLsn).containsExactly(1_000L + 49 * 100 + 10);
      a.close();
    } finally {
      stream.shutdownNow();
    }
  }

  @Test
  void aTruncateDeletesChildrenBeforeParents() throws Exception {
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> false);
      a.accept(PARENT_REL);
      a.accept(CHILD_REL);
      transaction(a, 400, new PgOutput.Truncate(List.of(1, 2), true, false));
      a.flush();
      // Each key range in a commit of its own, children first, the transaction's position only after the last.
      assertThat(commits).hasSize(4);
      assertThat(commits.get(0)).startsWith(Mutation.delete("child", Key.of(1, 1)), Mutation.delete("child",
          Key.of(1, 2)));
      assertThat(commits.get(1)).first().isEqualTo(Mutation.delete("child", Key.of(2, 1)));
      assertThat(commits.get(2)).startsWith(Mutation.delete("parent", Key.of(1)), Mutation.delete("parent",
          Key.of(2)));
      assertThat(recorded).hasSize(1);
      assertThat(commits.get(3)).singleElement().satisfies(m -> assertThat(m.getTable())
          .isEqualTo(LivePosition.TABLE));
    }
  }

  @Test
  void aRelationWhoseColumnsChangedStopsTheStream() throws Exception {
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> false);
      PgOutput.Relation altered = new PgOutput.Relation(1, "public", "parent", 'd', List.of(
          new PgOutput.Column(true, "id", 20, -1), new PgOutput.Column(false, "name", 1043, 14),
          new PgOutput.Column(false, "extra", 23, -1)));
      assertThatThrownBy(() -> a.accept(altered)).isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
        assertThat(e.code()).isEqualTo(ExitCode.PLAN_INVALID);
        assertThat(e.getMessage()).contains("the source table public.parent changed")
            .contains("column name changed type (it was text)").contains("column extra was added")
            .contains("column big was dropped or renamed");
      });
    }
  }

  @Test
  void aPartitionAttachedSinceTheLoadIsFoundThroughTheSourceAndItsChangesGoToItsTable() throws Exception {
    // parent is partitioned on the source: the load read its partition parent_p1.
    shapes = List.of(new SourceShape.Relation(3, "public", "parent_p1", "parent", "public.parent", List.of(
        new SourceShape.Column("id", 20, -1, "bigint"), new SourceShape.Column("name", 25, -1, "text"),
        new SourceShape.Column("big", 25, -1, "text"))), SHAPES.get(1));
    List<Integer> asked = new ArrayList<>();
    source = new dev.pg2spanner.live.stream.SourceReads() {
      @Override
      public Map<String, String> row(String relation, List<String> keyColumns, List<String> keyTypes,
          List<String> keyTexts, List<String> wanted) {
        throw new AssertionError("no row is read for an insert");
      }

      @Override
      public String partitionRoot(int relationId) {
        asked.add(relationId);
        return relationId == 9 ? "public.parent" : null;
      }
    };
    try (DeadLetterFile dead = DeadLetterFile.open(dir.resolve("dead.jsonl"))) {
      ChangeApplier a = applier(null, dead, m -> false);
      a.accept(new PgOutput.Relation(9, "public", "parent_p2", 'd', PARENT_REL.columns()));
      transaction(a, 100, new PgOutput.Insert(9, tuple(5, "five", "x")));
      a.flush();
      assertThat(asked).containsExactly(9);
      assertThat(commits).singleElement().satisfies(c -> assertThat(c.get(0).getTable()).isEqualTo("parent"));
      assertThat(target).containsKey("parent " + Key.of(5L));
      // A relation that is no partition of a planned table is not covered: the stream stops, resumable.
      assertThatThrownBy(() -> a.accept(new PgOutput.Relation(10, "public", "stray", 'd', PARENT_REL.columns())))
          .isInstanceOfSatisfying(dev.pg2spanner.error.Pg2SpannerException.class, e -> {
            assertThat(e.code()).isEqualTo(dev.pg2spanner.error.ExitCode.PLAN_INVALID);
            assertThat(e.next()).isEqualTo(dev.pg2spanner.error.NextStep.RESUME);
            assertThat(e.getMessage()).contains("public.stray, which the plan does not cover");
          });
      a.close();
    }
  }
}
