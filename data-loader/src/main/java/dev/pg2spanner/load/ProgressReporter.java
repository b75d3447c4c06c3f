package dev.pg2spanner.load;

import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.write.ProgressTracker;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shows progress every interval: on a terminal one progress bar redrawn with {@code \r}, otherwise a plain line
 * per table that moved; and appends one JSON object per interval (and a final summary) to
 * {@value #LOG_FILE} in the run directory, for machines and for the benchmark.
 */
final class ProgressReporter implements AutoCloseable {

  static final String LOG_FILE = dev.pg2spanner.rundir.RunFiles.PROGRESS;

  private static final Logger LOG = LoggerFactory.getLogger(ProgressReporter.class);
  private static final int BAR_WIDTH = 24;

  private final ProgressTracker tracker;
  private final PrintWriter out;
  private final boolean interactive;
  private final Duration interval;
  private final Path logFile;
  private final Map<String, Long> lastPrintedRows = new LinkedHashMap<>();
  private ScheduledExecutorService timer;
  private JsonLinesFile log;
  private int lastBarLength;
  private boolean finished;

  ProgressReporter(ProgressTracker tracker, PrintWriter out, Path runDirectory, boolean interactive,
      Duration interval) {
    this.tracker = tracker;
    this.out = out;
    this.interactive = interactive;
    this.interval = interval;
    this.logFile = runDirectory.resolve(LOG_FILE);
  }

  void start() {
    try {
      log = JsonLinesFile.open(logFile, "the progress log", false,
          WayOn.stated("progress is shown but not logged"));
    } catch (Pg2SpannerException e) {
      // Progress is a convenience: the load does not fail for it (the checkpoint is what must be durable).
      LOG.warn("{}", e.getMessage());
    }
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pg2spanner-load-progress");
      t.setDaemon(true);
      return t;
    });
    long millis = interval.toMillis();
    timer.scheduleAtFixedRate(this::report, millis, millis, TimeUnit.MILLISECONDS);
  }

  /** One progress report (screen + log). */
  synchronized void report() {
    if (finished) {
      return;
    }
    try {
      long now = System.nanoTime();
      if (interactive) {
        String bar = bar(now);
        out.print("\r" + bar + " ".repeat(Math.max(0, lastBarLength - bar.length())));
        lastBarLength = bar.length();
      } else {
        for (ProgressTracker.Table t : tracker.tables()) {
          long rows = t.rows.sum();
          Long last = lastPrintedRows.put(t.name, rows);
          boolean moved = last == null ? rows > 0 || t.rejected.sum() > 0 : rows != last;
          if (moved) {
            out.println(tableLine(t, now));
          }
        }
      }
      out.flush();
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("type", "progress");
      line.put("at", Instant.now().toString());
      line.put("elapsedSeconds", seconds(now - tracker.startNanos));
      line.put("rows", tracker.totalRows());
      line.put("bytes", tracker.totalBytes());
      line.put("tables", tableObjects(now));
      writeLog(line);
    } catch (RuntimeException e) {
      LOG.warn("Progress report failed: {}", e.toString());
    }
  }

  /** Stops the timer, draws the last state, prints {@code summary} and logs {@code summaryJson}. */
  synchronized void finish(String summary, Map<String, Object> summaryJson) {
    finished = true;
    stopTimer();
    long now = System.nanoTime();
    if (interactive && lastBarLength > 0) {
      String bar = bar(now);
      out.println("\r" + bar + " ".repeat(Math.max(0, lastBarLength - bar.length())));
      lastBarLength = 0;
    }
    if (!interactive) {
      for (ProgressTracker.Table t : tracker.tables()) {
        out.println(tableLine(t, now));
      }
    }
    out.println(summary);
    out.flush();
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("type", "summary");
    line.put("at", Instant.now().toString());
    line.putAll(summaryJson);
    line.put("tables", tableObjects(now));
    writeLog(line);
  }

  List<Map<String, Object>> tableObjects(long now) {
    List<Map<String, Object>> tables = new ArrayList<>();
    for (ProgressTracker.Table t : tracker.tables()) {
      Map<String, Object> m = new LinkedHashMap<>();
      long rows = t.rows.sum();
      double rate = rate(t, now);
      m.put("table", t.name);
      m.put("rows", rows);
      m.put("bytes", t.bytes.sum());
      m.put("rejected", t.rejected.sum());
      m.put("estimatedRows", t.estimatedRows);
      m.put("pieces", t.pieces);
      m.put("piecesDone", t.piecesDone.sum());
      m.put("rowsPerSecond", Math.round(rate));
      Long eta = etaSeconds(t.finished() ? 0 : t.estimatedRows - rows, rate, t.finished());
      m.put("etaSeconds", eta);
      tables.add(m);
    }
    return tables;
  }

  /**
   * "orders: 12,345 of ~50,000 rows (24%), 3.2 MB, 20,100 rows/s, ETA 0:00:02"; once the count passes the estimate
   * (statistics older than the rows), "orders: 1,011 rows (past the estimate of ~11), ..., ETA ?".
   */
  String tableLine(ProgressTracker.Table t, long now) {
    long rows = t.rows.sum();
    StringBuilder b = new StringBuilder(t.name).append(": ").append(String.format(Locale.ROOT, "%,d", rows));
    boolean estimated = t.estimatedRows > 0 && !t.finished();
    if (estimated && rows <= t.estimatedRows) {
      b.append(String.format(Locale.ROOT, " of ~%,d rows (%d%%)", t.estimatedRows,
          Math.min(99, rows * 100 / t.estimatedRows)));
    } else if (estimated) {
      b.append(String.format(Locale.ROOT, " rows (past the estimate of ~%,d)", t.estimatedRows));
    } else {
      b.append(" rows");
    }
    b.append(", ").append(megabytes(t.bytes.sum()));
    double rate = rate(t, now);
    b.append(String.format(Locale.ROOT, ", %,d rows/s", Math.round(rate)));
    if (t.rejected.sum() > 0) {
      b.append(String.format(Locale.ROOT, ", %,d rejected", t.rejected.sum()));
    }
    if (t.finished()) {
      b.append(", done");
    } else {
      b.append(", ETA ").append(eta(etaSeconds(t.estimatedRows - rows, rate, false)));
    }
    return b.toString();
  }

  /**
   * "[#########...............] 41% 123,456 of ~300,000 rows, 45.1 MB, 21,000 rows/s, ETA 0:00:08, 3/5 tables"; past
   * the estimate "... 99% 400,000 rows (past the estimate of ~300,000), ...".
   */
  String bar(long now) {
    long rows = tracker.totalRows();
    long estimate = tracker.totalEstimatedRows();
    long done = tracker.tables().stream().filter(ProgressTracker.Table::finished).count();
    int tables = tracker.tables().size();
    boolean finished = done == tables;
    int percent = finished ? 100 : estimate > 0 ? (int) Math.min(99, rows * 100 / estimate) : 0;
    int filled = percent * BAR_WIDTH / 100;
    double rate = rows / Math.max(1e-9, seconds(now - tracker.startNanos));
    StringBuilder b = new StringBuilder("[").append("#".repeat(filled)).append(".".repeat(BAR_WIDTH - filled))
        .append("] ").append(percent).append("% ").append(String.format(Locale.ROOT, "%,d", rows));
    if (estimate > 0 && !finished && rows <= estimate) {
      b.append(String.format(Locale.ROOT, " of ~%,d rows", estimate));
    } else if (estimate > 0 && !finished) {
      b.append(String.format(Locale.ROOT, " rows (past the estimate of ~%,d)", estimate));
    } else {
      b.append(" rows");
    }
    b.append(", ").append(megabytes(tracker.totalBytes()))
        .append(String.format(Locale.ROOT, ", %,d rows/s", Math.round(rate)));
    if (!finished) {
      b.append(", ETA ").append(eta(etaSeconds(estimate - rows, rate, false)));
    }
    return b.append(", ").append(done).append('/').append(tables).append(" tables").toString();
  }

  private static double rate(ProgressTracker.Table t, long now) {
    long first = t.firstCommitNanos.get();
    if (first == 0) {
      return 0;
    }
    long end = t.finished() ? t.lastCommitNanos.get() : now;
    return t.rows.sum() / Math.max(1e-3, seconds(end - first));
  }

  /** Null when unknown (no rate yet, or the estimate was already passed). */
  private static Long etaSeconds(long remainingRows, double rate, boolean finished) {
    if (finished) {
      return 0L;
    }
    if (rate <= 0 || remainingRows <= 0) {
      return null;
    }
    return Math.round(remainingRows / rate);
  }

  private static String eta(Long seconds) {
    if (seconds == null) {
      return "?";
    }
    return String.format(Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60);
  }

  static String megabytes(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }

  static double seconds(long nanos) {
    return Math.round(nanos / 1e6) / 1e3;
  }

  private void writeLog(Map<String, Object> line) {
    if (log == null) {
      return;
    }
    try {
      log.append(line);
    } catch (Pg2SpannerException e) {
      LOG.warn("{} Progress is no longer logged.", e.getMessage());
      closeLog();
    }
  }

  private void stopTimer() {
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
  }

  private void closeLog() {
    if (log != null) {
      log.close();
      log = null;
    }
  }

  @Override
  public synchronized void close() {
    stopTimer();
    closeLog();
  }
}
