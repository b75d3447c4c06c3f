package dev.pg2spanner.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The meters of one {@code migrate} run, in a Micrometer registry that writes Prometheus's text format. Micrometer's
 * Prometheus naming turns {@code pg2spanner.load.rows} into {@code pg2spanner_load_rows_total} (counters end in
 * {@code _total}, timers in {@code _seconds}); every name starts with {@code pg2spanner_}. README's metrics table
 * lists each name, type, labels and meaning, and {@code RunMetricsTest} compares it with what is registered here.
 *
 * <p>Counters count from the start of this process (a resumed run starts them at zero again, as Prometheus
 * expects of a restarted process). Live gauges (lag, WAL held) are measured at each progress report
 * ({@code --progress-interval}). Thread-safe.
 */
public final class RunMetrics {

  /** The phases a run goes through: {@code pg2spanner_run_phase{phase="..."}} is 1 for the current one. */
  public enum Phase {
    STARTING, TABLES, LOAD, SCHEMA, VERIFY, STREAMING, CUTOVER, COMPLETED, STOPPED, FAILED;

    /** The label value: the name in lower case. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private static final String TABLE = "table";

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.STARTING);
  private final AtomicLong lagBytes = new AtomicLong();
  private final AtomicReference<Double> lagSeconds = new AtomicReference<>(0.0);
  private final AtomicReference<Double> changesPerSecond = new AtomicReference<>(0.0);
  private final AtomicLong slotRetained = new AtomicLong(-1);
  private final AtomicLong overMax = new AtomicLong();
  private final Counter schemaChanges;
  /** Objects the function meters read: held here, because Micrometer holds them only weakly. */
  private final List<Object> held = new ArrayList<>();
  private boolean slotWalLimitsBound;

  public RunMetrics() {
    for (Phase p : Phase.values()) {
      Gauge.builder("pg2spanner.run.phase", phase, current -> current.get() == p ? 1 : 0)
          .description("1 for the phase the run is in, 0 for the others")
          .tag("phase", p.label()).register(registry);
    }
    schemaChanges = Counter.builder("pg2spanner.live.schema.changes.applied")
        .description("source schema changes followed while streaming (applied to Spanner or found to need nothing)")
        .register(registry);
  }

  /** The registry (for meters a caller adds itself). */
  public MeterRegistry registry() {
    return registry;
  }

  /** The meters in Prometheus's text format (version 0.0.4). */
  public String scrape() {
    return registry.scrape();
  }

  /** The run entered {@code p}. */
  public void phase(Phase p) {
    phase.set(p);
  }

  public Phase phase() {
    return phase.get();
  }

  // ---- the load -------------------------------------------------------------------------------------------------

  /** The load counters of one table. */
  public record LoadTable(Counter rows, Counter bytes, Counter rejected, Counter piecesDone) {}

  /**
   * The counters of one table's load, registered with its pieces to load in this process.
   *
   * @param pieces pieces of the table this run loads (a resumed run: those not yet done)
   */
  public LoadTable loadTable(String table, int pieces) {
    AtomicLong total = new AtomicLong(pieces);
    held.add(total);
    Gauge.builder("pg2spanner.load.pieces", total, AtomicLong::get).description("pieces of the table this process "
        + "loads (a resumed run: those not done before)").tag(TABLE, table).register(registry);
    return new LoadTable(
        Counter.builder("pg2spanner.load.rows").description("rows committed to Spanner by the load")
            .tag(TABLE, table).register(registry),
        Counter.builder("pg2spanner.load").baseUnit("bytes").description("bytes of converted rows committed by the "
            + "load (Spanner's mutation size, estimated)").tag(TABLE, table).register(registry),
        Counter.builder("pg2spanner.load.rows.rejected").description("rows the load could not convert or Spanner "
            + "refused: in the dead-letter file").tag(TABLE, table).register(registry),
        Counter.builder("pg2spanner.load.pieces.done").description("pieces loaded and checkpointed")
            .tag(TABLE, table).register(registry));
  }

  // ---- commits --------------------------------------------------------------------------------------------------

  /** Commit latency and retries of one stage. */
  public static final class Commits {
    private final Timer latency;
    private final Counter retries;

    Commits(Timer latency, Counter retries) {
      this.latency = latency;
      this.retries = retries;
    }

    /** A commit Spanner accepted after {@code nanos}. */
    public void committed(long nanos) {
      latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A commit failed transiently and is tried again. */
    public void retried() {
      retries.increment();
    }
  }

  /** The commit meters of {@code stage} ("load" or "live"). */
  public Commits commits(String stage) {
    return new Commits(
        Timer.builder("pg2spanner.commit").description("time of each Spanner commit Spanner accepted (the last "
            + "attempt)").tag("stage", stage).register(registry),
        Counter.builder("pg2spanner.commit.retries").description("commits tried again after a transient failure "
            + "(ABORTED, UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED)").tag("stage", stage)
            .register(registry));
  }

  /** For code that commits without a run: meters nobody reads. */
  public static Commits unobserved(String stage) {
    return new RunMetrics().commits(stage);
  }

