package dev.pg2spanner.it;

import dev.pg2spanner.testing.TestEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium, headless, for the report's browser test: loads a local page and returns the DOM after its
 * scripts ran ({@code --dump-dom}) with what the browser logged, or writes a screenshot. Every run has a fresh
 * profile, is bounded in time and is killed (with its children) if it overstays. The flags keep it off the network
 * (this machine's network is closed, and a report must not fetch anything anyway).
 */
final class HeadlessChromium {

  /** Where Debian's package installs it; {@code CHROMIUM} overrides. */
  private static final List<String> CANDIDATES = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser",
      "/usr/bin/google-chrome");
  private static final long TIMEOUT_S = 90;

  private final Path binary;

  private HeadlessChromium(Path binary) {
    this.binary = binary;
  }

  /** The installed browser; skips the test (fails it under CI) with how to install one when there is none. */
  static HeadlessChromium require() {
    return find().orElseThrow(() -> TestEnvironment.unavailable("Chromium", "install Debian's package with "
        + "`apt-get install chromium` (.ci/run does), or point CHROMIUM at a Chromium or Chrome binary"));
  }

  static Optional<HeadlessChromium> find() {
    String env = System.getenv("CHROMIUM");
    List<String> candidates = new ArrayList<>();
    if (env != null && !env.isBlank()) {
      candidates.add(env);
    }
    candidates.addAll(CANDIDATES);
    return candidates.stream().map(Path::of).filter(Files::isExecutable).findFirst().map(HeadlessChromium::new);
  }

  /** What one page load gave: the serialised DOM after load, and Chromium's log (console messages included). */
  record Page(String dom, String log) {}

  /** Loads {@code url} and returns the DOM once the page has loaded and its scripts have run. */
  Page dumpDom(String url, Path work) throws IOException, InterruptedException {
    Path log = work.resolve("chromium-dom.log");
    Path dom = work.resolve("dom.html");
    // The virtual time budget lets timers and late events run before the DOM is dumped (the report's selftest
    // writes its results one turn after the load event).
    run(work, log, dom, "--virtual-time-budget=5000", "--dump-dom", url);
    return new Page(Files.readString(dom, StandardCharsets.UTF_8), Files.readString(log, StandardCharsets.UTF_8));
  }

  /** A PNG of {@code url} in a window of the given size. */
  void screenshot(String url, Path png, int width, int height, Path work) throws IOException, InterruptedException {
    Files.deleteIfExists(png);
    run(work, work.resolve("chromium-screenshot.log"), null, "--screenshot=" + png.toAbsolutePath(),
        "--window-size=" + width + "," + height, "--hide-scrollbars", url);
    if (!Files.isRegularFile(png) || Files.size(png) == 0) {
      throw new AssertionError("Chromium wrote no screenshot to " + png + "; its log: "
          + Files.readString(work.resolve("chromium-screenshot.log")));
    }
  }

  private void run(Path work, Path log, Path stdout, String... args) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory(work, "chromium-profile-");
    List<String> command = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-extensions", "--enable-logging=stderr", "--log-level=0",
        "--user-data-dir=" + profile));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(log.toFile());
    if (stdout != null) {
      pb.redirectOutput(stdout.toFile());
    } else {
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    }
    Process p = pb.start();
    try {
      if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
        throw new AssertionError("Chromium did not finish within " + TIMEOUT_S + " s: " + String.join(" ", command));
      }
      if (p.exitValue() != 0) {
        throw new AssertionError("Chromium exited with " + p.exitValue() + ": " + Files.readString(log));
      }
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }
}
