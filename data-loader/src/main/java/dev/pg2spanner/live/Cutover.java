package dev.pg2spanner.live;

import com.google.cloud.Timestamp;
import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.fallback.FallbackState;
import dev.pg2spanner.fallback.FallbackStream;
import dev.pg2spanner.live.apply.LivePosition;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.live.stream.ReplicationSetup;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.targetdb.SpannerTime;
import dev.pg2spanner.verify.SnapshotVerify;
import dev.pg2spanner.verify.TableVerification;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The end of a live run, for the moment the application's writes are stopped: apply every change, prove the target
 * equals the source, move Spanner's sequences past every id the source handed out, and remove the replication slot,
 * the publication and the position table.
 *
 * <p>Proof: a barrier written into the WAL after the writes stopped is streamed until applied; then a snapshot of
 * the source is taken and a second barrier written. Every transaction visible in that snapshot committed before the
 * second barrier, so once it is applied the target holds exactly what the snapshot sees — unless a transaction
 * arrived between the two barriers, which means writes did not stop, and cutover refuses. Verify then compares the
 * snapshot with the target (counts and checksums); only when every table matches does cutover drop anything.
 */
final class Cutover {

  /** How many times the barrier pair is tried when writes trickle in before giving up. */
  private static final int ATTEMPTS = 3;
  private static final long DDL_TIMEOUT_MINUTES = 60;

  /** What happened. */
  record Result(int exitCode, String message) {}

  private Cutover() {}

  /**
   * Runs cutover on a streaming session; the session's stream is closed on return.
   *
   * @param abort checked while waiting for the stream (Ctrl-C)
   * @param full compare every row of every table (today's full verify) instead of only what changed since each
   *     table was last verified
   */
  static Result run(LiveSession session, BooleanSupplier abort, boolean full, boolean fallback) throws Exception {
    LiveSession.Context ctx = session.ctx;
    PrintWriter out = ctx.out();
    long started = System.nanoTime();
    session.stopVerifying(); // from here on cutover compares, at its own final cut
    out.println("== cutover: applying every change the source committed (its writes must be stopped now)");
    out.flush();
    // Tables and indexes created or dropped on the source are not in the stream: compared with the plan now, so the
    // reconciliation (if any) is applied before the barrier below.
    if (session.checkCatalog()) {
      out.println("  the source's tables or indexes differ from the plan: they are followed first");
      out.flush();
    }
    LiveSession.Barrier first = session.emitBarrier("catch-up");
    session.streamUntilBarrier(first.content(), abort);
    if (abort.getAsBoolean()) {
      return new Result(ExitCode.INTERRUPTED.exitCode(),
          "cutover interrupted; nothing was removed. Run cutover again");
    }
    double caughtUp = seconds(started);
    session.report("caught up");
    Verdict verdict = null;
    for (int attempt = 1; attempt <= ATTEMPTS && verdict == null; attempt++) {
      long before = session.counters.transactions.sum();
      try (SnapshotSession snapshot = SnapshotSession.open(ctx.source())) {
        LiveSession.Barrier second = session.emitBarrier("verify");
        session.streamUntilBarrier(second.content(), abort);
        long arrived = session.counters.transactions.sum() - before;
        if (arrived > 0) {
          out.println("  " + arrived + " transaction(s) committed on the source during cutover; trying again ("
              + attempt + "/" + ATTEMPTS + ")");
          out.flush();
          continue;
        }
        verdict = full ? compareEverything(session, snapshot, out)
            : compareChanges(session, snapshot, second.lsn(), out);
      }
    }
    if (verdict == null) {
      return new Result(ExitCode.SOURCE_NOT_READY.exitCode(), "the source kept committing changes to the migrated "
          + "tables during cutover, so the target cannot be proven equal to it. Stop every writer (application, "
          + "jobs, cron) and run cutover again; streaming goes on until then");
    }
    if (verdict.differing() > 0) {
      return new Result(ExitCode.VERIFY_MISMATCH.exitCode(), verdict.differing() + " table(s) differ between the "
          + "source and the target at the final position (see above); nothing was removed. Investigate, then run "
          + "migrate --live --resume to keep streaming, or cutover again (cutover --full compares every row)");
    }
    double compared = seconds(started);
    LiveState verified = session.state.withPhase(LiveState.Phase.CUTOVER);
    verified.write(ctx.runDirectory());
    session.closeStream();
    finish(ctx, verified, fallback);
    double total = seconds(started);
    return new Result(0, String.format(Locale.ROOT, "Cutover done in %.1f s (caught up after %.1f s, compared after "
        + "%.1f s: %s): every table verified equal; point the application at %s. The source's writes were stopped "
        + "for at least that long.%s", total, caughtUp, compared, verdict.summary(), ctx.target().describe(),
        fallback ? " Every write to Spanner from now on is recorded for fallback (pg2spanner fallback --run-dir "
            + ctx.runDirectory() + " brings it back to the source)." : ""));
  }

