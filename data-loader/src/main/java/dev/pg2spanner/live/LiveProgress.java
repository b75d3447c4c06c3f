package dev.pg2spanner.live;

import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.apply.ApplyCounters;
import dev.pg2spanner.live.apply.ChangeApplier;
import dev.pg2spanner.live.apply.LivePosition;
import dev.pg2spanner.live.stream.LiveStream;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.live.stream.SourceLookup;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.metrics.ByteSize;
import dev.pg2spanner.metrics.MonitorOptions;
import dev.pg2spanner.metrics.RunMetrics;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live progress: every interval one line on the terminal and one JSON object ({@code "type": "live"}) in the run
 * directory's {@code progress.jsonl}, which {@code pg2spanner status} reads from another terminal.
 *
 * <p>Lag in bytes is the source's current WAL position minus the position applied (or confirmed, when the stream
 * is idle: WAL written for other tables then counts as applied). Lag in seconds is zero when caught up, else now
 * minus the commit time of the last source transaction applied (or of the load's snapshot, before the first).
 */
final class LiveProgress {

  private static final Logger LOG = LoggerFactory.getLogger(LiveProgress.class);

  static final String TYPE = "live";

  private final ApplyCounters counters;
  /** The lag in bytes at the last report; -1 before the first. */
  private volatile long lastLagBytes = -1;
  private final JsonLinesFile log;
  private final PrintWriter out;
  private final long intervalNanos;
  private final SourceLookup source;
  private final String slot;
  private final Instant snapshotTime;
  private long lastReport = System.nanoTime();
  private long lastChanges;
  private java.util.function.Supplier<Map<String, Object>> verification;
  private RunMetrics metrics = new RunMetrics();
  private MonitorOptions monitor = MonitorOptions.NONE;
  /** WAL the slot held at the latest report, or null when unknown. */
  private volatile Long retained;
  private boolean warnedOverMax;

  /**
   * @param log the progress log, or null to print only
   * @param snapshotTime when the load's snapshot was taken (lag before the first applied transaction)
   */
  LiveProgress(ApplyCounters counters, JsonLinesFile log, PrintWriter out, Duration interval,
      SourceLookup source, String slot, Instant snapshotTime) {
    this.counters = counters;
    this.log = log;
    this.out = out;
    this.intervalNanos = interval.toNanos();
    this.source = source;
    this.slot = slot;
    this.snapshotTime = snapshotTime;
    this.lastChanges = counters.changes();
  }

  /**
   * Counts every report's figures into {@code m} too, and holds the slot's WAL against the limits of
   * {@code limits}.
   */
  void observe(RunMetrics m, MonitorOptions limits) {
    this.metrics = m;
    this.monitor = limits;
    m.slotWalLimits(limits.maxSlotWalBytes(), limits.stopSlotWalBytes());
  }

  /**
   * True when the slot held more WAL than {@code --stop-slot-wal} at the latest report: streaming must stop rather
   * than fill the source's disk.
   */
  boolean pastStopLimit() {
    Long held = retained;
    return held != null && monitor.stopSlotWalBytes() != null && held > monitor.stopSlotWalBytes();
  }

  /** WAL the slot held at the latest report, or null. */
  Long retained() {
    return retained;
  }

  /** Adds the state of continuous verification to every report. */
  void verification(java.util.function.Supplier<Map<String, Object>> summary) {
    this.verification = summary;
  }

  /** Reports when an interval has passed since the last report. */
  void maybeReport(LiveStream stream, ChangeApplier applier) {
    if (System.nanoTime() - lastReport >= intervalNanos) {
      report(stream, applier, null);
    }
  }

  /** The stream's lag behind the source in bytes at the last progress report; -1 before the first report. */
  long lastLagBytes() {
    return lastLagBytes;
  }

  /**
   * Reports now.
   *
   * @param note a word for the line ("caught up", "stopped"), or null
   * @return the figures reported
   */
  Map<String, Object> report(LiveStream stream, ChangeApplier applier, String note) {
    long now = System.nanoTime();
    double seconds = Math.max(1e-3, (now - lastReport) / 1e9);
    long changes = counters.changes();
    double rate = (changes - lastChanges) / seconds;
    lastReport = now;
    lastChanges = changes;

    List<String> source = this.source.values("SELECT pg_current_wal_lsn()::text, (SELECT pg_wal_lsn_diff("
        + "pg_current_wal_lsn(), restart_lsn)::bigint FROM pg_catalog.pg_replication_slots WHERE slot_name = ?)",
        slot);
    long sourceLsn = Lsn.parse(source.get(0));
    Long retained = source.get(1) == null ? null : Long.parseLong(source.get(1));
    LivePosition.Applied applied = applier.applied();
    long appliedLsn = applied == null ? 0 : applied.endLsn();
    long done = Math.max(appliedLsn, stream.caughtUp() ? stream.confirmed() : 0);
    long lagBytes = Math.max(0, sourceLsn - done);
    lastLagBytes = lagBytes;
    Instant lastCommit = applied == null || applied.commitTime() == null ? snapshotTime : applied.commitTime();
    double lagSeconds = lagBytes == 0 ? 0 : Math.max(0, Duration.between(lastCommit, Instant.now()).toMillis() / 1e3);

    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", TYPE);
    m.put("at", Instant.now().toString());
    m.put("sourceLsn", Lsn.text(sourceLsn));
    m.put("appliedLsn", applied == null ? null : Lsn.text(appliedLsn));
    m.put("confirmedLsn", Lsn.text(stream.confirmed()));
    m.put("lagBytes", lagBytes);
    m.put("lagSeconds", Math.round(lagSeconds * 10) / 10.0);
    m.put("lastCommitTime", applied == null || applied.commitTime() == null ? null : applied.commitTime().toString());
    m.put("changes", changes);
    m.put("changesPerSecond", Math.round(rate));
    m.put("inserts", counters.inserts.sum());
    m.put("updates", counters.updates.sum());
    m.put("deletes", counters.deletes.sum());
    m.put("truncates", counters.truncates.sum());
    m.put("transactions", counters.transactions.sum());
    m.put("rejected", counters.rejected.sum());
    m.put("commits", counters.commits.sum());
    m.put("foundByHash", counters.foundByHash.sum());
    m.put("lookupScans", counters.lookupScans.sum());
    m.put("hashReads", counters.hashReads.sum());
    m.put("slotRetainedBytes", retained);
    this.retained = retained;
    metrics.liveReport(lagBytes, Math.round(lagSeconds * 10) / 10.0, retained, Math.round(rate));
    boolean overMax = retained != null && monitor.maxSlotWalBytes() != null && retained > monitor.maxSlotWalBytes();
    metrics.slotWalOverMax(overMax);
    if (monitor.maxSlotWalBytes() != null) {
      m.put("slotWalMaxBytes", monitor.maxSlotWalBytes());
    }
    if (monitor.stopSlotWalBytes() != null) {
      m.put("slotWalStopBytes", monitor.stopSlotWalBytes());
    }
    if (overMax) {
      String warning = slotWalWarning(retained);
      m.put("slotWalWarning", warning);
      if (!warnedOverMax) {
        // Once per crossing in the log and on its own line; every progress line and status say it while it lasts.
        LOG.warn("{}", warning);
        out.println("WARNING: " + warning);
      }
    }
    warnedOverMax = overMax;
    if (verification != null) {
      m.put("verification", verification.get());
    }
    if (note != null) {
      m.put("note", note);
    }
    out.println(line(m));
    out.flush();
    if (log != null) {
      try {
        log.append(m);
      } catch (Pg2SpannerException e) {
        LOG.warn("{}", e.getMessage());
      }
    }
    return m;
  }


  /** "live: 1,234 changes applied (56/s) in 78 transactions; lag 0 B, 0.0 s; ...". */
  static String line(Map<String, Object> m) {
    StringBuilder b = new StringBuilder("live: ");
    b.append(String.format(Locale.ROOT, "%,d changes applied (%,d/s) in %,d transactions", num(m, "changes"),
        num(m, "changesPerSecond"), num(m, "transactions")));
    if (num(m, "rejected") > 0) {
      b.append(String.format(Locale.ROOT, ", %,d rejected", num(m, "rejected")));
    }
    b.append("; lag ").append(bytes(num(m, "lagBytes"))).append(", ")
        .append(String.format(Locale.ROOT, "%.1f s", ((Number) m.get("lagSeconds")).doubleValue()));
    b.append("; applied to ").append(m.get("appliedLsn") == null ? "(nothing yet)" : m.get("appliedLsn"))
        .append(" of ").append(m.get("sourceLsn"));
    if (m.get("slotRetainedBytes") != null) {
      b.append("; slot holds ").append(bytes(num(m, "slotRetainedBytes")));
      if (m.get("slotWalWarning") != null) {
        b.append(" (OVER --max-slot-wal ").append(ByteSize.format(num(m, "slotWalMaxBytes"))).append(')');
      }
    }
    if (m.get("verification") instanceof Map<?, ?> v) {
      b.append(String.format(Locale.ROOT, "; verified %d/%d tables", num(v, "verified"), num(v, "tables")));
      if (num(v, "changedRows") > 0) {
        b.append(String.format(Locale.ROOT, " (%,d changed rows to compare)", num(v, "changedRows")));
      }
      if (num(v, "differing") > 0) {
        b.append(String.format(Locale.ROOT, "; %d table(s) DIFFER%s (pg2spanner status)", num(v, "differing"),
            num(v, "persistent") > 0 ? ", persistently" : ""));
      }
      if (v.get("paused") != null) {
        b.append("; verification paused: ").append(v.get("paused"));
      }
    }
    if (m.get("note") != null) {
      b.append(" (").append(m.get("note")).append(')');
    }
    return b.toString();
  }

  private String slotWalWarning(long held) {
    return "the replication slot " + slot + " holds " + ByteSize.format(held) + " of WAL on the source, more than "
        + "--max-slot-wal " + ByteSize.format(monitor.maxSlotWalBytes()) + ": the source keeps that WAL on its disk "
        + "until the stream applies it. Check that the stream keeps up (lag, changes/s) and the source's free disk"
        + (monitor.stopSlotWalBytes() == null ? "" : "; past --stop-slot-wal " + ByteSize.format(
        monitor.stopSlotWalBytes()) + " streaming stops");
  }

  private static long num(Map<?, ?> m, String key) {
    Object v = m.get(key);
    return v == null ? 0 : ((Number) v).longValue();
  }

  static String bytes(long n) {
    if (n < 1_000) {
      return n + " B";
    }
    if (n < 1_000_000) {
      return String.format(Locale.ROOT, "%.1f kB", n / 1e3);
    }
    return String.format(Locale.ROOT, "%.1f MB", n / 1e6);
  }
}
