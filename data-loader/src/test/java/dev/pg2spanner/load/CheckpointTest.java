package dev.pg2spanner.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.source.Piece;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTest {

  @TempDir
  Path dir;

  private final Piece a = BatchFixtures.piece("orders", 0, 0);
  private final Piece b = BatchFixtures.piece("orders", 1, 0);
  private final Piece c = new Piece("items#0", "items", "public.items", "public", "items_2024", true, 5, null, 1, 7);

  @Test
  void aReopenedCheckpointSeesThePiecesDone() {
    Path run = dir.resolve("run");
    try (Checkpoint checkpoint = Checkpoint.open(run)) {
      assertThat(checkpoint.done()).isEmpty();
      checkpoint.markDone(a, 100);
      checkpoint.markDone(c, 3);
      assertThat(checkpoint.isDone("orders#0")).isTrue();
    }
    try (Checkpoint checkpoint = Checkpoint.open(run)) {
      assertThat(checkpoint.done()).containsExactlyInAnyOrder("orders#0", "items#0");
      assertThat(checkpoint.isDone("orders#1")).isFalse();
    }
  }

  @Test
  void aTornLastLineIsIgnoredAndTheNextAppendStartsCleanly() throws Exception {
    try (Checkpoint checkpoint = Checkpoint.open(dir)) {
      checkpoint.markDone(a, 100);
    }
    // What a kill -9 in the middle of an append leaves behind.
    Files.writeString(dir.resolve(Checkpoint.DONE_FILE), "{\"piece\":\"orders#1\",\"ta", StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);
    try (Checkpoint checkpoint = Checkpoint.open(dir)) {
      assertThat(checkpoint.done()).containsExactly("orders#0");
      checkpoint.markDone(c, 3);
    }
    try (Checkpoint checkpoint = Checkpoint.open(dir)) {
      assertThat(checkpoint.done()).containsExactlyInAnyOrder("orders#0", "items#0");
    }
    assertThat(Files.readAllLines(dir.resolve(Checkpoint.DONE_FILE))).hasSize(2)
        .allSatisfy(line -> assertThat(line).startsWith("{\"piece\":"));
  }

  @Test
  void anUnreadableLineOnlyMeansThatPieceIsLoadedAgain() throws Exception {
    Files.writeString(dir.resolve(Checkpoint.DONE_FILE), "garbage\n{\"piece\":\"orders#1\"}\n");
    try (Checkpoint checkpoint = Checkpoint.open(dir)) {
      assertThat(checkpoint.done()).containsExactly("orders#1");
    }
  }

  @Test
  void theCutIsSavedOnceAndReadBack() {
    try (Checkpoint checkpoint = Checkpoint.open(dir)) {
      assertThat(checkpoint.savedPieces()).isEmpty();
      checkpoint.savePieces(List.of(a, b, c));
      checkpoint.savePieces(List.of(c, b, a)); // the same cut again: fine
    }
    try (Checkpoint checkpoint = Checkpoint.open(dir)) {
      assertThat(checkpoint.savedPieces()).contains(List.of(a, b, c));
      assertThatThrownBy(() -> checkpoint.savePieces(List.of(a, b)))
          .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
            assertThat(e.code()).isEqualTo(ExitCode.PLAN_INVALID);
            assertThat(e.getMessage()).contains(dir.toString()).contains("--resume");
          });
    }
  }

  @Test
  void anUnwritableRunDirectoryIsALocalIoError() throws Exception {
    Path file = Files.writeString(dir.resolve("not-a-directory"), "x");
    assertThatThrownBy(() -> Checkpoint.open(file.resolve("run")))
        .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
          assertThat(e.code()).isEqualTo(ExitCode.LOCAL_IO);
          assertThat(e.getMessage()).contains("not-a-directory");
        });
  }
}