  /** What the final comparison found. */
  private record Verdict(long differing, String summary) {}

  /** Today's full verify: every row of every table, counts and checksums. */
  private static Verdict compareEverything(LiveSession session, SnapshotSession snapshot, PrintWriter out)
      throws Exception {
    LiveSession.Context ctx = session.ctx;
    out.println("== cutover: verify (--full: every row of every table, the source's final state against the target)");
    out.flush();
    List<TableVerification> results = SnapshotVerify.inSnapshot(session.plan(), snapshot, null, ctx.client(),
        ctx.deadLetterFile(), 4, out);
    long rows = results.stream().mapToLong(TableVerification::sourceRowsRead).sum();
    return new Verdict(results.stream().filter(r -> !r.matches()).count(), String.format(Locale.ROOT,
        "every row of %d table(s), %,d rows", results.size(), rows));
  }

  /**
   * The final cut: the rows changed since each table was last verified (continuously, while streaming), compared
   * with the source's final state; a table never verified, or changed in a way not tracked by row, is compared whole.
   * Rows nobody changed since their table was verified are equal still: the source did not change them (the stream
   * says so) and only the applier writes to the target.
   */
  private static Verdict compareChanges(LiveSession session, SnapshotSession snapshot, long lsn, PrintWriter out) {
    LiveSession.Context ctx = session.ctx;
    VerificationLedger ledger = session.ledger;
    Map<String, VerificationLedger.TableStatus> before = new LinkedHashMap<>();
    ledger.status().forEach(t -> before.put(t.table(), t));
    out.println("== cutover: verify (the rows changed since each table was last verified, and whole any table not "
        + "verified while streaming; the source's final state against the target)");
    out.flush();
    Timestamp readAt = SpannerTime.strongTimestamp(ctx.client());
    List<Map<String, Object>> compared = ContinuousVerifier.forCutover(session.verifierContext())
        .compareAt(snapshot, lsn, readAt, System.nanoTime(), true);
    Map<String, Map<String, Object>> byTable = new LinkedHashMap<>();
    compared.forEach(m -> byTable.put((String) m.get("table"), m));
    List<String[]> rows = new ArrayList<>();
    long differing = 0;
    long changedRows = 0;
    long wholeRows = 0;
    int wholeTables = 0;
    for (VerificationLedger.TableStatus after : ledger.status()) {
      Map<String, Object> m = byTable.get(after.table());
      VerificationLedger.TableStatus was = before.get(after.table());
      boolean equal = after.need() == VerificationLedger.Need.NOTHING && after.differences().isEmpty();
      String what;
      if (m == null) {
        what = "nothing changed since verified at " + lsnText(was.verifiedLsn());
      } else if ("all rows".equals(m.get("compared"))) {
        long n = ((Number) m.get("rows")).longValue();
        wholeRows += n;
        wholeTables++;
        what = String.format(Locale.ROOT, "all %,d rows (%s)", n, was.verifiedLsn() < 0
            ? "not verified while streaming" : was.note() != null ? was.note() : "changed as a whole");
      } else {
        long n = ((Number) m.get("rows")).longValue();
        changedRows += n;
        what = String.format(Locale.ROOT, "%,d changed rows (verified at %s before)", n, lsnText(was.verifiedLsn()));
      }
      if (!equal) {
        differing++;
      }
      List<String> keys = after.differences();
      rows.add(new String[] {after.table(), what, equal ? "equal" : "DIFFERENT", keys.isEmpty() ? "" : keys.get(0)});
      for (int i = 1; i < keys.size(); i++) {
        rows.add(new String[] {"", "", "", keys.get(i)});
      }
    }
    out.print(render(rows));
    out.println(differing == 0 ? rows.stream().filter(r -> !r[0].isEmpty()).count() + " table(s) verified: all match."
        : differing + " of " + before.size() + " table(s) differ.");
    out.flush();
    String summary = String.format(Locale.ROOT, "%,d changed row(s) compared%s", changedRows, wholeTables == 0 ? ""
        : String.format(Locale.ROOT, ", %d table(s) whole (%,d rows)", wholeTables, wholeRows));
    return new Verdict(differing, summary);
  }

