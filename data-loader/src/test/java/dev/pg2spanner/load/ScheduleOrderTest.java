package dev.pg2spanner.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.load.source.Piece;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ScheduleOrderTest {

  private static List<Piece> pieces(String table, int count, int level) {
    List<Piece> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(BatchFixtures.piece(table, i, level));
    }
    return list;
  }

  private static int sameTableNeighbours(List<Piece> order) {
    int n = 0;
    for (int i = 1; i < order.size(); i++) {
      if (order.get(i).table().equals(order.get(i - 1).table())) {
        n++;
      }
    }
    return n;
  }

  @Test
  void consecutivePiecesComeFromDifferentTablesWhenPossible() {
    List<Piece> all = new ArrayList<>();
    all.addAll(pieces("a", 10, 0));
    all.addAll(pieces("b", 4, 0));
    all.addAll(pieces("c", 3, 0));
    all.addAll(pieces("d", 3, 0));
    List<Piece> order = ScheduleOrder.interleave(all);
    assertThat(order).hasSize(20).containsExactlyInAnyOrderElementsOf(all);
    // 10 of 20 from one table can alternate perfectly; plain round-robin would end a,a,a,...
    assertThat(sameTableNeighbours(order)).isZero();
  }

  @Test
  void onlyOneTableLeftIsUnavoidable() {
    List<Piece> all = new ArrayList<>(pieces("a", 6, 0));
    all.addAll(pieces("b", 2, 0));
    List<Piece> order = ScheduleOrder.interleave(all);
    // a b a b a a a a: 6 a's and 2 b's force three a-a neighbours, and no more.
    assertThat(sameTableNeighbours(order)).isEqualTo(3);
  }

  @Test
  void piecesOfATableAreNotInBlockOrder() {
    List<Piece> order = ScheduleOrder.interleave(pieces("a", 20, 0));
    List<Long> blocks = order.stream().map(Piece::firstBlock).toList();
    List<Long> sorted = new ArrayList<>(blocks);
    Collections.sort(sorted);
    assertThat(blocks).isNotEqualTo(sorted);
    List<Long> reversed = new ArrayList<>(sorted);
    Collections.reverse(reversed);
    assertThat(blocks).isNotEqualTo(reversed);
  }

  @Test
  void theOrderIsDeterministicWhateverTheInputOrder() {
    List<Piece> all = new ArrayList<>();
    all.addAll(pieces("a", 7, 0));
    all.addAll(pieces("b", 5, 0));
    List<Piece> shuffled = new ArrayList<>(all);
    Collections.shuffle(shuffled, new Random(42));
    assertThat(ScheduleOrder.interleave(shuffled)).isEqualTo(ScheduleOrder.interleave(all));
  }

  @Test
  void parentsFirstMakesOneStagePerLevel() {
    List<Piece> all = new ArrayList<>();
    all.addAll(pieces("child", 4, 1));
    all.addAll(pieces("grandchild", 2, 2));
    all.addAll(pieces("parent", 3, 0));
    all.addAll(pieces("other", 3, 0));
    List<List<Piece>> stages = ScheduleOrder.stages(all, true);
    assertThat(stages).hasSize(3);
    assertThat(stages.get(0)).extracting(Piece::table).containsOnly("parent", "other").hasSize(6);
    assertThat(stages.get(1)).extracting(Piece::table).containsOnly("child");
    assertThat(stages.get(2)).extracting(Piece::table).containsOnly("grandchild");
  }

  @Test
  void withoutParentsFirstEverythingIsOneStage() {
    List<Piece> all = new ArrayList<>(pieces("child", 3, 1));
    all.addAll(pieces("parent", 3, 0));
    List<List<Piece>> stages = ScheduleOrder.stages(all, false);
    assertThat(stages).hasSize(1);
    assertThat(sameTableNeighbours(stages.get(0))).isZero();
    assertThat(ScheduleOrder.stages(List.of(), false)).isEmpty();
  }
}
