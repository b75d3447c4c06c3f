package dev.pg2spanner.live.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stream's confirm rules, the guarantee that the slot never frees a change Spanner does not hold: a position is
 * confirmed only when the sink says the target holds it, or when the stream is idle with nothing half received
 * (then everything sent is applied); never backwards; at a stop, after the sink's last commit.
 */
class LiveStreamTest {

  /** The events of the stream and the sink, in the order they happened. */
  private final List<String> events = new ArrayList<>();

  @Test
  void messagesFlowingConfirmNothingTheSinkDoesNotHold() {
    Replication replication = new Replication().send(begin(200), commit(200), begin(300), commit(300));
    replication.lastReceive = 300;
    Sink sink = new Sink();
    LiveStream stream = new LiveStream(replication, sink, 100);

    assertThat(stream.poll(() -> false)).isTrue();

    assertThat(sink.accepted).isEqualTo(4);
    assertThat(replication.confirmed).isEmpty();
    assertThat(stream.confirmed()).isEqualTo(100);
    assertThat(stream.caughtUp()).isFalse();
  }

  @Test
  void whatTheSinkCommitsIsConfirmedAtOnceAndAnIdleStreamConfirmsAllItSent() {
    Replication replication = new Replication().send(begin(200), commit(200));
    replication.lastReceive = 200;
    Sink sink = new Sink();
    LiveStream stream = new LiveStream(replication, sink, 100);
    sink.appliedAfterAccepting = 2;
    sink.applied = 200;

    stream.poll(() -> false);
    assertThat(replication.confirmed).containsExactly(200L);

    // Nothing waits, nothing is half received: the server's later position (WAL of other tables) is applied too.
    replication.lastReceive = 350;
    assertThat(stream.poll(() -> false)).isFalse();
    assertThat(events).containsSubsequence("sink idle", "sink caught up to 350", "confirm 350");
    assertThat(replication.confirmed).containsExactly(200L, 350L);
    assertThat(stream.caughtUp()).isTrue();
  }

  @Test
  void anIdleStreamInsideATransactionConfirmsOnlyWhatIsApplied() {
    Replication replication = new Replication();
    replication.lastReceive = 500;
    Sink sink = new Sink();
    sink.inTransaction = true;
    sink.applied = 150;
    LiveStream stream = new LiveStream(replication, sink, 100);

    stream.poll(() -> false);

    assertThat(replication.confirmed).containsExactly(150L);
    assertThat(events).doesNotContain("sink caught up to 500");
    assertThat(stream.caughtUp()).isFalse();
  }

  @Test
  void aPositionIsNeverConfirmedBackwards() {
    Replication replication = new Replication();
    replication.lastReceive = 450;
    Sink sink = new Sink();
    sink.applied = 400; // a resumed run: the slot was confirmed further than this process has applied
    LiveStream stream = new LiveStream(replication, sink, 500);

    stream.poll(() -> false);

    assertThat(replication.confirmed).isEmpty();
    assertThat(stream.confirmed()).isEqualTo(500);
  }

  @Test
  void aStopCommitsWhatWaitsThenConfirmsItThenTellsTheServer() throws Exception {
    Replication replication = new Replication();
    Sink sink = new Sink();
    sink.appliedAtFlush = 700;
    LiveStream stream = new LiveStream(replication, sink, 100);

    stream.run(() -> true, () -> { });

    assertThat(events).containsExactly("sink flush", "confirm 700", "status");
  }

  @Test
  void aChangeTheSinkCannotApplyIsNeverConfirmed() {
    Replication replication = new Replication().send(begin(200), commit(200));
    replication.lastReceive = 200;
    Sink sink = new Sink();
    sink.failOn = 2;
    LiveStream stream = new LiveStream(replication, sink, 100);

    assertThatThrownBy(() -> stream.poll(() -> false)).hasMessageContaining("cannot apply");
    assertThat(replication.confirmed).isEmpty();
  }

  @Test
  void aBrokenConnectionSaysNothingWasLostAndHowToGoOn() {
    Replication replication = new Replication();
    replication.broken = new SQLException("An I/O error occurred while sending to the backend.", "08006");
    LiveStream stream = new LiveStream(replication, new Sink(), 100);

    assertThatThrownBy(() -> stream.poll(() -> false))
        .isInstanceOfSatisfying(Pg2SpannerException.class,
            e -> assertThat(e.code()).isEqualTo(ExitCode.SOURCE_CONNECTION))
        .hasMessageContaining("nothing was lost")
        .hasMessageContaining("--resume");
    assertThat(replication.confirmed).isEmpty();
  }

  private static ByteBuffer begin(long finalLsn) {
    return ByteBuffer.allocate(21).put((byte) 'B').putLong(finalLsn).putLong(0).putInt(7).flip();
  }

  private static ByteBuffer commit(long endLsn) {
    return ByteBuffer.allocate(26).put((byte) 'C').put((byte) 0).putLong(endLsn - 8).putLong(endLsn).putLong(0)
        .flip();
  }

  /** A replication connection scripted by the test. */
  private final class Replication implements ReplicationStream {
    private final Deque<ByteBuffer> waiting = new ArrayDeque<>();
    private final List<Long> confirmed = new ArrayList<>();
    private long lastReceive;
    private SQLException broken;

    Replication send(ByteBuffer... messages) {
      waiting.addAll(List.of(messages));
      return this;
    }

    @Override
    public ByteBuffer readPending() throws SQLException {
      if (broken != null) {
        throw broken;
      }
      return waiting.poll();
    }

    @Override
    public long lastReceiveLsn() {
      return lastReceive;
    }

    @Override
    public void confirm(long lsn) {
      confirmed.add(lsn);
      events.add("confirm " + lsn);
    }

    @Override
    public void forceStatus() {
      events.add("status");
    }

    @Override
    public void close() {
      events.add("closed");
    }
  }

  /** An applier that says what the target holds as the test sets it. */
  private final class Sink implements ChangeSink {
    private int accepted;
    private long applied;
    private boolean inTransaction;
    /** After this many messages, report {@link #applied}; before, nothing (0 = report it from the start). */
    private int appliedAfterAccepting;
    /** What a flush makes the target hold (0: unchanged). */
    private long appliedAtFlush;
    /** Fail on the n-th message (0: never). */
    private int failOn;

    @Override
    public void accept(PgOutput.Message message) {
      accepted++;
      if (accepted == failOn) {
        throw new IllegalStateException("cannot apply " + message);
      }
    }

    @Override
    public void idle() {
      events.add("sink idle");
    }

    @Override
    public void flush() {
      events.add("sink flush");
      if (appliedAtFlush > 0) {
        applied = appliedAtFlush;
      }
    }

    @Override
    public boolean inTransaction() {
      return inTransaction;
    }

    @Override
    public void caughtUp(long received) {
      events.add("sink caught up to " + received);
    }

    @Override
    public long appliedEndLsn() {
      return accepted >= appliedAfterAccepting ? applied : 0;
    }
  }
}
