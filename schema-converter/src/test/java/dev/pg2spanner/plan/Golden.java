package dev.pg2spanner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden-file comparison. Run with {@code -Dgolden.update=true} to rewrite the files after an intended change,
 * then review the diff before committing it.
 */
public final class Golden {

  private Golden() {}

  /** Compares {@code actual} with {@code src/test/resources/<relative>} (paths relative to the module). */
  public static void assertMatches(String relative, String actual) throws IOException {
    Path file = Path.of("src", "test", "resources").resolve(relative);
    if (Boolean.getBoolean("golden.update")) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, actual, StandardCharsets.UTF_8);
    }
    assertThat(file).as("golden file %s (create or refresh it with -Dgolden.update=true)", file).exists();
    assertThat(actual).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
  }
}
