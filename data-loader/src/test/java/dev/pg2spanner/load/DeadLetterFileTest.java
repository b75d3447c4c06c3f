package dev.pg2spanner.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.row.RejectedRow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeadLetterFileTest {

  @TempDir
  Path dir;

  @Test
  void writesOneJsonObjectPerLineAndCounts() throws Exception {
    Path file = dir.resolve("sub/dead.jsonl");
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      dead.write(new RejectedRow("orders", "42", "amount", "NaN", "NUMERIC has no NaN"));
      dead.write(new RejectedRow("orders", "43", null, null, "Spanner refused the row: \"quoted\"\nnewline"));
      assertThat(dead.count()).isEqualTo(2);
      assertThat(dead.path()).isEqualTo(file);
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(2);
    JsonNode first = new ObjectMapper().readTree(lines.get(0));
    assertThat(first.get("table").asText()).isEqualTo("orders");
    assertThat(first.get("key").asText()).isEqualTo("42");
    assertThat(first.get("column").asText()).isEqualTo("amount");
    assertThat(first.get("valueExcerpt").asText()).isEqualTo("NaN");
    assertThat(first.get("reason").asText()).isEqualTo("NUMERIC has no NaN");
    JsonNode second = new ObjectMapper().readTree(lines.get(1));
    assertThat(second.get("column").isNull()).isTrue();
    assertThat(second.get("reason").asText()).isEqualTo("Spanner refused the row: \"quoted\"\nnewline");
  }

  @Test
  void concurrentWritersNeitherLoseNorInterleaveLines() throws Exception {
    Path file = dir.resolve("dead.jsonl");
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        threads.add(new Thread(() -> {
          for (int i = 0; i < 500; i++) {
            dead.write(new RejectedRow("t" + thread, Integer.toString(i), null, null, "r".repeat(100)));
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread thread : threads) {
        thread.join();
      }
      assertThat(dead.count()).isEqualTo(2000);
    }
    ObjectMapper json = new ObjectMapper();
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(2000);
    for (String line : lines) {
      assertThat(json.readTree(line).get("reason").asText()).hasSize(100);
    }
  }

  @Test
  void reopeningAppendsAndCountsOnlyTheNewRows() throws Exception {
    Path file = dir.resolve("dead.jsonl");
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      dead.write(new RejectedRow("t", "1", null, null, "r"));
    }
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      dead.write(new RejectedRow("t", "2", null, null, "r"));
      assertThat(dead.count()).isEqualTo(1);
    }
    assertThat(Files.readAllLines(file)).hasSize(2);
  }

  @Test
  void aRowAnEarlierRunListedIsCountedButNotListedTwice() throws Exception {
    Path file = dir.resolve("dead.jsonl");
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      dead.write(new RejectedRow("t", "1", "c", null, "first run"));
    }
    try (DeadLetterFile dead = DeadLetterFile.open(file)) {
      dead.write(new RejectedRow("t", "1", "c", null, "resumed run"));
      dead.write(new RejectedRow("u", "1", "c", null, "same key, other table"));
      dead.write(new RejectedRow("u", "1", "c", null, "twice in one run"));
      assertThat(dead.count()).isEqualTo(3);
    }
    assertThat(Files.readAllLines(file)).hasSize(2);
    assertThat(DeadLetterFile.listedRows(file))
        .containsExactlyInAnyOrder(DeadLetterFile.identity("t", "1"), DeadLetterFile.identity("u", "1"));
  }

  @Test
  void aFileThatCannotBeOpenedIsALocalIoErrorNamingIt() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("plain"), "x");
    Path file = notADirectory.resolve("dead.jsonl");
    assertThatThrownBy(() -> DeadLetterFile.open(file)).isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
      assertThat(e.code()).isEqualTo(ExitCode.LOCAL_IO);
      assertThat(e.getMessage()).contains(file.toString());
    });
  }
}
