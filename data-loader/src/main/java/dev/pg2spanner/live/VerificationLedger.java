package dev.pg2spanner.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.Lsn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a live run has verified, and what changed since: per planned table, the position of the last consistent cut at
 * which source and target were found equal, and the rows the stream changed after it. A cut at position P is a
 * source snapshot that holds exactly the transactions committed before P and a Spanner read at the moment the
 * applier had applied exactly those; "verified at P" means every row was equal there. A row the stream has not
 * touched since is still equal (the source did not change it, and only the applier writes to the target), so to
 * prove the tables equal later it is enough to compare the rows changed since — which is what makes cutover's write
 * stop depend on the changes, not on the database's size.
 *
 * <p>Rows are named by the source texts of their Spanner key's inputs ({@link Binding#keyTexts}). A change that
 * cannot be named so (a table without a key, a replica identity that does not hold the key, a TRUNCATE) marks the
 * whole table changed: it needs a full comparison again. So does a table whose changed rows outgrow
 * {@link #MAX_TRACKED_ROWS} (memory stays bounded).
 *
 * <p>Written by the applier (one thread: {@link #rowChanged}, {@link #tableChanged}) and read and settled by the
 * verifier and by cutover (other threads); every method is synchronized. Saved to {@value #FILE} when a session stops
 * cleanly, with the applied position it is complete for, so a resumed run keeps it; a ledger saved at another
 * position (a {@code kill -9} lost the changes in between) is discarded and every table verified again.
 */
final class VerificationLedger {

  static final String FILE = dev.pg2spanner.rundir.RunFiles.VERIFICATION;

  /** Changed rows tracked over all tables; past this, the table with the most falls back to a full comparison. */
  static final int MAX_TRACKED_ROWS = 1_000_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a table needs at the next cut. */
  enum Need {
    /** Nothing changed since it was verified. */
    NOTHING,
    /** Compare the rows changed since it was verified ({@link #changedRows}). */
    CHANGED_ROWS,
    /** Compare every row: never verified here, or changed in a way not tracked by row. */
    ALL_ROWS
  }

  /** One table's line for status and progress. */
  record TableStatus(String table, Need need, long verifiedLsn, Instant verifiedAt, int changedRows,
      List<String> differences, boolean persistent, String note) {}

  private static final class Table {
    /** The cut position of the last comparison that found the table equal (rows with pending differences aside). */
    long verifiedLsn = -1;
    Instant verifiedAt;
    /** The last change not tracked by row: a full comparison is due when it is at or after {@link #verifiedLsn}. */
    long wholeChangeLsn = -1;
    /** Changed rows: key texts → position (commit LSN) of the transaction that changed them last. */
    final Map<List<String>, Long> changed = new HashMap<>();
    /** Rows found different at the last comparison (described), and the cut it was made at. */
    List<String> differences = List.of();
    long differedAt = -1;
    boolean persistent;
    String note;

    Need need() {
      if (verifiedLsn < 0 || wholeChangeLsn >= verifiedLsn) {
        return Need.ALL_ROWS;
      }
      return changed.isEmpty() ? Need.NOTHING : Need.CHANGED_ROWS;
    }
  }

  private final Map<String, Table> tables = new LinkedHashMap<>();
  private int tracked;

  VerificationLedger(Collection<String> tableNames) {
    for (String name : tableNames) {
      tables.put(name, new Table());
    }
  }

  // ---- the applier's side ------------------------------------------------------------------------------------------

  /** A streamed change to one row, named by its key texts, in the transaction committed at {@code lsn}. */
  synchronized void rowChanged(String table, String[] keyTexts, long lsn) {
    Table t = tables.get(table);
    if (t == null) {
      return;
    }
    // Tracked even while a full comparison is due: one may be running at a cut this change comes after.
    if (t.changed.put(List.of(keyTexts), lsn) == null) {
      tracked++;
      if (tracked > MAX_TRACKED_ROWS) {
        shed();
      }
    }
  }

  /** A change to {@code table} not tracked by row (TRUNCATE, a table rows are found in by content). */
  synchronized void tableChanged(String table, long lsn) {
    Table t = tables.get(table);
    if (t == null) {
      return;
    }
    t.wholeChangeLsn = Math.max(t.wholeChangeLsn, lsn);
    tracked -= t.changed.size();
    t.changed.clear();
  }

  /** Too many rows tracked: the table with the most is compared whole instead. */
  private void shed() {
    Map.Entry<String, Table> largest = null;
    for (Map.Entry<String, Table> e : tables.entrySet()) {
      if (largest == null || e.getValue().changed.size() > largest.getValue().changed.size()) {
        largest = e;
      }
    }
    Table t = largest.getValue();
    long last = t.changed.values().stream().mapToLong(Long::longValue).max().orElse(t.verifiedLsn);
    t.note = String.format(java.util.Locale.ROOT, "more than %,d changed rows tracked: compared whole again",
        MAX_TRACKED_ROWS);
    tableChanged(largest.getKey(), last);
  }

  // ---- the verifier's side -----------------------------------------------------------------------------------------

  /** NOTHING for a table the ledger does not follow (yet): a new table before its copy's position is reached. */
  synchronized Need need(String table) {
    Table t = tables.get(table);
    return t == null ? Need.NOTHING : t.need();
  }

  /**
   * A table created on the source while streaming, copied from a snapshot, now that the stream has passed that
   * snapshot's position: it is compared whole at the next cut.
   */
  synchronized void addTable(String table) {
    tables.putIfAbsent(table, new Table());
  }

  /** A table dropped on the source (and so on the target): nothing of it is verified any more. */
  synchronized void removeTable(String table) {
    Table t = tables.remove(table);
    if (t != null) {
      tracked -= t.changed.size();
    }
  }

  /** The rows of {@code table} changed since it was verified (a copy: the applier goes on adding). */
  synchronized List<List<String>> changedRows(String table) {
    Table t = tables.get(table);
    return t == null ? new ArrayList<>() : new ArrayList<>(t.changed.keySet());
  }

  /** Every table was compared whole at {@code lsn} and found equal (the load's own verify). */
  synchronized void allVerified(long lsn) {
    for (String table : tables.keySet()) {
      verifiedWhole(table, lsn, List.of());
    }
  }

  /**
   * The whole table was compared at the cut {@code lsn}.
   *
   * @param differences empty when equal; else described differing rows (then it stays due for a full comparison)
   */
  synchronized void verifiedWhole(String table, long lsn, List<String> differences) {
    Table t = tables.get(table);
    if (t == null) {
      return; // dropped meanwhile
    }
    if (!differences.isEmpty()) {
      differed(t, lsn, differences, true);
      return;
    }
    t.verifiedLsn = lsn;
    t.verifiedAt = Instant.now();
    t.differences = List.of();
    t.persistent = false;
    t.note = null;
    settle(t, lsn, Set.of());
  }

  /**
   * The rows changed since the last verification, as {@link #changedRows} listed them, were compared at the cut
   * {@code lsn}: the table is verified at {@code lsn} except for the rows in {@code differing}, which stay tracked
   * and are compared again at the next cut.
   *
   * @param differing key texts of the rows that differed
   * @param described the same rows described for people
   */
  synchronized void verifiedRows(String table, long lsn, Set<List<String>> differing, List<String> described) {
    Table t = tables.get(table);
    if (t == null) {
      return; // dropped meanwhile
    }
    if (t.need() == Need.ALL_ROWS) {
      return; // changed whole while the rows were compared
    }
    t.verifiedLsn = lsn;
    t.verifiedAt = Instant.now();
    if (differing.isEmpty()) {
      t.differences = List.of();
      t.persistent = false;
    } else {
      differed(t, lsn, described, false);
    }
    settle(t, lsn, differing);
  }

  /** Forgets the rows last changed before {@code lsn} (equal at that cut), except {@code keep}. */
  private void settle(Table t, long lsn, Set<List<String>> keep) {
    int before = t.changed.size();
    t.changed.entrySet().removeIf(e -> e.getValue() < lsn && !keep.contains(e.getKey()));
    tracked -= before - t.changed.size();
  }

  /**
   * A difference seen twice in a row, at cuts between which nothing changed the table's differing rows, persists:
   * the stream will not mend it.
   */
  private static void differed(Table t, long lsn, List<String> described, boolean whole) {
    boolean seenBefore = t.differedAt >= 0 && !t.differences.isEmpty()
        && described.stream().anyMatch(t.differences::contains);
    t.persistent = seenBefore;
    t.differences = List.copyOf(described);
    t.differedAt = lsn;
    t.note = whole ? "differed when compared whole" : null;
  }

  /** The table's changed rows cannot be compared by key ({@code why}): compare it whole at the next cut. */
  synchronized void compareWhole(String table, String why) {
    Table t = tables.get(table);
    if (t == null) {
      return; // dropped meanwhile
    }
    tableChanged(table, Math.max(t.verifiedLsn, t.wholeChangeLsn));
    t.note = why;
  }

  /** Why a table could not be compared at a cut (shown until its next comparison). */
  synchronized void failed(String table, String why) {
    Table t = tables.get(table);
    if (t != null) {
      t.note = why;
    }
  }

  /** For the metrics: the position {@code table} was last found equal at, or -1 (never, or not a table here). */
  synchronized long verifiedLsn(String table) {
    Table t = tables.get(table);
    return t == null ? -1 : t.verifiedLsn;
  }

  /** For the metrics: the changed rows of {@code table} waiting to be compared. */
  synchronized int changedRowCount(String table) {
    Table t = tables.get(table);
    return t == null ? 0 : t.changed.size();
  }

  /** For the metrics: tables found different at their latest comparison. */
  synchronized int differingTables() {
    return (int) tables.values().stream().filter(t -> !t.differences.isEmpty()).count();
  }

  /** True when some table's difference persisted over two cuts. */
  synchronized boolean anyPersistentDifference() {
    return tables.values().stream().anyMatch(t -> t.persistent);
  }

  synchronized List<TableStatus> status() {
    List<TableStatus> list = new ArrayList<>();
    tables.forEach((name, t) -> list.add(new TableStatus(name, t.need(), t.verifiedLsn, t.verifiedAt,
        t.changed.size(), t.differences, t.persistent, t.note)));
    return list;
  }

  /** Totals for the progress line: tables verified, up to date, changed rows waiting, tables differing. */
  synchronized Map<String, Object> summary() {
    int verified = 0;
    int upToDate = 0;
    int differing = 0;
    int persistent = 0;
    for (Table t : tables.values()) {
      Need need = t.need();
      verified += need != Need.ALL_ROWS ? 1 : 0;
      upToDate += need == Need.NOTHING && t.differences.isEmpty() ? 1 : 0;
      differing += t.differences.isEmpty() ? 0 : 1;
      persistent += t.persistent ? 1 : 0;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tables", tables.size());
    m.put("verified", verified);
    m.put("upToDate", upToDate);
    m.put("changedRows", tracked);
    m.put("differing", differing);
    m.put("persistent", persistent);
    return m;
  }

  /**
   * The progress-log form: per table that is not up to date (something to compare, a difference, a note), what is
   * verified up to where and what is pending; up-to-date tables are only counted ({@link #summary}), so the log
   * stays small for a database of many tables.
   */
  synchronized List<Map<String, Object>> progress() {
    List<Map<String, Object>> list = new ArrayList<>();
    for (TableStatus s : status()) {
      if (s.need() == Need.NOTHING && s.differences().isEmpty() && s.note() == null) {
        continue;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("table", s.table());
      m.put("verifiedTo", s.verifiedLsn() < 0 ? null : Lsn.text(s.verifiedLsn()));
      m.put("verifiedAt", s.verifiedAt() == null ? null : s.verifiedAt().toString());
      m.put("pending", switch (s.need()) {
        case NOTHING -> "nothing";
        case CHANGED_ROWS -> s.changedRows() + " changed rows";
        case ALL_ROWS -> "all rows";
      });
      m.put("changedRows", s.changedRows());
      if (!s.differences().isEmpty()) {
        m.put("differences", s.differences());
        m.put("persistent", s.persistent());
      }
      if (s.note() != null) {
        m.put("note", s.note());
      }
      list.add(m);
    }
    return list;
  }

  // ---- persistence across processes --------------------------------------------------------------------------------

  /**
   * Saves the ledger as complete for the applied position {@code appliedEndLsn} (every change up to it is
   * recorded here), atomically.
   */
  synchronized void save(Path runDirectory, long appliedEndLsn) {
    ObjectNode root = JSON.createObjectNode();
    root.put("formatVersion", 1);
    root.put("appliedEndLsn", appliedEndLsn);
    ObjectNode all = root.putObject("tables");
    tables.forEach((name, t) -> {
      ObjectNode n = all.putObject(name);
      n.put("verifiedLsn", t.verifiedLsn);
      n.put("verifiedAt", t.verifiedAt == null ? null : t.verifiedAt.toString());
      n.put("wholeChangeLsn", t.wholeChangeLsn);
      ArrayNode rows = n.putArray("changed");
      t.changed.forEach((key, lsn) -> {
        ArrayNode row = rows.addArray();
        row.add(lsn);
        key.forEach(row::add);
      });
    });
    Path file = runDirectory.resolve(FILE);
    try {
      dev.pg2spanner.rundir.AtomicFile.write(file, JSON.writeValueAsBytes(root));
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write " + file + " (" + e.getMessage() + "); the "
          + "next run verifies every table again", e);
    }
  }

  /**
   * The ledger saved in {@code runDirectory}, when it is complete for {@code appliedEndLsn} (the position Spanner
   * holds); empty otherwise (none saved, or saved at another position: changes in between were not recorded).
   */
  static Optional<VerificationLedger> load(Path runDirectory, Collection<String> tableNames, long appliedEndLsn) {
    Path file = runDirectory.resolve(FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      JsonNode root = JSON.readTree(file.toFile());
      if (root.path("formatVersion").asInt() != 1 || root.path("appliedEndLsn").asLong() != appliedEndLsn) {
        return Optional.empty();
      }
      VerificationLedger ledger = new VerificationLedger(tableNames);
      for (String name : tableNames) {
        JsonNode n = root.path("tables").path(name);
        if (n.isMissingNode()) {
          return Optional.empty();
        }
        Table t = ledger.tables.get(name);
        t.verifiedLsn = n.path("verifiedLsn").asLong(-1);
        t.verifiedAt = n.path("verifiedAt").isTextual() ? Instant.parse(n.path("verifiedAt").asText()) : null;
        t.wholeChangeLsn = n.path("wholeChangeLsn").asLong(-1);
        for (JsonNode row : n.path("changed")) {
          List<String> key = new ArrayList<>();
          for (int i = 1; i < row.size(); i++) {
            key.add(row.get(i).asText());
          }
          t.changed.put(List.copyOf(key), row.get(0).asLong());
          ledger.tracked++;
        }
      }
      return Optional.of(ledger);
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // unreadable: verify everything again
    }
  }
}
