package dev.pg2spanner.live.apply;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.PgOutput;
import dev.pg2spanner.load.convert.ValueRejection;
import dev.pg2spanner.load.write.RetryPolicy;
import dev.pg2spanner.plan.KeyPart;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the Spanner row that a change to a table without a primary key names (the {@link ChangeApplier}'s search,
 * on the stream's thread): among the rows the applier wrote since Spanner last held everything ({@link WrittenRows}),
 * then by the row hash's index (read ahead for many changes in one read per table, or one change at a time), then by a
 * query over the replica-identity columns. Every candidate is compared exactly; the row hash only narrows the search.
 */
final class KeylessRows {

  private static final Logger LOG = LoggerFactory.getLogger(KeylessRows.class);

  /** A change's lookup: the table's binding and the tuple that names the row. */
  record Lookup(Binding binding, PgOutput.Tuple tuple) {}

  private final WrittenRows written;
  private final TargetReads.HashedRows hashedRows;
  private final TargetReads.RowsByContent byContent;
  private final ApplyCounters counters;
  /** Tables whose row-hash index could not be read (not created yet, or dropped): found by a scan, logged once. */
  private final Set<String> hashUnusable = new HashSet<>();
  /**
   * The rows read ahead for the changes being applied, by table then row hash ({@link TargetReads.HashedRows}); valid
   * while {@link #written} is of generation {@link #readAheadGeneration}: every row the applier changed since is known
   * there and overrides what was read.
   */
  private final Map<String, Map<Long, List<Struct>>> readAhead = new HashMap<>();
  private long readAheadGeneration = -1;

  KeylessRows(WrittenRows written, TargetReads.HashedRows hashedRows, TargetReads.RowsByContent byContent,
      ApplyCounters counters) {
    this.written = written;
    this.hashedRows = hashedRows;
    this.byContent = byContent;
    this.counters = counters;
  }

  /** The table is keyless and its rows are found through its row hash's index (while that index can be read). */
  boolean byHash(Binding b) {
    return b.keys == null && b.table.rowHash() != null && b.converter.rowHashColumn() != null
        && !hashUnusable.contains(b.table.target());
  }

  /**
   * Reads, per table, the rows {@code lookups} will ask for: one read of the hash's index per table. Tables whose
   * writes are not all remembered are left out: their lookups commit and wait first, so what is read now would be
   * stale.
   */
  void readAhead(List<Lookup> lookups) {
    Map<String, Set<Long>> hashes = new LinkedHashMap<>();
    Map<String, Binding> tables = new HashMap<>();
    for (Lookup lookup : lookups) {
      Binding b = lookup.binding();
      if (!written.tracks(b.table.target())) {
        continue;
      }
      try {
        Long hash = rowHash(b, lookup.tuple());
        if (hash != null) {
          hashes.computeIfAbsent(b.table.target(), t -> new HashSet<>()).add(hash);
          tables.put(b.table.target(), b);
        }
      } catch (ValueRejection e) {
        // rejected when it is applied
      }
    }
    readAheadGeneration = written.generation();
    hashes.forEach((table, wanted) -> {
      Binding b = tables.get(table);
      Map<Long, List<Struct>> rows = readByHash(b, wanted, rowColumns(b));
      if (rows != null) {
        readAhead.put(table, rows);
      }
    });
  }

  /**
   * What was read ahead no longer holds: everything was committed and the applier's own writes forgotten since
   * (e.g. too many remembered), so a lookup would miss a row the applier changed.
   */
  boolean readAheadStale() {
    return readAheadGeneration != written.generation();
  }

  /** Drops what was read ahead (the changes it was read for are applied, or are read again). */
  void forgetReadAhead() {
    readAhead.clear();
  }

  /**
   * The row whose replica-identity columns equal the tuple's (every column for REPLICA IDENTITY FULL, a unique
   * index's for USING INDEX), or null: among the rows the applier wrote since Spanner last held everything
   * ({@link WrittenRows}) when {@code remembered}, then in Spanner, skipping the Spanner rows those override. When not
   * {@code remembered}, the caller has committed what waits, so Spanner alone answers.
   */
  WrittenRows.Found find(Binding b, PgOutput.Tuple tuple, boolean remembered) throws ValueRejection {
    String table = b.table.target();
    List<String> names = new ArrayList<>();
    List<Value> values = new ArrayList<>();
    for (String column : b.converter.loadedColumns()) {
      if (!b.isIdentity(b.converterColumn(column))) {
        continue; // an old tuple carries only the replica identity; its other columns arrive as NULL
      }
      Value v = b.value(tuple, column);
      if (v != null) {
        names.add(column);
        values.add(v);
      }
    }
    if (names.isEmpty()) {
      return null;
    }
    List<String> canonical = values.stream().map(Canonical::of).toList();
    if (remembered) {
      WrittenRows.Found mine = written.match(table, names, canonical);
      if (mine != null) {
        return mine;
      }
    }
    List<String> keyColumns = b.table.primaryKey().stream().map(KeyPart::column).toList();
    List<String> read = new ArrayList<>(keyColumns);
    names.stream().filter(n -> !read.contains(n)).forEach(read::add);
    String rowKeyColumn = b.converter.rowKey().columns().get(0);
    if (!read.contains(rowKeyColumn)) {
      read.add(rowKeyColumn);
    }
    Long hash = rowHash(b, tuple);
    if (hash != null) {
      Map<Long, List<Struct>> readRows = remembered && readAheadGeneration == written.generation()
          ? readAhead.get(table) : null;
      List<Struct> candidates = readRows == null ? null : readRows.get(hash); // null: not read ahead
      if (candidates == null) {
        Map<Long, List<Struct>> one = readByHash(b, Set.of(hash), read);
        candidates = one == null ? null : one.get(hash);
      }
      for (Struct row : candidates == null ? List.<Struct>of() : candidates) {
        Key key = TargetReads.keyOf(b.table, row);
        if (remembered && written.knows(table, key)) {
          continue; // written since: its state is the remembered one, which did not match
        }
        if (matches(row, names, canonical)) {
          counters.foundByHash.increment();
          return new WrittenRows.Found(key, row.getValue(rowKeyColumn));
        }
      }
      // Not found by its hash: a row Spanner holds with a NULL hash (written in part), or none at all.
    }
    counters.lookupScans.increment();
    Map<String, Value> equal = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      equal.put(names.get(i), values.get(i));
    }
    List<Struct> candidates;
    try {
      candidates = byContent.read(b.table, b.converter.dialect(), read, equal);
    } catch (SpannerException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME, "cannot look up a changed row of "
          + b.table.target() + " in Spanner (" + RetryPolicy.describe(e) + "); check the target, then rerun "
          + "migrate --live --resume", e);
    }
    for (Struct row : candidates) {
      Key key = TargetReads.keyOf(b.table, row);
      if (remembered && written.knows(table, key)) {
        continue; // written since: its state is the remembered one, which did not match
      }
      if (matches(row, names, canonical)) {
        return new WrittenRows.Found(key, row.getValue(rowKeyColumn));
      }
    }
    return null;
  }

  /**
   * The row hash of the row a tuple names, as the loader wrote it
   * ({@link dev.pg2spanner.load.convert.TableConverter#rowHashColumn()}), or null: the table has none (or its index
   * cannot be read), or the tuple lacks a hashed column (not in the replica identity, or an unchanged TOASTed value).
   */
  private Long rowHash(Binding b, PgOutput.Tuple tuple) throws ValueRejection {
    if (b.converter.rowHashColumn() == null || b.table.rowHash() == null
        || hashUnusable.contains(b.table.target())) {
      return null;
    }
    List<Value> values = new ArrayList<>();
    for (String column : b.converter.rowHashColumns()) {
      Value v = b.isIdentity(b.converterColumn(column)) ? b.value(tuple, column) : null;
      if (v == null) {
        return null;
      }
      values.add(v);
    }
    return Canonical.rowHash64(values);
  }

  /** True when the row's columns {@code names} hold the canonical values {@code canonical} (exact comparison). */
  private static boolean matches(Struct row, List<String> names, List<String> canonical) {
    for (int i = 0; i < names.size(); i++) {
      if (!Canonical.of(row.getValue(names.get(i))).equals(canonical.get(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The rows of a keyless table whose row hash is one of {@code hashes} ({@link TargetReads.HashedRows}): candidates,
   * compared exactly by the caller (duplicates share a hash; a collision is told apart there). Null when the hash's
   * index cannot be read: the table's rows are found by a scan from then on.
   */
  private Map<Long, List<Struct>> readByHash(Binding b, Set<Long> hashes, List<String> columns) {
    String table = b.table.target();
    counters.hashReads.increment();
    try {
      return hashedRows.read(b.table, hashes, columns);
    } catch (SpannerException e) {
      if (e.getErrorCode() == com.google.cloud.spanner.ErrorCode.NOT_FOUND) {
        hashUnusable.add(table);
        LOG.warn("The row hash index {} of {} cannot be read ({}): changes to {} are found by scanning the table "
            + "from now on (one Spanner query per change)", b.table.rowHash().index(), table,
            RetryPolicy.describe(e), table);
        return null;
      }
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, NextStep.RESUME,
          "cannot look up changed rows of " + table
          + " by their row hash in Spanner (" + RetryPolicy.describe(e) + "); check the target, then rerun "
          + "migrate --live --resume", e);
    }
  }

  /** The columns a lookup by content compares and uses: the identity columns and the first identifying column. */
  static List<String> rowColumns(Binding b) {
    List<String> columns = new ArrayList<>();
    for (String column : b.converter.loadedColumns()) {
      if (b.isIdentity(b.converterColumn(column))) {
        columns.add(column);
      }
    }
    String rowKeyColumn = b.converter.rowKey().columns().get(0);
    if (!columns.contains(rowKeyColumn)) {
      columns.add(rowKeyColumn);
    }
    return columns;
  }
}
