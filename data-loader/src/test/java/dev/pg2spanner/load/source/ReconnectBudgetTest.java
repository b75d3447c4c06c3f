package dev.pg2spanner.load.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReconnectBudgetTest {

  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final ReconnectBudget budget = new ReconnectBudget(now::get);

  @Test
  void sevenTriesBackingOffOverAboutAMinuteThenTheBudgetIsSpent() {
    List<Long> delays = new ArrayList<>();
    for (long d = budget.broke(true); d >= 0; d = budget.broke(false)) {
      delays.add(d);
      now.addAndGet(d * 1_000_000L);
    }
    assertThat(delays).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 15_000L, 15_000L, 15_000L);
    assertThat(budget.tries()).isEqualTo(7);
    assertThat(budget.total()).isEqualTo(7);
    assertThat(budget.secondsSinceFirstBreak()).isEqualTo(60);
    assertThat(budget.describeTry()).isEqualTo("try 7 of 7, about a minute in all");
  }

  @Test
  void aConnectionThatWorkedForAMinuteEarnsTheWholeBudgetAgain() {
    for (int i = 0; i < 5; i++) {
      budget.broke(true);
    }
    budget.opened();
    now.addAndGet(61 * SECOND);
    assertThat(budget.broke(true)).isEqualTo(1_000L);
    assertThat(budget.tries()).isEqualTo(1);
    assertThat(budget.total()).isEqualTo(6);
  }

  @Test
  void aConnectionThatBrokeSoonAfterOpeningDoesNotRenewTheBudget() {
    for (int i = 0; i < 6; i++) {
      budget.broke(true);
    }
    budget.opened();
    now.addAndGet(10 * SECOND);
    assertThat(budget.broke(true)).isEqualTo(15_000L);
    assertThat(budget.broke(true)).isEqualTo(-1L);
  }

  @Test
  void failingToOpenNeverRenewsTheBudgetHoweverLongItTakes() {
    budget.broke(true);
    now.addAndGet(600 * SECOND);
    assertThat(budget.broke(false)).isEqualTo(2_000L);
  }

  @Test
  void theWaitEndsAtOnceWhenStopIsAsked() {
    long started = System.nanoTime();
    assertThat(ReconnectBudget.await(60_000, () -> true)).isFalse();
    assertThat(System.nanoTime() - started).isLessThan(5 * SECOND); // a hang guard, not a timing target
    assertThat(ReconnectBudget.await(1, () -> false)).isTrue();
  }
}
