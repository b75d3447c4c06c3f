package dev.pg2spanner.migrate;

import com.google.api.core.ApiFuture;
import com.google.api.gax.longrunning.OperationFuture;
import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.SpannerException;
import com.google.spanner.admin.database.v1.UpdateDatabaseDdlMetadata;
import dev.pg2spanner.schema.DdlBatchPolicy;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends a phase's statements as batched {@code updateDatabaseDdl} requests ({@link DdlBatchPolicy}), a bounded number
 * at once, reports each statement as Spanner commits it, and bounds every wait. Spanner applies a batch's statements
 * in order and stops at the first one it rejects: the statements before it stay applied, the rest are not.
 */
final class DdlApplier {

  /** How often a running request's progress is read (and the emulator's port probed). */
  static final Duration POLL = Duration.ofSeconds(2);

  /** Real Spanner: an index backfill or a constraint validation over real data may take this long per statement. */
  static final Duration SPANNER_STATEMENT_TIMEOUT = Duration.ofHours(12);

  /**
   * The emulator: one request, however large, within this; it builds in memory (CREATE INDEX after 200k rows took
   * 1.5–4 s). A stopped emulator is noticed sooner, by the port probe: {@value #PROBE_FAILURES} failed probes.
   */
  static final Duration EMULATOR_REQUEST_TIMEOUT = Duration.ofMinutes(30);

  static final int PROBE_FAILURES = 3;

  private final DatabaseAdminClient admin;
  private final SpannerTarget target;

  DdlApplier(DatabaseAdminClient admin, SpannerTarget target) {
    this.admin = admin;
    this.target = target;
  }

  /**
   * Why a request stopped before all its statements were applied.
   *
   * @param batch the request's statements
   * @param applied how many of them Spanner committed before it stopped (from the operation's metadata; a lower
   *     bound when the target could not be asked)
   * @param connection true when the target could not be reached or did not finish in time (the statement may still
   *     be applied), false when Spanner rejected statement {@code applied}
   * @param detail one line: the target's error, or what timed out
   */
  record Failure(List<String> batch, int applied, boolean connection, String detail, Throwable cause) {}

  /**
   * Applies {@code batches} with at most {@code inFlight} requests at once; after the first failure no new request
   * starts, those running are awaited.
   *
   * @return the failures, first first; empty when every statement was applied
   */
  List<Failure> apply(List<List<String>> batches, int inFlight, DdlProgress progress) throws InterruptedException {
    AtomicBoolean failed = new AtomicBoolean();
    ExecutorService workers = Executors.newFixedThreadPool(Math.max(1, Math.min(inFlight, batches.size())),
        daemon("pg2spanner-ddl"));
    ExecutorService rpc = Executors.newCachedThreadPool(daemon("pg2spanner-ddl-rpc"));
    try {
      List<Future<Failure>> results = new ArrayList<>();
      for (List<String> batch : batches) {
        results.add(workers.submit(() -> failed.get() ? null : run(batch, rpc, progress, failed)));
      }
      List<Failure> failures = new ArrayList<>();
      for (Future<Failure> f : results) {
        try {
          Failure failure = f.get();
          if (failure != null) {
            failures.add(failure);
          }
        } catch (ExecutionException e) {
          Throwable cause = e.getCause() == null ? e : e.getCause();
          throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
        }
      }
      return failures;
    } finally {
      workers.shutdownNow();
      rpc.shutdownNow(); // a request stuck on a dead target: its thread is a daemon and is abandoned
    }
  }

  private Failure run(List<String> batch, ExecutorService rpc, DdlProgress progress, AtomicBoolean failed)
      throws InterruptedException {
    progress.requestStarted(batch.size());
    for (int attempt = 1; ; attempt++) {
      Failure f = attempt(batch, rpc, progress);
      // Right after a database is created the target may still run that schema change; nothing was applied then.
      boolean nothingApplied = f != null && f.applied() == 0 && !f.connection();
      if (!nothingApplied || !ConcurrentSchemaChange.waitToRetry(f.detail(), attempt, progress::note)) {
        if (f != null) {
          failed.set(true);
        }
        return f;
      }
    }
  }

