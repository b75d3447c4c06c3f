package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the source password comes from (the local test server trusts every login, so only a unit test can tell). */
class SourceOptionsTest {

  private static SourceOptions options(Path passwordFile) {
    SourceOptions o = new SourceOptions();
    o.url = "jdbc:postgresql://db.internal:5432/app?user=migrator";
    o.passwordFile = passwordFile;
    return o;
  }

  @Test
  void thePasswordFilesFirstLineWinsOverPgpasswordWithoutItsLineEnd(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("pw"), "s3cret\r\nsecond line\n");
    assertThat(options(file).toConfig(Map.of("PGPASSWORD", "other")).password().reveal()).isEqualTo("s3cret");
    Path bare = Files.writeString(dir.resolve("bare"), "no-newline");
    assertThat(options(bare).toConfig(Map.of()).password().reveal()).isEqualTo("no-newline");
  }

  @Test
  void withoutAFilePgpasswordIsUsedAndWithNeitherThereIsNone() {
    assertThat(options(null).toConfig(Map.of("PGPASSWORD", "from-env")).password().reveal()).isEqualTo("from-env");
    assertThat(options(null).toConfig(Map.of()).password()).isNull();
  }

  @Test
  void anUnreadablePasswordFileIsALocalIoErrorNamingIt(@TempDir Path dir) {
    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> options(missing).toConfig(Map.of()))
        .isInstanceOfSatisfying(Pg2SpannerException.class, e -> assertThat(e.code()).isEqualTo(ExitCode.LOCAL_IO))
        .hasMessageContaining(missing.toString());
  }
}
