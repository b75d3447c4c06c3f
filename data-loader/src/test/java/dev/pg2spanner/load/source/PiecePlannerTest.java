package dev.pg2spanner.load.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PiecePlannerTest {

  private static final long BLOCK = 8192;

  private static SourceRelation rel(String name, long blocks, double rows) {
    return new SourceRelation("T", "s.t", "s", name, "r", blocks * BLOCK, rows, 0);
  }

  @Test
  void cutsContiguousRangesWithAnOpenLastPieceAndAtLeastMinPieces() {
    List<Piece> pieces = PiecePlanner.split(List.of(rel("a", 100, 1000), rel("b", 7, 70), rel("empty", 0, 0)),
        BLOCK, 10, 1_000);
    // 107 blocks / 10 pieces → 10 blocks each
    assertThat(pieces).hasSizeGreaterThanOrEqualTo(10);
    List<Piece> a = pieces.stream().filter(p -> p.relationName().equals("a")).toList();
    assertThat(a).hasSize(10);
    for (int i = 0; i < a.size(); i++) {
      assertThat(a.get(i).firstBlock()).isEqualTo(i * 10L);
      assertThat(a.get(i).endBlock()).isEqualTo(i == 9 ? null : (i + 1) * 10L);
      assertThat(a.get(i).only()).isTrue();
    }
    assertThat(a.get(0).id()).isEqualTo("T#s.a:0-10");
    assertThat(a.get(9).id()).isEqualTo("T#s.a:90-");
    assertThat(a.get(0).estimatedRows()).isEqualTo(100);
    Piece b = pieces.stream().filter(p -> p.relationName().equals("b")).findFirst().orElseThrow();
    assertThat(b.firstBlock()).isZero();
    assertThat(b.endBlock()).isNull();
    assertThat(pieces.stream().filter(p -> p.relationName().equals("empty")).toList()).singleElement()
        .satisfies(p -> assertThat(p.endBlock()).isNull());
    assertThat(pieces.stream().map(Piece::id).distinct()).hasSize(pieces.size());
  }

  @Test
  void maxPieceSizeWinsOverFewPieces() {
    List<Piece> pieces = PiecePlanner.split(List.of(rel("a", 100, 0)), BLOCK, 1, 25);
    assertThat(pieces).extracting(Piece::firstBlock).containsExactly(0L, 25L, 50L, 75L);
  }

  @Test
  void fewerBlocksThanMinPiecesGivesOnePiecePerBlock() {
    List<Piece> pieces = PiecePlanner.split(List.of(rel("a", 3, 3)), BLOCK, 40, 1_000);
    assertThat(pieces).extracting(Piece::firstBlock).containsExactly(0L, 1L, 2L);
  }
}