  private Failure attempt(List<String> batch, ExecutorService rpc, DdlProgress progress)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout(batch).toNanos();
    int reported = 0;
    int probeFailures = 0;
    // The client blocks until the target acknowledges the request (the emulator: until it has applied it) and
    // retries UNAVAILABLE for up to an hour; so it runs on its own thread and this one keeps the bounds.
    Future<OperationFuture<Void, UpdateDatabaseDdlMetadata>> sent = rpc.submit(() ->
        admin.updateDatabaseDdl(target.instance(), target.database(), batch, null));
    OperationFuture<Void, UpdateDatabaseDdlMetadata> op = null;
    while (true) {
      try {
        if (op == null) {
          op = sent.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
        }
        op.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
        reported = report(op, batch, reported, progress, true);
        return null;
      } catch (TimeoutException e) {
        if (op != null) {
          reported = report(op, batch, reported, progress, false);
        }
        probeFailures = reachable() ? 0 : probeFailures + 1;
        if (probeFailures >= PROBE_FAILURES) {
          sent.cancel(true);
          return new Failure(batch, reported, true, "the emulator at " + target.emulatorHost()
              + " stopped answering", e);
        }
        if (System.nanoTime() > deadline) {
          sent.cancel(true);
          return new Failure(batch, reported, true, "the request did not finish within " + human(timeout(batch))
              + "; it may still be running on Spanner", e);
        }
      } catch (ExecutionException | CancellationException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (op != null) {
          reported = Math.max(reported, committed(op, true));
        }
        return new Failure(batch, reported, isConnection(cause), firstLine(cause.getMessage()), cause);
      }
    }
  }

  /** Reports the statements committed since {@code reported}; all of them when {@code done}. */
  private static int report(OperationFuture<Void, UpdateDatabaseDdlMetadata> op, List<String> batch, int reported,
      DdlProgress progress, boolean done) {
    int committed = done ? batch.size() : committed(op, false);
    for (int i = reported; i < committed; i++) {
      progress.statementDone(batch.get(i));
    }
    return Math.max(reported, committed);
  }

  /** How many statements of the operation Spanner has committed, from its last known metadata; 0 when unknown. */
  private static int committed(OperationFuture<Void, UpdateDatabaseDdlMetadata> op, boolean waitBriefly) {
    try {
      ApiFuture<UpdateDatabaseDdlMetadata> metadata = op.peekMetadata();
      if (metadata == null || !waitBriefly && !metadata.isDone()) {
        return 0;
      }
      return metadata.get(1, TimeUnit.SECONDS).getCommitTimestampsCount();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return 0; // the metadata of a failed or unreachable operation: the caller reads the schema instead
    }
  }

  /** The emulator's gRPC port accepts connections; always true for real Spanner (its client has its own bounds). */
  private boolean reachable() {
    if (!target.isEmulator()) {
      return true;
    }
    String hostPort = target.emulatorHost();
    int colon = hostPort.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))),
          1000);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private Duration timeout(List<String> batch) {
    if (target.isEmulator()) {
      return EMULATOR_REQUEST_TIMEOUT;
    }
    long validating = batch.stream().filter(DdlBatchPolicy::validates).count();
    return SPANNER_STATEMENT_TIMEOUT.multipliedBy(Math.max(1, validating));
  }

  private static boolean isConnection(Throwable cause) {
    if (cause instanceof SpannerException s) {
      return dev.pg2spanner.targetdb.SpannerFailures.isReachFailure(s);
    }
    return cause instanceof CancellationException || cause instanceof InterruptedException;
  }

  static String human(Duration d) {
    return d.toHours() > 0 ? d.toHours() + " h" : d.toMinutes() + " min";
  }

  static String firstLine(String message) {
    if (message == null || message.isBlank()) {
      return "no detail";
    }
    String s = message.strip();
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
