package dev.pg2spanner.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.load.write.ProgressTracker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgressReporterTest {

  @TempDir
  Path dir;

  private final ProgressTracker tracker = new ProgressTracker(List.of(BatchFixtures.piece("orders", 0, 0),
      BatchFixtures.piece("orders", 1, 0), BatchFixtures.piece("items", 0, 0)), List.of("orders", "items"));
  private final StringWriter printed = new StringWriter();

  private ProgressReporter reporter(boolean interactive) {
    // A long interval: the test drives report() itself.
    return new ProgressReporter(tracker, new PrintWriter(printed), dir, interactive, Duration.ofHours(1));
  }

  @Test
  void aTerminalGetsOneBarRedrawnInPlace() {
    try (ProgressReporter reporter = reporter(true)) {
      reporter.start();
      tracker.committed("orders", 50, 5_000_000);
      reporter.report();
      tracker.committed("orders", 50, 5_000_000);
      reporter.report();
      String shown = printed.toString();
      assertThat(shown).doesNotContain("\n");
      assertThat(shown.split("\r")).hasSize(3); // "", first bar, second bar
      assertThat(shown).contains("[").contains("] 33% 100 of ~300 rows, 10.0 MB").contains("rows/s")
          .contains("ETA").contains("0/2 tables");
      reporter.finish("Loaded.", Map.of("status", "completed"));
      assertThat(printed.toString()).endsWith("Loaded." + System.lineSeparator());
    }
  }

  @Test
  void aCountPastTheEstimateSaysSoInsteadOfAPercentage() {
    // Issue 28: stale statistics printed "1,011 of ~11 rows (99%)".
    try (ProgressReporter reporter = reporter(false)) {
      reporter.start();
      tracker.committed("orders", 250, 2_000_000);
      reporter.report();
      assertThat(printed.toString()).startsWith("orders: 250 rows (past the estimate of ~200), 2.0 MB, ")
          .contains("ETA ?").doesNotContain("of ~200 rows").doesNotContain("99%");
    }
    printed.getBuffer().setLength(0);
    try (ProgressReporter reporter = reporter(true)) {
      reporter.start();
      tracker.committed("orders", 250, 1_000_000);
      reporter.report();
      assertThat(printed.toString()).contains("500 rows (past the estimate of ~300), ").doesNotContain("500 of ~300");
    }
  }

  @Test
  void elsewhereALinePerTableThatMovedAndAJsonLog() throws Exception {
    try (ProgressReporter reporter = reporter(false)) {
      reporter.start();
      tracker.committed("orders", 100, 2_000_000);
      tracker.pieceDone("orders", 1_000_000);
      reporter.report();
      assertThat(printed.toString()).startsWith("orders: 100 of ~200 rows (50%), 2.0 MB, ").doesNotContain("items");
      reporter.finish("Loaded.", Map.of("status", "completed", "rowsWritten", 100));
    }
    List<String> lines = Files.readAllLines(dir.resolve(ProgressReporter.LOG_FILE));
    assertThat(lines).hasSize(2);
    ObjectMapper json = new ObjectMapper();
    JsonNode progress = json.readTree(lines.get(0));
    assertThat(progress.get("type").asText()).isEqualTo("progress");
    assertThat(progress.get("tables").get(0).get("table").asText()).isEqualTo("orders");
    assertThat(progress.get("tables").get(0).get("rows").asLong()).isEqualTo(100);
    assertThat(progress.get("tables").get(0).get("piecesDone").asLong()).isEqualTo(1);
    JsonNode summary = json.readTree(lines.get(1));
    assertThat(summary.get("type").asText()).isEqualTo("summary");
    assertThat(summary.get("status").asText()).isEqualTo("completed");
    assertThat(summary.get("rowsWritten").asLong()).isEqualTo(100);
  }
}
