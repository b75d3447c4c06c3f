package dev.pg2spanner.live.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class CutGateTest {

  private static ChangeApplier.CutRequest cutAt(long lsn) {
    return new ChangeApplier.CutRequest(lsn, () -> Timestamp.ofTimeMicroseconds(lsn), new CompletableFuture<>());
  }

  @Test
  void aCutIsReachedByTheFirstTransactionAtOrPastItsPosition() {
    CutGate gate = new CutGate();
    ChangeApplier.CutRequest cut = cutAt(200);
    gate.request(cut);

    assertThat(gate.beginning(150)).isNull();
    gate.begun(150);
    assertThat(gate.beginning(200)).isSameAs(cut);
    assertThat(gate.passed(cut)).as("nothing at or past 200 was applied before it").isFalse();
  }

  @Test
  void aSecondCutWhileOneIsPendingIsRefusedAtOnce() {
    CutGate gate = new CutGate();
    ChangeApplier.CutRequest first = cutAt(100);
    ChangeApplier.CutRequest second = cutAt(120);
    gate.request(first);
    gate.request(second);

    assertThat(second.done()).isCompletedExceptionally();
    assertThat(first.done()).isNotDone();
    assertThat(gate.reachedAt(100)).isSameAs(first);
    gate.clear();
    assertThat(gate.reachedAt(1_000)).isNull();
  }

  @Test
  void aCutBehindATransactionAlreadyBegunIsRefusedWithItsReason() {
    CutGate gate = new CutGate();
    gate.begun(300);
    ChangeApplier.CutRequest late = cutAt(250);
    gate.request(late);

    assertThat(gate.passed(late)).isTrue();
    assertThatThrownBy(() -> late.done().get()).isInstanceOf(ExecutionException.class)
        .hasRootCauseMessage("the stream had applied a transaction past the cut before the cut's position was known");
    assertThat(gate.reachedAt(1_000)).as("the refused cut is no longer pending").isNull();
  }

  @Test
  void aWithdrawnCutIsNotReached() {
    CutGate gate = new CutGate();
    ChangeApplier.CutRequest cut = cutAt(10);
    gate.request(cut);
    gate.cancel(cut);

    assertThat(gate.beginning(50)).isNull();
  }

  @Test
  void aHoldKeepsTheStreamAtItsNextTransactionUntilReleased() throws Exception {
    CutGate gate = new CutGate();
    gate.hold();
    Thread stream = new Thread(() -> gate.beginning(10));
    stream.start();
    Thread.sleep(200);
    assertThat(stream.isAlive()).as("held").isTrue();
    gate.release();
    stream.join(CutGate.HOLD_MILLIS / 3); // well before the hold would have ended by itself

    assertThat(stream.isAlive()).as("released").isFalse();
  }
}
