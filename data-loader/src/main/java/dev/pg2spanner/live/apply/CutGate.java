package dev.pg2spanner.live.apply;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The consistent cuts other threads ask of the {@link ChangeApplier} (continuous verification, cutover), and the hold
 * that keeps the stream still while one is being prepared: at most one cut pending; the applier completes it on its
 * own thread once every source transaction before the cut's position is applied and none after it.
 */
final class CutGate {

  /** How long a cut being prepared may hold the stream. */
  static final long HOLD_MILLIS = 3_000;

  /** Set while a cut is being prepared: the stream waits at its next transaction (see {@link #hold}). */
  private final AtomicReference<CountDownLatch> holding = new AtomicReference<>();
  private final AtomicReference<ChangeApplier.CutRequest> cut = new AtomicReference<>();
  /** The commit position of the last transaction begun (the stream thread only). */
  private long lastBegunLsn = -1;

  /** Asks for a cut (from another thread; a second one while one is pending is refused at once). */
  void request(ChangeApplier.CutRequest request) {
    if (!cut.compareAndSet(null, request)) {
      request.done().completeExceptionally(new IllegalStateException("another cut is pending"));
    }
    release();
  }

  /** Withdraws a cut request that was not reached (the asker stopped waiting). */
  void cancel(ChangeApplier.CutRequest request) {
    cut.compareAndSet(request, null);
    release();
  }

  /** A cut is about to be asked for: the stream waits at its next transaction, at most {@link #HOLD_MILLIS}. */
  void hold() {
    holding.set(new CountDownLatch(1));
  }

  /** Lets a stream held by {@link #hold} go on. */
  void release() {
    CountDownLatch hold = holding.getAndSet(null);
    if (hold != null) {
      hold.countDown();
    }
  }

  /**
   * On the stream's thread, as a transaction at {@code finalLsn} begins: waits while a cut being prepared holds the
   * stream (bounded), and returns the pending cut this transaction is the first past (null if none): everything
   * before it is in hand. The caller completes that cut, then tells {@link #begun}.
   */
  ChangeApplier.CutRequest beginning(long finalLsn) {
    awaitHold();
    return reachedAt(finalLsn);
  }

  /** The transaction at {@code finalLsn} is being applied: a cut before it asked for from now on is refused. */
  void begun(long finalLsn) {
    lastBegunLsn = Math.max(lastBegunLsn, finalLsn);
  }

  /** The pending cut whose position is at or before {@code lsn}, or null. */
  ChangeApplier.CutRequest reachedAt(long lsn) {
    ChangeApplier.CutRequest request = cut.get();
    return request != null && lsn >= request.lsn() ? request : null;
  }

  /**
   * True, and the request refused, when a transaction at or past the cut was applied before the cut was known:
   * Spanner then has no state that is exactly the cut's, and a comparison there would report the stream's lead as a
   * difference.
   */
  boolean passed(ChangeApplier.CutRequest request) {
    if (lastBegunLsn < request.lsn()) {
      return false;
    }
    cut.set(null);
    request.done().completeExceptionally(new IllegalStateException("the stream had applied a transaction past "
        + "the cut before the cut's position was known"));
    return true;
  }

  /** The pending cut was completed (or failed): the next may be asked for. */
  void clear() {
    cut.set(null);
  }

  private void awaitHold() {
    CountDownLatch hold = holding.get();
    if (hold == null) {
      return;
    }
    try {
      if (!hold.await(HOLD_MILLIS, TimeUnit.MILLISECONDS)) {
        holding.compareAndSet(hold, null); // preparing the cut takes long (a long transaction): stream on; it may fail
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