  // ---- live -----------------------------------------------------------------------------------------------------

  /**
   * What the change stream counts, read at each scrape.
   *
   * @param kinds per kind of change (insert, update, delete, truncate), how many were applied
   */
  public record LiveCounts(java.util.Map<String, LongSupplier> kinds, LongSupplier transactions,
      LongSupplier rejected) {}

  /** Binds the change stream's counters. */
  public void live(LiveCounts counts) {
    held.add(counts);
    counts.kinds().forEach((kind, supplier) -> FunctionCounter.builder("pg2spanner.live.changes.applied", supplier,
        s -> s.getAsLong()).description("source changes applied to Spanner by the stream; rate() of it is the apply "
        + "rate").tag("kind", kind).register(registry));
    FunctionCounter.builder("pg2spanner.live.transactions.applied", counts.transactions(), s -> s.getAsLong())
        .description("source transactions applied").register(registry);
    FunctionCounter.builder("pg2spanner.live.changes.rejected", counts.rejected(), s -> s.getAsLong())
        .description("streamed changes Spanner refused or that could not be converted: in the dead-letter file")
        .register(registry);
    Gauge.builder("pg2spanner.live.changes.per.second", changesPerSecond, AtomicReference::get)
        .description("changes applied per second over the last progress interval").register(registry);
    Gauge.builder("pg2spanner.live.lag.seconds", lagSeconds, AtomicReference::get)
        .description("now minus the commit time of the last source transaction applied; 0 when caught up")
        .register(registry);
    Gauge.builder("pg2spanner.live.lag.bytes", lagBytes, AtomicLong::get)
        .description("WAL between the source's current position and the position applied").register(registry);
    Gauge.builder("pg2spanner.slot.wal.retained.bytes", slotRetained, v -> v.get() < 0 ? Double.NaN : v.get())
        .description("WAL the replication slot holds on the source (from its restart_lsn)").register(registry);
    Gauge.builder("pg2spanner.slot.wal.over.max", overMax, AtomicLong::get)
        .description("1 while the slot holds more WAL than --max-slot-wal").register(registry);
  }

  /** The latest progress report's figures. */
  public void liveReport(long lagBytes, double lagSeconds, Long slotRetainedBytes, double changesPerSecond) {
    this.lagBytes.set(lagBytes);
    this.lagSeconds.set(lagSeconds);
    this.slotRetained.set(slotRetainedBytes == null ? -1 : slotRetainedBytes);
    this.changesPerSecond.set(changesPerSecond);
  }

  /** Whether the slot holds more than --max-slot-wal now. */
  public void slotWalOverMax(boolean over) {
    overMax.set(over ? 1 : 0);
  }

  /**
   * The slot-WAL limits, as gauges (only those set). Bound once per run: a live run calls this again for every session
   * it opens after a reconnect, and Micrometer warns of (and ignores) a gauge registered twice.
   */
  public synchronized void slotWalLimits(Long maxBytes, Long stopBytes) {
    if (slotWalLimitsBound) {
      return;
    }
    slotWalLimitsBound = true;
    if (maxBytes != null) {
      Gauge.builder("pg2spanner.slot.wal.limit.bytes", () -> maxBytes).description("--max-slot-wal (warn) and "
          + "--stop-slot-wal (stop streaming), when set").tag("limit", "max").strongReference(true)
          .register(registry);
    }
    if (stopBytes != null) {
      Gauge.builder("pg2spanner.slot.wal.limit.bytes", () -> stopBytes).description("--max-slot-wal (warn) and "
          + "--stop-slot-wal (stop streaming), when set").tag("limit", "stop").strongReference(true)
          .register(registry);
    }
  }

  /**
   * Binds the continuous verification's figures per table.
   *
   * @param verifiedPosition per table, the WAL position (as a number) it was last found equal at, or NaN
   * @param pendingRows per table, changed rows waiting to be compared
   * @param differing tables found different at the latest cut
   */
  public void verification(Collection<String> tables, ToDoubleFunction<String> verifiedPosition,
      ToDoubleFunction<String> pendingRows, DoubleSupplier differing) {
    held.add(verifiedPosition);
    held.add(pendingRows);
    held.add(differing);
    for (String table : tables) {
      String name = new String(table);
      held.add(name);
      Gauge.builder("pg2spanner.live.verified.position.bytes", name, verifiedPosition).description("the WAL "
          + "position (LSN as a number) the table was last verified equal at; NaN before the first")
          .tag(TABLE, table).register(registry);
      Gauge.builder("pg2spanner.live.verify.pending.rows", name, pendingRows).description("rows the stream changed "
          + "since the table's last verified cut, waiting to be compared").tag(TABLE, table).register(registry);
    }
    Gauge.builder("pg2spanner.live.verify.tables.differing", differing, DoubleSupplier::getAsDouble)
        .description("tables found different from the source at the latest consistent cut").register(registry);
  }

  /** A source schema change was followed while streaming. */
  public void schemaChangeApplied() {
    schemaChanges.increment();
  }
}
