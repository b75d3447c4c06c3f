package dev.pg2spanner.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesFileTest {

  @TempDir
  Path dir;

  @Test
  void aTornLastLineIsCutWhenReopenedSoTheNextLineStandsAlone() throws Exception {
    Path file = dir.resolve("sub/log.jsonl");
    try (JsonLinesFile log = JsonLinesFile.open(file, "the log", true, WayOn.stated("do something"))) {
      log.append(Map.of("n", 1));
    }
    Files.writeString(file, Files.readString(file) + "{\"n\": 2, \"tor");
    assertThat(JsonLinesFile.read(file)).hasSize(1);
    try (JsonLinesFile log = JsonLinesFile.open(file, "the log", false, WayOn.stated("do something"))) {
      log.append(Map.of("n", 3));
    }
    assertThat(Files.readAllLines(file)).containsExactly("{\"n\":1}", "{\"n\":3}");
    assertThat(JsonLinesFile.read(file)).extracting(n -> n.get("n").asInt()).containsExactly(1, 3);
  }

  /**
   * A FileChannel closes itself for every writer when a thread writing to it is interrupted: the live run's verifier,
   * stopped (interrupted) by the cutover while it wrote its progress line, took the progress log down for the rest of
   * the run ("Cannot write the progress log ... (null)"), the cutover's lines lost.
   */
  @Test
  void anInterruptedWriterNeitherFailsNorClosesTheFileForTheOthers() throws Exception {
    Path file = dir.resolve("progress.jsonl");
    try (JsonLinesFile log = JsonLinesFile.open(file, "the progress log", false, WayOn.stated("do something"))) {
      log.append(Map.of("n", 1));
      Thread interrupted = new Thread(() -> {
        Thread.currentThread().interrupt(); // as the verifier is when the cutover stops it
        log.append(Map.of("n", 2));
        assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept for the caller").isTrue();
      });
      java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic
          .AtomicReference<>();
      interrupted.setUncaughtExceptionHandler((t, e) -> failed.set(e));
      interrupted.start();
      interrupted.join();
      assertThat(failed.get()).isNull();
      log.append(Map.of("n", 3));
    }
    assertThat(Files.readAllLines(file)).containsExactly("{\"n\":1}", "{\"n\":2}", "{\"n\":3}");
  }

  @Test
  void linesThatAreNotJsonObjectsAreSkippedWhenRead() throws Exception {
    Path file = Files.writeString(dir.resolve("mixed.jsonl"), "{\"a\":1}\nnot json\n[1,2]\n\n{\"a\":2}\n");
    assertThat(JsonLinesFile.read(file)).extracting(n -> n.get("a").asInt()).containsExactly(1, 2);
    assertThat(JsonLinesFile.read(dir.resolve("missing.jsonl"))).isEmpty();
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aFailedWriteIsALocalIoErrorNamingTheFileAndTheNextStep() {
    try (JsonLinesFile full = JsonLinesFile.open(Path.of("/dev/full"), "the test file", false,
        WayOn.stated("free some space"))) {
      assertThatThrownBy(() -> full.append(Map.of("k", List.of(1, 2))))
          .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
            assertThat(e.code()).isEqualTo(ExitCode.LOCAL_IO);
            assertThat(e.getMessage()).startsWith("Cannot write the test file /dev/full (").endsWith("; free some space.");
          });
    }
  }

  @Test
  void aFileThatCannotBeOpenedNamesWhatItIs() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("plain"), "x");
    assertThatThrownBy(() -> JsonLinesFile.open(notADirectory.resolve("x.jsonl"), "the checkpoint", true,
        WayOn.resume("fix it, then rerun with --resume")))
        .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
          assertThat(e.code()).isEqualTo(ExitCode.LOCAL_IO);
          assertThat(e.getMessage()).startsWith("Cannot open the checkpoint " + notADirectory.resolve("x.jsonl"))
              .endsWith("; fix it, then rerun with --resume.");
          // The way on travels as a value too, so a layer above can replace it without reading the words.
          assertThat(e.next()).isEqualTo(NextStep.RESUME);
        });
  }
}
