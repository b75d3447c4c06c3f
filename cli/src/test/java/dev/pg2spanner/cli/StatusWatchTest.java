package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StatusWatchTest {

  @Test
  void watchRedrawsTheStatusOnAClearedScreenUntilStopped(@TempDir Path run) throws Exception {
    Files.writeString(run.resolve("progress.jsonl"), "{\"type\":\"progress\",\"at\":\"2026-11-27T10:00:00Z\","
        + "\"rows\":1234,\"tables\":[]}\n");
    StringWriter out = new StringWriter();
    CommandLine cl = Pg2Spanner.commandLine(Map.of());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(new StringWriter(), true));
    AtomicInteger exit = new AtomicInteger(-1);
    Thread watching = new Thread(() -> exit.set(cl.execute("status", "--run-dir", run.toString(), "--watch",
        "--interval", "1")));
    watching.start();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (count(out.toString(), StatusCommand.CLEAR) < 2 && System.nanoTime() < deadline) {
      // The second refresh shows a line the run added after the first.
      if (out.toString().contains(StatusCommand.CLEAR)) {
        Files.writeString(run.resolve("progress.jsonl"), "{\"type\":\"progress\",\"at\":\"2026-11-27T10:00:05Z\","
            + "\"rows\":5678,\"tables\":[]}\n", java.nio.file.StandardOpenOption.APPEND);
      }
      Thread.sleep(100);
    }
    watching.interrupt();
    watching.join(10_000);
    String text = out.toString();
    assertThat(count(text, StatusCommand.CLEAR)).isGreaterThanOrEqualTo(2);
    String first = text.substring(0, text.indexOf(StatusCommand.CLEAR, 1));
    String last = text.substring(text.lastIndexOf(StatusCommand.CLEAR));
    assertThat(first).contains("1234 copied");
    assertThat(last).contains("5678 copied").contains("Every 1 s").contains("Ctrl-C to stop watching");
    assertThat(exit.get()).isEqualTo(130);
  }

  @Test
  void anIntervalBelowOneSecondIsAUsageError(@TempDir Path run) {
    CommandLine cl = Pg2Spanner.commandLine(Map.of());
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(new StringWriter(), true));
    cl.setErr(new PrintWriter(err, true));
    assertThat(cl.execute("status", "--run-dir", run.toString(), "--watch", "--interval", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--interval must be at least 1 second");
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }
}
