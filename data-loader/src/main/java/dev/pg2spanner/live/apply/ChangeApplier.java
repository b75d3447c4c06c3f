package dev.pg2spanner.live.apply;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.ChangeSink;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.live.stream.PgOutput;
import dev.pg2spanner.live.stream.SourceReads;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.load.DeadLetterFile;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.convert.ValueRejection;
import dev.pg2spanner.load.row.CommitLimits;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.write.BoundedWrite;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.load.write.WriteTarget;
import dev.pg2spanner.plan.InterleaveTree;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies decoded pgoutput messages to Spanner: each change becomes mutations through the same converters the load
 * used, in the source's order, and the mutations are committed in groups of whole source transactions together with
 * the applied position ({@link LivePosition}) — in the same commit, so Spanner's rows and the recorded position never
 * disagree. A source transaction bigger than one commit is written in several commits, the position only with the
 * last (a crash in between replays the whole transaction, which the idempotent mutations make harmless).
 *
 * <p>How changes map: an insert, or an update that carries every column, is an insert-or-update of the whole row;
 * an update that leaves TOASTed values unchanged (the stream does not send them) is an update of the columns sent,
 * so Spanner keeps what it holds; an update that moves a row to another key deletes the old key and writes the new
 * row, reading values the stream did not carry from the source; a delete names the row's whole Spanner key (hash
 * shards computed as Spanner computes them); a table without a key (REPLICA IDENTITY FULL) has its rows found by
 * content. TRUNCATE deletes every row of the tables it names. Changes Spanner refuses go to the dead-letter file.
 *
 * <p>Transactions that end at or before the position already applied are skipped: after a restart the slot
 * replays from its last confirmed position, which may be earlier. Not thread-safe: one stream, one applier.
 */
