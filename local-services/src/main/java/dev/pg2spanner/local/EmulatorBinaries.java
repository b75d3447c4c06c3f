package dev.pg2spanner.local;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Locates the Cloud Spanner emulator that ships with the Google Cloud SDK
 * ({@code <sdk>/bin/cloud_spanner_emulator/emulator_main}).
 *
 * <p>We start {@code emulator_main} (the gRPC server) directly rather than {@code gateway_main}: the gateway
 * only adds a REST proxy we do not use, and stopping the gateway alone orphans {@code emulator_main}.
 *
 * <p>Search order, cheapest first: {@code SPANNER_EMULATOR_BINARY}; {@code CLOUDSDK_ROOT_DIR}; the
 * {@code PATH} (a directory holding {@code emulator_main} or {@code gateway_main}, or {@code gcloud}'s SDK);
 * well-known SDK install directories; finally {@code gcloud info}, which is slow (about a second).
 *
 * @param emulatorMain the {@code emulator_main} executable, never null
 */
public record EmulatorBinaries(Path emulatorMain) {

  private static final String RELATIVE = "bin/cloud_spanner_emulator/emulator_main";

  /** Well-known places the Cloud SDK is installed by Debian/RPM packages, snap, and the interactive installer. */
  private static final List<String> KNOWN_SDK_ROOTS = List.of(
      "/usr/lib/google-cloud-sdk", "/usr/share/google-cloud-sdk", "/opt/google-cloud-sdk",
      "/snap/google-cloud-sdk/current", "/usr/local/google-cloud-sdk");

  public EmulatorBinaries {
    if (emulatorMain == null) {
      throw new IllegalArgumentException("emulatorMain must not be null");
    }
  }

  /**
   * Finds the emulator.
   *
   * @param env the process environment, passed in so that callers decide what is read (never null)
   * @return the binaries, or empty when no installed emulator was found
   */
  public static Optional<EmulatorBinaries> locate(Map<String, String> env) {
    Set<Path> candidates = new LinkedHashSet<>();
    String explicit = env.get("SPANNER_EMULATOR_BINARY");
    if (explicit != null && !explicit.isBlank()) {
      candidates.add(Path.of(explicit));
    }
    String sdkRoot = env.get("CLOUDSDK_ROOT_DIR");
    if (sdkRoot != null && !sdkRoot.isBlank()) {
      candidates.add(Path.of(sdkRoot).resolve(RELATIVE));
    }
    for (Path dir : pathDirectories(env)) {
      candidates.add(dir.resolve("emulator_main"));
      candidates.add(dir.resolve("cloud_spanner_emulator/emulator_main"));
      Path gcloud = dir.resolve("gcloud");
      if (Files.isExecutable(gcloud)) {
        // <sdk>/bin/gcloud, possibly through a symlink such as /usr/bin/gcloud.
        Path real = realPath(gcloud);
        if (real.getParent() != null && real.getParent().getParent() != null) {
          candidates.add(real.getParent().getParent().resolve(RELATIVE));
        }
      }
    }
    String home = env.get("HOME");
    if (home != null) {
      candidates.add(Path.of(home, "google-cloud-sdk").resolve(RELATIVE));
    }
    for (String root : KNOWN_SDK_ROOTS) {
      candidates.add(Path.of(root).resolve(RELATIVE));
    }
    for (Path candidate : candidates) {
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(new EmulatorBinaries(candidate));
      }
    }
    return sdkRootFromGcloud().map(root -> root.resolve(RELATIVE))
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
        .map(EmulatorBinaries::new);
  }

  /** What a user should do when {@link #locate} finds nothing. */
  public static String installHint() {
    return "install the Cloud Spanner emulator (`gcloud components install cloud-spanner-emulator`, or the "
        + "Debian package google-cloud-cli-spanner-emulator), set SPANNER_EMULATOR_BINARY to its emulator_main, "
        + "or start one yourself and set SPANNER_EMULATOR_HOST=host:port";
  }

  private static List<Path> pathDirectories(Map<String, String> env) {
    String path = env.getOrDefault("PATH", "");
    List<Path> dirs = new ArrayList<>();
    for (String part : path.split(java.io.File.pathSeparator)) {
      if (!part.isBlank()) {
        dirs.add(Path.of(part));
      }
    }
    return dirs;
  }

  private static Path realPath(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }

  private static Optional<Path> sdkRootFromGcloud() {
    try {
      Process process = new ProcessBuilder("gcloud", "info", "--format=value(installation.sdk_root)")
          .redirectErrorStream(false)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      String out;
      try (InputStream in = process.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return Optional.empty();
      }
      return process.exitValue() == 0 && !out.isEmpty() ? Optional.of(Path.of(out)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