  private static String lsnText(long lsn) {
    return lsn < 0 ? "(never)" : Lsn.text(lsn);
  }

  private static String render(List<String[]> rows) {
    String[] headers = {"table", "compared at the final position", "result", "first differing keys"};
    int[] width = new int[headers.length];
    for (int c = 0; c < headers.length; c++) {
      width[c] = headers[c].length();
      for (String[] row : rows) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder b = new StringBuilder();
    List<String[]> all = new ArrayList<>();
    all.add(headers);
    String[] rule = new String[headers.length];
    for (int c = 0; c < headers.length; c++) {
      rule[c] = "-".repeat(width[c]);
    }
    all.add(rule);
    all.addAll(rows);
    for (String[] row : all) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        line.append(row[c]).append(" ".repeat(width[c] - row[c].length())).append(c < row.length - 1 ? " | " : "");
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }

  /**
   * The steps after a successful verify, each safe to repeat (a cutover interrupted here is finished by running it
   * again): move the sequences, drop the slot and the publication, drop the position table, create the change stream
   * fallback reads (unless {@code fallback} is false), mark the run done.
   */
  static void finish(LiveSession.Context ctx, LiveState state, boolean fallback) {
    PrintWriter out = ctx.out();
    // The plan as the stream last revised it: tables created while streaming have their sequences moved and are
    // watched for fallback; dropped ones are neither.
    Plan current = state.plan(ctx.runDirectory(), ctx.plan());
    List<String> ddl = new ArrayList<>(sequenceStatements(ctx, current, out));
    List<String> watched = FallbackStream.tables(current);
    boolean createStream = fallback && !FallbackStream.exists(ctx.client(), ctx.dialect());
    if (createStream) {
      // In the same schema change as the sequence moves: one request (each costs the emulator memory for good).
      ddl.add(0, FallbackStream.createStatement(ctx.dialect(), watched));
    }
    boolean dropped = ReplicationSetup.dropSlot(ctx.source(), state.slot());
    out.println("  replication slot " + state.slot() + (dropped ? " dropped" : " was already gone"));
    if (state.createdPublication()) {
      ReplicationSetup.dropPublication(ctx.source(), state.publication());
      out.println("  publication " + state.publication() + " dropped");
    }
    ddl.add(LivePosition.dropStatement());
    try {
      ctx.admin().updateDatabaseDdl(ctx.target().instance(), ctx.target().database(), ddl, null)
          .get(DDL_TIMEOUT_MINUTES, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      String message = String.valueOf(e.getCause().getMessage());
      if (!message.contains(LivePosition.TABLE) || !message.toLowerCase(Locale.ROOT).contains("not found")) {
        throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cutover could not finish on "
            + ctx.target().describe() + " (" + message + "); run cutover again", e.getCause());
      }
      List<String> withoutDrop = new ArrayList<>(ddl.subList(0, ddl.size() - 1));
      if (createStream && FallbackStream.exists(ctx.client(), ctx.dialect())) {
        withoutDrop.remove(0); // applied before the drop failed: statements of a request apply in order
      }
      if (!withoutDrop.isEmpty()) {
        try {
          ctx.admin().updateDatabaseDdl(ctx.target().instance(), ctx.target().database(), withoutDrop, null)
              .get(DDL_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        } catch (Exception again) {
          throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cutover could not move the sequences on "
              + ctx.target().describe() + " (" + again.getMessage() + "); run cutover again", again);
        }
      }
    } catch (TimeoutException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cutover's schema change on "
          + ctx.target().describe() + " did not finish; run cutover again", e);
    }
    out.println("  " + LivePosition.TABLE + " dropped from the target");
    if (fallback) {
      Optional<FallbackState> recorded = FallbackState.read(ctx.runDirectory());
      FallbackState recording = recorded.filter(r -> !createStream).orElseGet(() -> new FallbackState(
          FallbackState.FORMAT_VERSION, FallbackState.STREAM,
          SpannerTime.strongTimestamp(ctx.client()).toString(), watched, FallbackState.Phase.RECORDING));
      recording.write(ctx.runDirectory());
      out.println("  change stream " + FallbackState.STREAM + " records every write to the " + watched.size()
          + " migrated table(s) from " + recording.startTimestamp() + " on (kept " + FallbackStream.RETENTION
          + "): pg2spanner fallback --run-dir " + ctx.runDirectory() + " brings them back to the source");
    } else {
      out.println("  no change stream (--no-fallback): writes to Spanner from now on cannot be brought back to the "
          + "source by pg2spanner fallback");
    }
    state.withPhase(LiveState.Phase.DONE).write(ctx.runDirectory());
    out.flush();
  }