public final class ChangeApplier implements ChangeSink {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeApplier.class);

  /** Prefix of the logical messages cutover writes into the WAL as barriers. */
  public static final String BARRIER_PREFIX = "pg2spanner";

  /**
   * The prefix of a message the catalog watch writes into the WAL when the source's catalog differs from the plan (a
   * table created or dropped, an index): the applier reconciles where it arrives, so a dropped table's last changes,
   * all committed before it, are applied before the table is dropped in Spanner. Its content lists the dropped tables.
   */
  public static final String CATALOG_PREFIX = "pg2spanner-catalog";

  /**
   * Rows a TRUNCATE deletes per commit (divided by one plus the table's indexes): a whole hierarchy deleted in one
   * commit ({@code KeySet.all()}) kept the emulator busy for minutes, and real Spanner counts index entries against
   * its mutation limit.
   */
  static final int TRUNCATE_ROWS_PER_COMMIT = 2_000;

  /** How long completed transactions may wait to be committed together (bounds the lag they add). */
  static final long MAX_DELAY_NANOS = 200_000_000L;

  /** What the stream learns from the applier. */
  public interface Events {
    /** A commit recorded the position: every source transaction up to {@code applied} is in Spanner. */
    void committed(LivePosition.Applied applied);

    /** A barrier written by cutover was reached: every transaction committed before it is in Spanner. */
    void barrier(String content);

    /**
     * A streamed change names a row of {@code table} by its key texts ({@link Binding#keyTexts}), in the source
     * transaction committed at {@code lsn}; called before the change is applied or rejected.
     */
    default void rowChanged(String table, String[] keyTexts, long lsn) {}

    /** A change to {@code table} that names no row by key (a TRUNCATE, a row found by content). */
    default void tableChanged(String table, long lsn) {}

    /** A table created on the source while streaming is in Spanner as of the cut being taken: verify it from now on. */
    default void tableAdded(String table) {}

    /** A table dropped on the source is dropped in Spanner. */
    default void tableDropped(String table) {}
  }

  /** What follows a table whose columns changed on the source while streaming (see {@link SchemaFollower}). */
  public interface SchemaChanges {
    /**
     * The relation {@code now} no longer has the shape the stream had: change the target to match, or throw.
     *
     * @param lsn the commit position of the transaction the change arrived in
     * @return the revised plan and the relation's new shape
     */
    Followed follow(SourceShape.Relation shape, PgOutput.Relation now, TablePlan table, long lsn);
  }

  /** A followed schema change: the plan to convert by from now on, and the relation's new shape. */
  public record Followed(Plan plan, SourceShape.Relation shape) {}

  /** What follows tables and indexes created or dropped on the source (see {@link CatalogFollower}). */
  public interface CatalogChanges {
    /**
     * Brings the target and the plan in step with the source's catalog.
     *
     * @param dropped the source tables found dropped when the message that asks for this was written (every change
     *     to them precedes it in the stream); empty when a new relation's first change asks
     * @param lsn the position of that message or change
     */
    Reconciled reconcile(List<String> dropped, long lsn);
  }

  /**
   * A reconciled catalog: the plan to convert by, the relations of tables created (each with the position its copy
   * holds everything before), and the target tables dropped.
   */
  public record Reconciled(Plan plan, List<SourceShape.Relation> added, List<String> dropped) {
    public Reconciled {
      added = List.copyOf(added);
      dropped = List.copyOf(dropped);
    }
  }

  /** From now on, follow tables and indexes created or dropped on the source with {@code changes}. */
  public void followCatalogChanges(CatalogChanges changes) {
    this.catalogChanges = changes;
  }

  /** From now on, follow schema changes with {@code changes} instead of stopping at them. */
  public void followSchemaChanges(SchemaChanges changes) {
    this.schemaChanges = changes;
  }

  /** The plan the stream converts by now. */
  public Plan plan() {
    return plan;
  }

  /**
   * A consistent cut asked for by another thread: when every source transaction committed before {@code lsn} is
   * applied and none after it, the applier commits what waits and completes {@code done} with {@code timestamp}'s
   * answer, taken on the applier's own thread — a Spanner read at that timestamp sees exactly those transactions.
   */
  public record CutRequest(long lsn, java.util.function.Supplier<com.google.cloud.Timestamp> timestamp,
      java.util.concurrent.CompletableFuture<com.google.cloud.Timestamp> done) {}

  /** The plan as the stream now converts by: revised when a schema change is followed. */
  private volatile Plan plan;
  private final Map<String, TableConverter> converters;
  /** Follows created and dropped tables and indexes; null stops the stream at an unplanned table instead. */
  private CatalogChanges catalogChanges;
  /**
   * Tables created on the source while streaming whose copy's position a cut has not yet reached, with that position:
   * continuous verification takes them in at the first cut at or after it (before, Spanner holds rows ahead of it).
   */
  private final Map<String, Long> joining = new HashMap<>();
  /** Follows a table whose columns changed; null stops the stream at such a change instead. */
  private SchemaChanges schemaChanges;
  private final Map<Integer, SourceShape.Relation> shapes = new HashMap<>();
  private final Map<String, List<Integer>> relationsOfTable = new HashMap<>();
  private final LivePosition position;
  private final SourceReads lookup;
  private final TargetReads.TargetRows rows;
  private final DeadLetterFile deadLetters;
  private final long maxBadRows;
  private final ApplyCounters counters;
  private final Events events;
  private final Map<Integer, Binding> bindings = new HashMap<>();
  private InterleaveTree tree;
  private final TargetReads.TableKeys tableKeys;

  private final List<ApplyCommitter.Pending> pending = new ArrayList<>();
  private final Set<String> pendingTables = new java.util.HashSet<>();
  private long pendingCells;
  private long pendingBytes;
  private long firstPendingNanos;
  /** The last completed transaction whose changes are all in {@link #pending} or committed, not yet recorded. */
  private LivePosition.Applied boundary;
  /** Written by the committer thread once a commit holding it succeeded; read by the stream. */
  private volatile LivePosition.Applied applied;
  private PgOutput.Begin transaction;
  private boolean skipping;
  /** The commit LSN of a transaction whose first part an earlier run applied (from the stored position), or null. */
  private final Long partiallyApplied;
  /** True while that transaction is replayed: finding its own effects already applied is expected. */
  private boolean replaying;
  private int ordinal;
  private final java.util.concurrent.atomic.AtomicLong rejectedHere = new java.util.concurrent.atomic.AtomicLong();
  /** Commits the batches on a thread of its own, one at a time and in order. */
  private final ApplyCommitter committer;
  /** Finds the rows that changes to keyless tables name. */
  private final KeylessRows keyless;
  /**
   * Messages held back so the row-hash lookups of many changes to keyless tables are made in one read per table
   * ({@link #accept}); applied in order by {@link #applyAhead}.
   */
  private final List<PgOutput.Message> ahead = new ArrayList<>();
  private int aheadLookups;
  private long aheadSinceNanos;
  /** Lookups held back at most before they are made together. */
  static final int LOOKUPS_PER_READ = 500;
  /** Messages held back at most (they hold their tuples in memory). */
  static final int MAX_AHEAD = 5_000;
  /** How long a message may be held back (bounds the lag this adds while changes keep arriving). */
  static final long MAX_AHEAD_NANOS = 100_000_000L;
  /** Rows of tables found by content written since Spanner last held everything (see {@link WrittenRows}). */
  private final WrittenRows written = new WrittenRows();
  /** Past this many written rows remembered, everything is committed and they are forgotten. */
  private static final int MAX_WRITTEN_ROWS = 10_000;

  /** The cuts asked for by other threads, and the hold while one is prepared. */
  private final CutGate cuts = new CutGate();


  /**
   * @param shapes the relations the load read, with the shape each had
   * @param applied the position already applied (from {@link LivePosition#read()}), or null
   * @param maxBadRows changes refused beyond this stop the stream (DATA_REJECTED)
   */
  public ChangeApplier(Plan plan, Map<String, TableConverter> converters, List<SourceShape.Relation> shapes,
      DatabaseClient client, LivePosition position, LivePosition.Applied applied, SourceReads lookup,
      DeadLetterFile deadLetters, long maxBadRows, ApplyCounters counters, Events events) {
    this(plan, converters, shapes, new BoundedWrite(client), RetryPolicy.DEFAULT, position, applied, lookup,
        deadLetters, maxBadRows, counters, events, TargetReads.readingKeys(client, plan),
        TargetReads.readingRows(client), TargetReads.readingHashes(client), TargetReads.readingByContent(client));
  }

  /**
   * An applier that reaches Spanner only through {@code target} (its commits) and the reads given, and the source only
   * through {@code lookup} (tests give their own).
   */
  public ChangeApplier(Plan plan, Map<String, TableConverter> converters, List<SourceShape.Relation> shapes,
      WriteTarget target, RetryPolicy retry, LivePosition position,
      LivePosition.Applied applied, SourceReads lookup, DeadLetterFile deadLetters, long maxBadRows,
      ApplyCounters counters, Events events, TargetReads.TableKeys tableKeys, TargetReads.TargetRows rows,
      TargetReads.HashedRows hashedRows, TargetReads.RowsByContent byContent) {
    this.plan = plan;
    this.keyless = new KeylessRows(written, hashedRows, byContent, counters);
    this.tableKeys = tableKeys;
    this.rows = rows;
    this.tree = InterleaveTree.of(plan);
    this.converters = new HashMap<>(converters);
    for (SourceShape.Relation shape : shapes) {
      this.shapes.put(shape.relationId(), shape);
      relationsOfTable.computeIfAbsent(shape.table(), t -> new ArrayList<>()).add(shape.relationId());
      if (shape.copiedTo() != null && (applied == null || shape.copiedTo() > applied.endLsn())) {
        joining.merge(shape.table(), shape.copiedTo(), Math::max); // resumed before its copy's position
      }
    }
    this.position = position;
    this.applied = applied;
    this.partiallyApplied = applied == null ? null : applied.partialLsn();
    this.committer = new ApplyCommitter(target, retry, position, counters, partiallyApplied, new Outcomes());
    this.lookup = lookup;
    this.deadLetters = deadLetters;
    this.maxBadRows = maxBadRows;
    this.counters = counters;
    this.events = events;
  }

  /** The position applied and recorded so far, or null before the first commit. */
  public LivePosition.Applied applied() {
    return applied;
  }

  @Override
  public long appliedEndLsn() {
    LivePosition.Applied a = applied;
    return a == null ? 0 : a.endLsn();
  }

  /** True while a source transaction is half received (or messages are held back: see {@link #accept}). */
  @Override
  public boolean inTransaction() {
    return transaction != null || !ahead.isEmpty();
  }

  /**
   * Applies one message (in stream order). An update or delete of a keyless table whose rows are found by their row
   * hash is held back, with the messages after it, until {@link #LOOKUPS_PER_READ} such changes, {@link #MAX_AHEAD}
   * messages or {@link #MAX_AHEAD_NANOS} are reached, a message of another kind (a relation, a TRUNCATE, a logical
   * message) arrives, or the stream is idle or flushed: then the rows of all their lookups are read at once, one read
   * of the hash's index per table, and the messages are applied in their order as before, each lookup answered from
   * that read (see {@link #find}). Nothing is committed or recorded for a held-back message until it is applied.
   */
  @Override
  public void accept(PgOutput.Message message) {
    if (ahead.isEmpty() && !(transaction != null && !skipping && looksUpByHash(message))) {
      apply(message);
      return;
    }
    if (message instanceof PgOutput.Relation || message instanceof PgOutput.Truncate
        || message instanceof PgOutput.LogicalMessage) {
      applyAhead();
      apply(message);
      return;
    }
    if (ahead.isEmpty()) {
      aheadSinceNanos = System.nanoTime();
    }
    ahead.add(message);
    if (looksUpByHash(message)) {
      aheadLookups++;
    }
    if (aheadLookups >= LOOKUPS_PER_READ || ahead.size() >= MAX_AHEAD
        || System.nanoTime() - aheadSinceNanos >= MAX_AHEAD_NANOS) {
      applyAhead();
    }
  }

  /** An update or delete of a table whose rows are found by their row hash. */
  private boolean looksUpByHash(PgOutput.Message message) {
    int relationId;
    if (message instanceof PgOutput.Update u) {
      relationId = u.relationId();
    } else if (message instanceof PgOutput.Delete d) {
      relationId = d.relationId();
    } else {
      return false;
    }
    Binding b = bindings.get(relationId);
    return b != null && keyless.byHash(b);
  }

  /**
   * Applies the messages held back: first the rows their lookups name are read, one read per table, then each message
   * is applied in order.
   */
  private void applyAhead() {
    if (ahead.isEmpty()) {
      return;
    }
    List<PgOutput.Message> messages = List.copyOf(ahead);
    ahead.clear();
    aheadLookups = 0;
    try {
      readAhead(messages);
      for (int i = 0; i < messages.size(); i++) {
        apply(messages.get(i));
        if (keyless.readAheadStale() && i + 1 < messages.size()) {
          // Everything was committed and the applier's own writes forgotten: the rest's rows are read again.
          keyless.forgetReadAhead();
          readAhead(messages.subList(i + 1, messages.size()));
        }
      }
    } finally {
      keyless.forgetReadAhead();
    }
  }

  /** Reads, per keyless table, the rows the lookups of {@code messages} will ask for (one read per table). */
  private void readAhead(List<PgOutput.Message> messages) {
    List<KeylessRows.Lookup> lookups = new ArrayList<>();
    boolean skip = skipping;
    for (PgOutput.Message m : messages) {
      if (m instanceof PgOutput.Begin begin) {
        skip = applied != null && begin.finalLsn() < applied.endLsn();
      }
      if (skip || !looksUpByHash(m)) {
        continue;
      }
      if (m instanceof PgOutput.Update u) {
        lookups.add(new KeylessRows.Lookup(bindings.get(u.relationId()), u.old() != null ? u.old() : u.row()));
      } else {
        PgOutput.Delete d = (PgOutput.Delete) m;
        lookups.add(new KeylessRows.Lookup(bindings.get(d.relationId()), d.old()));
      }
    }
    keyless.readAhead(lookups);
  }

  /** Applies one message now. */
  private void apply(PgOutput.Message message) {
    if (message instanceof PgOutput.Begin b) {
      begin(b);
    } else if (message instanceof PgOutput.Commit c) {
      commit(c);
    } else if (message instanceof PgOutput.Relation r) {
      relation(r);
    } else if (message instanceof PgOutput.LogicalMessage m) {
      logicalMessage(m);
    } else if (message instanceof PgOutput.Insert i) {
      change(i.relationId(), () -> insert(binding(i.relationId()), i.row()));
    } else if (message instanceof PgOutput.Update u) {
      change(u.relationId(), () -> update(binding(u.relationId()), u));
    } else if (message instanceof PgOutput.Delete d) {
      change(d.relationId(), () -> delete(binding(d.relationId()), d.old()));
    } else if (message instanceof PgOutput.Truncate t) {
      if (!skipping) {
        truncate(t);
      }
    }
    // TypeInfo and Origin carry nothing to apply.
  }

  /** Nothing arrived for a moment: commit what waits, so a quiet source shows no lag. */
  @Override
  public void idle() {
    if (!ahead.isEmpty() && System.nanoTime() - aheadSinceNanos < MAX_AHEAD_NANOS) {
      // Changes held back for their lookups wait for more a little longer (a backlog arrives in bursts): larger
      // batches, fewer reads, and fewer commits waited for.
      return;
    }
    flush(); // and wait for it: the stream confirms everything received once the applier is idle
  }

  /** Asks for a consistent cut at {@code request.lsn()} (from another thread; at most one at a time). */
  public void requestCut(CutRequest request) {
    cuts.request(request);
  }

  /** Withdraws a cut request that was not reached (the asker stopped waiting). */
  public void cancelCut(CutRequest request) {
    cuts.cancel(request);
  }

  /**
   * A cut is about to be taken and its position is not known yet: the stream waits at its next transaction (at most
   * {@link CutGate#HOLD_MILLIS}) until {@link #requestCut} or {@link #releaseHold}. Without it a stream close behind
   * the source applies transactions past the cut's position while the cut's slot is being made, and no Spanner state
   * is then exactly the cut's (such a cut is refused: see {@link CutGate#passed}).
   */
  public void holdForCut() {
    cuts.hold();
  }

  /** Lets a stream held by {@link #holdForCut} go on. */
  public void releaseHold() {
    cuts.release();
  }

  /**
   * The stream has delivered everything before {@code received} and nothing is half received: a cut at or before it
   * is reached.
   */
  @Override
  public void caughtUp(long received) {
    CutRequest request = cuts.reachedAt(received);
    if (request != null && transaction == null) {
      completeCut(request);
    }
  }

  /** Every transaction before the cut is applied and none after it: commit them and take the read timestamp. */
  private void completeCut(CutRequest request) {
    if (cuts.passed(request)) {
      return;
    }
    joined(request.lsn());
    try {
      flush();
      request.done().complete(request.timestamp().get());
    } catch (RuntimeException e) {
      request.done().completeExceptionally(e);
      if (e instanceof Pg2SpannerException) {
        throw e; // the applier's own failure (a commit that failed) stops the stream as it would have anyway
      }
    } finally {
      cuts.clear();
    }
  }

  private void begin(PgOutput.Begin b) {
    CutRequest request = cuts.beginning(b.finalLsn());
    if (request != null) {
      completeCut(request); // the first transaction after the cut: everything before it is in hand
    }
    cuts.begun(b.finalLsn());
    transaction = b;
    ordinal = 0;
    // Its commit record starts before the end of the last one applied: already in Spanner.
    skipping = applied != null && b.finalLsn() < applied.endLsn();
    replaying = partiallyApplied != null && b.finalLsn() == partiallyApplied;
  }

  private void commit(PgOutput.Commit c) {
    transaction = null;
    if (skipping) {
      counters.skipped.increment();
      skipping = false;
      return;
    }
    counters.transactions.increment();
    boundary = new LivePosition.Applied(c.endLsn(), c.commitTime());
    if (pending.isEmpty()) {
      firstPendingNanos = System.nanoTime();
    }
    // Completed transactions wait up to MAX_DELAY_NANOS to share a commit; past it they are handed over as soon as
    // the committer is free. While a commit is in flight the stream goes on decoding into the next one instead of
    // waiting for it, so a backlog of small transactions fills commits up to the size target (fewer, larger commits:
    // on Spanner each commit has a fixed cost) and the lag added stays within one commit's time.
    if (pendingCells >= CommitLimits.TARGET_MUTATIONS_PER_COMMIT || pendingBytes >= CommitLimits.TARGET_COMMIT_BYTES
        || System.nanoTime() - firstPendingNanos >= MAX_DELAY_NANOS && committerFree()) {
      submit();
    }
  }

  /** No commit is in flight, or the one in flight is done (its outcome is taken by the next submit). */
  private boolean committerFree() {
    return committer.free();
  }

  private void relation(PgOutput.Relation r) {
    try {
      SourceShape.Relation shape = shapes.get(r.relationId());
      if (shape == null) {
        shape = newPartition(r);
      }
      TablePlan table = plan.tableByTarget(shape.table()).orElseThrow();
      if (schemaChanges != null && !Binding.differences(r, shape).isEmpty()) {
        // Everything before the change is in Spanner, its position recorded, before the target's schema changes.
        flush();
        long lsn = transaction != null ? transaction.finalLsn() : applied != null ? applied.endLsn() : 0;
        Followed followed = schemaChanges.follow(shape, r, table, lsn);
        plan = followed.plan();
        table = plan.tableByTarget(shape.table()).orElseThrow();
        shape = followed.shape();
        shapes.put(r.relationId(), shape);
        converters.put(table.target(), TableConverter.compile(table, plan.target().spannerDialect()));
        events.tableChanged(table.target(), lsn);
      }
      bindings.put(r.relationId(), Binding.of(r, shape, table, converters.get(table.target())));
    } catch (Pg2SpannerException e) {
      // Stop exactly at the change: what arrived before it is committed (and its position recorded) first.
      flush();
      throw e;
    }
  }

  /**
   * A relation the load did not read: a partition attached to a planned partitioned table since the snapshot (its
   * rows go to that table, its columns must match the table's), or else something the plan does not cover.
   */
  private SourceShape.Relation newPartition(PgOutput.Relation r) {
    String rootName = lookup.partitionRoot(r.relationId());
    for (SourceShape.Relation known : shapes.values()) {
      if (known.source().equals(rootName) && known.isPartition()) {
        SourceShape.Relation shape = new SourceShape.Relation(r.relationId(), r.schema(), r.name(), known.table(),
            known.source(), known.columns(), known.copiedTo());
        shapes.put(r.relationId(), shape);
        relationsOfTable.get(known.table()).add(r.relationId());
        LOG.info("New partition {} of {}: its changes go to {}", r.qualifiedName(), rootName, known.table());
        return shape;
      }
    }
    if (catalogChanges != null) {
      // A table created on the source and added to the publication: planned, created and copied first.
      flush();
      reconciled(catalogChanges.reconcile(List.of(), transaction != null ? transaction.finalLsn()
          : applied != null ? applied.endLsn() : 0));
      SourceShape.Relation now = shapes.get(r.relationId());
      if (now != null) {
        return now;
      }
    }
    throw new Pg2SpannerException(ExitCode.PLAN_INVALID, NextStep.RESUME,
        "changes arrived for " + r.qualifiedName() + ", which "
        + "the plan does not cover (a table added to the publication?). Streaming stopped before applying them; "
        + "remove the table from the publication and rerun migrate --live --resume, or plan again and start over");
  }

  private Binding binding(int relationId) {
    Binding b = bindings.get(relationId);
    if (b == null) {
      throw new IllegalStateException("a change for relation " + relationId + " arrived before its Relation message");
    }
    return b;
  }

  @FunctionalInterface
  private interface Change {
    void apply() throws ValueRejection;
  }

  private void change(int relationId, Change change) {
    if (skipping || inCopy(relationId)) {
      return;
    }
    ordinal++;
    try {
      change.apply();
    } catch (ValueRejection e) {
      Binding b = binding(relationId);
      reject(b.table.target(), location(), e.getMessage());
    }
  }

  // ---- inserts, updates, deletes, truncates ----------------------------------------------------------------------

  private void insert(Binding b, PgOutput.Tuple row) throws ValueRejection {
    counters.inserts.increment();
    changed(b, row);
    Row r = Row.of(b, row);
    if (b.hasUnpublishedColumns() && !fillFromSource(b, r, row)) {
      return; // gone from the source since: a later change in the stream deletes it
    }
    write(b, r, null);
  }

  private void update(Binding b, PgOutput.Update u) throws ValueRejection {
    counters.updates.increment();
    changed(b, u.row());
    if (u.old() != null) {
      changed(b, u.old()); // the row may have moved from the old key
    }
    Row r = Row.of(b, u.row());
    if (u.oldKind() == 'O') {
      r.fillUnchanged(b, u.old()); // REPLICA IDENTITY FULL sends the whole old row, TOASTed values included
    }
    if (b.keys == null) {
      WrittenRows.Found existing = find(b, u.old() != null ? u.old() : u.row());
      if (existing == null) {
        if (!replaying) {
          reject(b.table.target(), location(), "no Spanner row of " + b.table.target() + " matches the updated row "
              + "(was it rejected during the load?)");
        }
        return; // replaying a transaction whose first part was applied: this change may be among it
      }
      write(b, r, existing.rowKey());
      return;
    }
    Key newKey = b.key(u.row());
    Key oldKey;
    if (b.keyFromIdentity) {
      oldKey = u.old() == null ? newKey : b.oldKey(u.old());
      if (oldKey == null) {
        WrittenRows.Found existing = find(b, u.old());
        oldKey = existing == null ? null : existing.key();
      }
    } else {
      // The replica identity (a unique index other than the key) does not hold the Spanner key, and the stream sends
      // an old tuple only when the identity changed: the row is found by its identity columns — the old tuple's, or
      // the new row's when they did not change — wherever its key was, so a key that moved leaves nothing behind.
      WrittenRows.Found existing = find(b, u.old() != null ? u.old() : u.row());
      oldKey = existing == null ? null : existing.key();
    }
    boolean moved = oldKey != null && newKey != null && !oldKey.equals(newKey);
    if (moved) {
      // The values the change did not carry (unchanged TOASTed ones) are the old row's: Spanner holds them at the old
      // key. The source row as it is now would do only if no later transaction had changed, moved or deleted it
      // (else a consistent cut between the two would find the moved row missing or ahead of its time).
      Map<String, Value> kept = r.hasMissing() ? kept(b, r, oldKey) : Map.of();
      if (kept == null && !fillFromSource(b, r, u.row())) {
        deleteRow(b, oldKey);
        return; // gone from the source since: the later change that removed it writes nothing here either
      }
      deleteRow(b, oldKey);
      write(b, r, null, kept == null ? Map.of() : kept);
      return;
    }
    if (b.hasUnpublishedColumns() && !fillFromSource(b, r, u.row())) {
      return;
    }
    write(b, r, null);
  }

  private void delete(Binding b, PgOutput.Tuple old) throws ValueRejection {
    counters.deletes.increment();
    changed(b, old);
    Key key = b.oldKey(old);
    if (key == null) {
      WrittenRows.Found existing = find(b, old);
      if (existing == null) {
        if (!replaying) {
          reject(b.table.target(), location(), "no Spanner row of " + b.table.target() + " matches the deleted row "
              + old + " (was it rejected during the load?)");
        }
        return; // replaying a transaction whose first part was applied: the row may be gone already
      }
      key = existing.key();
    }
    deleteRow(b, key);
  }

  private void deleteRow(Binding b, Key key) {
    add(b, Mutation.delete(b.table.target(), key), String.valueOf(key), 1);
    if (findsByContent(b)) {
      written.deleted(b.table.target(), key);
    }
  }

  /** Rows of this table are found by their content, not named by key, in updates and deletes. */
  private static boolean findsByContent(Binding b) {
    return b.keys == null || !b.keyFromIdentity;
  }

  private void truncate(PgOutput.Truncate t) {
    counters.truncates.increment();
    Map<String, List<Integer>> byTable = new LinkedHashMap<>();
    for (int relationId : t.relationIds()) {
      if (inCopy(relationId)) {
        continue;
      }
      Binding b = binding(relationId);
      byTable.computeIfAbsent(b.table.target(), k -> new ArrayList<>()).add(relationId);
    }
    byTable.keySet().forEach(table -> events.tableChanged(table, transaction.finalLsn()));
    List<String> tables = new ArrayList<>(byTable.keySet());
    for (String table : tables) {
      Set<Integer> all = new TreeSet<>(relationsOfTable.getOrDefault(table, List.of()));
      if (!byTable.get(table).containsAll(all)) {
        throw new Pg2SpannerException(ExitCode.PLAN_INVALID, NextStep.STATED,
            "TRUNCATE of some partitions of the source table "
            + shapes.get(all.iterator().next()).source() + " cannot be applied: they all go to the one Spanner table "
            + table + ", which cannot tell their rows apart. Streaming stopped before it (the slot keeps the change); "
            + "delete those rows in Spanner yourself and skip the change, or start over");
      }
    }
    // Interleaved children before their parents (a parent with NO ACTION children refuses to lose its rows first,
    // and one with ON DELETE CASCADE children would delete them in its own commits, past their size). What came
    // before the TRUNCATE is committed first; then each key range in a commit of its own, with the transaction's
    // partial position (a crash replays the transaction: deleting again is harmless).
    tables.sort(Comparator.comparingInt(tree::depth).reversed());
    flush();
    for (String table : tables) {
      TablePlan planned = plan.tableByTarget(table).orElseThrow();
      try {
        tableKeys.forEachChunk(planned, keys -> {
          for (Key key : keys) {
            add(planned.indexes().size(), Mutation.delete(table, key), table, "all rows", 1);
          }
          submit();
        });
      } catch (SpannerException e) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
            "cannot read the keys of " + table + " to apply "
            + "a TRUNCATE (" + RetryPolicy.describe(e) + "); check the target, then rerun migrate --live --resume",
            e);
      }
      written.untrack(table); // its lookups wait for the deletes to be committed
    }
  }

  /**
   * True for a change of a table created while streaming in a transaction committed before the snapshot its rows were
   * copied from: the copy holds it already.
   */
  private boolean inCopy(int relationId) {
    SourceShape.Relation shape = shapes.get(relationId);
    return shape != null && shape.copiedTo() != null && transaction != null
        && transaction.finalLsn() < shape.copiedTo();
  }

  /** Takes in what a catalog reconciliation did: tables added (streamed from their copy's position) and dropped. */
  private void reconciled(Reconciled r) {
    Plan before = plan;
    plan = r.plan();
    tree = InterleaveTree.of(plan);
    for (String table : r.dropped()) {
      converters.remove(table);
      for (Integer id : relationsOfTable.getOrDefault(table, List.of())) {
        shapes.remove(id);
        bindings.remove(id);
      }
      relationsOfTable.remove(table);
      joining.remove(table);
      events.tableDropped(table);
    }
    for (SourceShape.Relation shape : r.added()) {
      shapes.put(shape.relationId(), shape);
      relationsOfTable.computeIfAbsent(shape.table(), t -> new ArrayList<>()).add(shape.relationId());
      if (shape.copiedTo() != null) {
        joining.merge(shape.table(), shape.copiedTo(), Math::max);
      }
    }
    for (TablePlan table : plan.tables()) {
      if (before.tableByTarget(table.target()).orElse(null) != table) {
        converters.put(table.target(), TableConverter.compile(table, plan.target().spannerDialect()));
      }
    }
  }

  /** Tables created while streaming that no cut may compare yet: the stream has not reached their copy's position. */
  public Set<String> joining() {
    return Set.copyOf(joining.keySet());
  }

  /** Tables created while streaming whose copy a cut or barrier at {@code lsn} has passed: verified from now on. */
  private void joined(long lsn) {
    joining.entrySet().removeIf(e -> {
      if (e.getValue() <= lsn) {
        events.tableAdded(e.getKey());
        return true;
      }
      return false;
    });
  }

  /** Tells continuous verification which row a change touches, or that it cannot name one. */
  private void changed(Binding b, PgOutput.Tuple tuple) {
    String[] texts = b.keyTexts(tuple);
    if (texts != null) {
      events.rowChanged(b.table.target(), texts, transaction.finalLsn());
    } else {
      events.tableChanged(b.table.target(), transaction.finalLsn());
    }
  }

  /** Writes a row: an insert-or-update of the whole row, or an update of the columns it carries. */
  private void write(Binding b, Row r, Value existingSyntheticKey) {
    write(b, r, existingSyntheticKey, Map.of());
  }

  /** As {@link #write(Binding, Row, Value)}, the values the row lacks taken from {@code kept} (by target column). */
  private void write(Binding b, Row r, Value existingSyntheticKey, Map<String, Value> kept) {
    TableConverter.Result result = b.converter.convertText(r.texts, r.sent, kept, b.shape.qualifiedName(),
        location(), existingSyntheticKey);
    if (result instanceof TableConverter.Converted converted) {
      pendingBytes += converted.row().bytes();
      add(b, converted.row().mutation(), converted.row().key(), converted.row().cells());
      if (findsByContent(b)) {
        remember(b, converted.row().mutation());
      }
      return;
    }
    RejectedRow rejected = ((TableConverter.Rejected) result).row();
    reject(rejected.table(), rejected.key(), rejected.column(), rejected.valueExcerpt(), rejected.reason());
  }

  /** Records a written row of a table found by content, with its identity columns (all of them, or it is untracked). */
  private void remember(Binding b, Mutation mutation) {
    Map<String, Value> values = mutation.asMap();
    Map<String, String> identity = new HashMap<>();
    for (String column : b.converter.loadedColumns()) {
      if (b.isIdentity(b.converterColumn(column))) {
        Value v = values.get(column);
        if (v == null) {
          identity = null;
          break;
        }
        identity.put(column, Canonical.of(v));
      }
    }
    Key.Builder key = Key.newBuilder();
    for (KeyPart part : b.table.primaryKey()) {
      Value v = values.get(part.column());
      if (v == null) {
        written.untrack(b.table.target()); // a computed key part: the row cannot be named here
        return;
      }
      SpannerKeys.append(key, v);
    }
    written.wrote(b.table.target(), key.build(), values.get(b.converter.rowKey().columns().get(0)), identity);
    if (written.size() > MAX_WRITTEN_ROWS) {
      flush();
    }
  }

  /**
   * The values a change that moved a row to another key did not carry, as Spanner holds them in the row at its old
   * key: the row's state just before the change, whatever the source has done to it since. What waits to be
   * committed for the table is committed first, so the read sees it. Null when Spanner has no row there (a replayed
   * transaction whose first part moved it already, or a row rejected during the load).
   */
  private Map<String, Value> kept(Binding b, Row r, Key oldKey) {
    List<String> columns = new ArrayList<>();
    for (int i = 0; i < r.sent.length; i++) {
      if (!r.sent[i]) {
        columns.add(b.converter.loadedColumns().get(i));
      }
    }
    String table = b.table.target();
    if (pendingTables.contains(table) || committer.writes(table)) {
      flush();
    }
    Struct row;
    try {
      row = rows.read(table, oldKey, columns);
    } catch (SpannerException e) {
      if (e.getErrorCode() == com.google.cloud.spanner.ErrorCode.DEADLINE_EXCEEDED
          || e.getErrorCode() == com.google.cloud.spanner.ErrorCode.CANCELLED) {
        // Not answered in time: the values are taken from the source instead (exact at cutover, which compares at
        // the final position; a cut before the row's next change may see it ahead).
        LOG.warn("Spanner did not return the row of {} at key {} within {} s ({}); its unchanged values are read "
            + "from the source instead", table, oldKey, TargetReads.ROW_READ_SECONDS, RetryPolicy.describe(e));
        return null;
      }
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
          "cannot read the row of " + table + " at key "
          + oldKey + " in Spanner, to move it to its new key (" + RetryPolicy.describe(e) + "); check the target, "
          + "then rerun migrate --live --resume", e);
    }
    if (row == null) {
      return null;
    }
    Map<String, Value> kept = new HashMap<>();
    for (String column : columns) {
      kept.put(column, row.getValue(column));
    }
    return kept;
  }

  /**
   * Fills the values a change did not carry from the row's current state on the source. False when the row is
   * gone from the source (a later change removes or moves it, so nothing needs writing now).
   */
  private boolean fillFromSource(Binding b, Row r, PgOutput.Tuple tuple) {
    List<String> keyColumns = new ArrayList<>();
    List<String> keyTypes = new ArrayList<>();
    List<String> keyTexts = new ArrayList<>();
    for (int column : b.identity) {
      if (tuple.kind(column) != PgOutput.Tuple.TEXT) {
        return false;
      }
      String name = b.relation.columns().get(column).name();
      keyColumns.add(name);
      keyTypes.add(b.shape.columns().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow()
          .typeName());
      keyTexts.add(tuple.text(column));
    }
    List<String> wanted = new ArrayList<>();
    for (int i = 0; i < r.sent.length; i++) {
      if (!r.sent[i]) {
        wanted.add(b.converter.sourceColumns().get(i));
      }
    }
    if (wanted.isEmpty()) {
      return true;
    }
    if (keyColumns.isEmpty()) {
      return false;
    }
    Map<String, String> current = lookup.row(b.shape.qualifiedName(), keyColumns, keyTypes, keyTexts, wanted);
    if (current == null) {
      return false;
    }
    for (int i = 0; i < r.sent.length; i++) {
      if (!r.sent[i]) {
        r.texts[i] = current.get(b.converter.sourceColumns().get(i));
        r.sent[i] = true;
      }
    }
    return true;
  }

  /**
   * The row whose replica-identity columns equal the tuple's, or null ({@link KeylessRows#find}). For a table whose
   * writes are not all remembered, what waits is committed first, so the query sees it.
   */
  private WrittenRows.Found find(Binding b, PgOutput.Tuple tuple) throws ValueRejection {
    String table = b.table.target();
    boolean remembered = findsByContent(b) && written.tracks(table);
    if (!remembered && (pendingTables.contains(table) || committer.writes(table))) {
      flush(); // the row may be among the waiting or committing mutations: the read must see them
    }
    return keyless.find(b, tuple, remembered);
  }

  // ---- committing --------------------------------------------------------------------------------------------------

  private void add(Binding b, Mutation mutation, String key, long cells) {
    add(b.indexes, mutation, b.table.target(), key, cells);
  }

  private void add(int indexes, Mutation mutation, String table, String key, long cells) {
    if (pending.isEmpty()) {
      firstPendingNanos = System.nanoTime();
    }
    pending.add(new ApplyCommitter.Pending(mutation, table, key, transaction == null ? null : transaction.finalLsn()));
    pendingTables.add(table);
    pendingCells += cells * (1 + indexes);
    if (pendingCells >= CommitLimits.TARGET_MUTATIONS_PER_COMMIT || pendingBytes >= CommitLimits.TARGET_COMMIT_BYTES) {
      submit(); // mid-transaction: the position is recorded with the transaction's last commit
    }
  }

  /**
   * Commits what waits, with the position of the last completed transaction among it, and waits until every commit
   * is done: afterwards Spanner holds everything applied so far.
   */
  @Override
  public void flush() {
    applyAhead();
    submit();
    awaitCommitted();
    written.clear(); // Spanner holds every row written: lookups may ask it alone again
  }

  /**
   * Hands what waits to the committer, after the commit before it is done (one in flight at a time, in order);
   * returns without waiting for this one.
   */
  private void submit() {
    if (pending.isEmpty() && boundary == null) {
      return;
    }
    awaitCommitted(); // the position below builds on what that commit recorded
    List<ApplyCommitter.Pending> batch = List.copyOf(pending);
    List<Mutation> mutations = new ArrayList<>(batch.size() + 1);
    for (ApplyCommitter.Pending p : batch) {
      mutations.add(p.mutation());
    }
    LivePosition.Applied recorded = boundary;
    // Mid-transaction (a transaction too big for one commit): the part written is recorded as partial, so a replay
    // after a crash knows to expect its own effects.
    Long partial = transaction != null && !skipping && pendingOf(transaction.finalLsn()) ? transaction.finalLsn()
        : null;
    LivePosition.Applied position = recorded != null ? recorded.withPartial(partial)
        : partial != null ? (applied != null ? applied : new LivePosition.Applied(0, null)).withPartial(partial)
        : null;
    if (position != null) {
      mutations.add(this.position.mutation(position));
    }
    Set<String> tables = Set.copyOf(pendingTables);
    pending.clear();
    pendingTables.clear();
    pendingCells = 0;
    pendingBytes = 0;
    boundary = null;
    checkRejected();
    committer.submit(batch, mutations, position, recorded, tables);
  }

  /** Waits for the commit in flight; its failure is thrown here, on the stream's thread. */
  public void awaitCommitted() {
    committer.await();
  }

  /** Stops the committer thread (after {@link #flush}, or when the stream fails). */
  public void close() {
    committer.close();
  }

  /** What the committer reports, on its own thread. */
  private final class Outcomes implements ApplyCommitter.Outcomes {
    @Override
    public void refused(ApplyCommitter.Pending p, String reason) {
      reject(p.table(), p.key(), null, null, reason, p.transactionLsn());
    }

    @Override
    public void committed(LivePosition.Applied recorded) {
      applied = recorded;
      events.committed(recorded);
    }

    @Override
    public void check() {
      checkRejected();
    }
  }

  private void checkRejected() {
    long rejected = rejectedHere.get();
    dev.pg2spanner.load.BadRowLimit limit = new dev.pg2spanner.load.BadRowLimit(maxBadRows);
    if (limit.exceededBy(rejected)) {
      LivePosition.Applied at = applied;
      throw limit.failure(rejected, "streamed changes", "; see " + deadLetters.path() + ". Streaming stopped at "
          + (at == null ? "its start" : Lsn.text(at.endLsn())) + "; rerun "
          + "migrate --live --resume (with a higher --max-bad-rows to go on)", NextStep.RESUME);
    }
  }

  private boolean pendingOf(long transactionLsn) {
    for (ApplyCommitter.Pending p : pending) {
      if (p.transactionLsn() != null && p.transactionLsn() == transactionLsn) {
        return true;
      }
    }
    return false;
  }

  private void logicalMessage(PgOutput.LogicalMessage m) {
    if (CATALOG_PREFIX.equals(m.prefix()) && !m.transactional() && catalogChanges != null) {
      flush();
      List<String> dropped = m.contentText().isEmpty() ? List.of() : List.of(m.contentText().split("\n"));
      reconciled(catalogChanges.reconcile(dropped, m.lsn()));
      return;
    }
    if (!BARRIER_PREFIX.equals(m.prefix()) || m.transactional()) {
      return;
    }
    joined(m.lsn());
    CutRequest request = cuts.reachedAt(m.lsn());
    if (request != null && transaction == null) {
      completeCut(request);
    }
    flush();
    events.barrier(m.contentText());
  }

  // ---- rejects -----------------------------------------------------------------------------------------------------

  private String location() {
    PgOutput.Begin t = Objects.requireNonNull(transaction, "a change outside a transaction");
    if (locationOf != t) {
      locationOf = t;
      locationPrefix = "lsn " + Lsn.text(t.finalLsn()) + " #";
    }
    return locationPrefix + ordinal;
  }

  /** The transaction {@link #locationPrefix} names (each change's location is built once per transaction). */
  private PgOutput.Begin locationOf;
  private String locationPrefix;

  private void reject(String table, String key, String reason) {
    reject(table, key, null, null, reason);
  }

  private void reject(String table, String key, String column, String excerpt, String reason) {
    reject(table, key, column, excerpt, reason, transaction == null ? null : transaction.finalLsn());
  }

  private void reject(String table, String key, String column, String excerpt, String reason, Long transactionLsn) {
    String where = transactionLsn == null ? "" : " (streamed change of the transaction committed at "
        + Lsn.text(transactionLsn) + ")";
    deadLetters.write(new RejectedRow(table, key, column, excerpt, reason + where));
    counters.rejected.increment();
    rejectedHere.incrementAndGet();
  }

  /** The values of one changed row, by converter column; {@code sent} is false for values the change lacks. */
  private static final class Row {
    final String[] texts;
    final boolean[] sent;

    private Row(String[] texts, boolean[] sent) {
      this.texts = texts;
      this.sent = sent;
    }

    static Row of(Binding b, PgOutput.Tuple tuple) {
      int n = b.tupleColumn.length;
      String[] texts = new String[n];
      boolean[] sent = new boolean[n];
      for (int i = 0; i < n; i++) {
        int t = b.tupleColumn[i];
        if (t >= 0 && tuple.kind(t) != PgOutput.Tuple.UNCHANGED) {
          sent[i] = true;
          texts[i] = tuple.text(t);
        }
      }
      return new Row(texts, sent);
    }

    /** Takes the values this row lacks from a whole old row (REPLICA IDENTITY FULL). */
    void fillUnchanged(Binding b, PgOutput.Tuple old) {
      for (int i = 0; i < sent.length; i++) {
        int t = b.tupleColumn[i];
        if (!sent[i] && t >= 0 && old.kind(t) != PgOutput.Tuple.UNCHANGED) {
          sent[i] = true;
          texts[i] = old.text(t);
        }
      }
    }

    boolean hasMissing() {
      for (boolean s : sent) {
        if (!s) {
          return true;
        }
      }
      return false;
    }
  }
}