  /**
   * {@code ALTER SEQUENCE ... SET OPTIONS (skip_range_min, skip_range_max)} (in the PostgreSQL dialect {@code ALTER
   * SEQUENCE ... SKIP RANGE min max}) for every planned sequence whose skip
   * range no longer covers every id the source handed out: the sequence's last value and the largest id in each
   * column it feeds (ids written explicitly count too). Bit-reversed sequences have no order to move past, so the
   * skip range is what keeps their new ids clear of migrated ones.
   */
  static List<String> sequenceStatements(LiveSession.Context ctx, Plan plan, PrintWriter out) {
    List<String> statements = new ArrayList<>();
    try (Connection c = ctx.source().open()) {
      for (SequencePlan s : plan.sequences()) {
        long highest = s.skipRangeMax();
        if (s.source() != null) {
          Long last = lastValue(c, s.source());
          if (last != null) {
            highest = Math.max(highest, last);
          }
        }
        for (String used : s.usedBy()) {
          Long max = maxOfColumn(c, plan, used);
          if (max != null) {
            highest = Math.max(highest, max);
          }
        }
        if (highest > s.skipRangeMax()) {
          statements.add(DdlPrinter.alterSkipRange(plan, s, s.skipRangeMin(), highest));
          out.println("  sequence " + s.target() + ": new ids now skip " + s.skipRangeMin() + ".." + highest
              + " (the plan skipped up to " + s.skipRangeMax() + ")");
        } else {
          out.println("  sequence " + s.target() + ": its skip range " + s.skipRangeMin() + ".." + s.skipRangeMax()
              + " already covers every id the source handed out");
        }
      }
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot read the source's sequence positions ("
          + e.getMessage() + "); run cutover again", e);
    }
    return statements;
  }

  private static Long lastValue(Connection c, String sequence) throws SQLException {
    int dot = sequence.indexOf('.');
    try (PreparedStatement ps = c.prepareStatement("SELECT last_value FROM pg_catalog.pg_sequences "
        + "WHERE schemaname = ? AND sequencename = ?")) {
      ps.setString(1, sequence.substring(0, dot));
      ps.setString(2, sequence.substring(dot + 1));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        long v = rs.getLong(1);
        return rs.wasNull() ? null : v;
      }
    }
  }

  /** The largest value of a target "table.column" in its source column, or null. */
  private static Long maxOfColumn(Connection c, Plan plan, String targetColumn) throws SQLException {
    int dot = targetColumn.lastIndexOf('.');
    TablePlan table = plan.tableByTarget(targetColumn.substring(0, dot)).orElse(null);
    if (table == null) {
      return null;
    }
    ColumnPlan column = table.column(targetColumn.substring(dot + 1)).orElse(null);
    if (column == null || column.source() == null) {
      return null;
    }
    int s = table.source().indexOf('.');
    String sql = "SELECT max(" + PgNames.quote(column.source()) + ")::bigint FROM " + (table.readOnly() ? "ONLY " : "")
        + PgNames.qualified(table.source().substring(0, s), table.source().substring(s + 1));
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      rs.next();
      long v = rs.getLong(1);
      return rs.wasNull() ? null : v;
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
