package dev.pg2spanner.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlywayMigratorTest {

  private static final String PATH = "projects/p/instances/inst/databases/db1";

  @Test
  void emulatorUrlConnectsWithoutCredentials(@TempDir Path dir) {
    FlywayMigrator m = new FlywayMigrator(SpannerTarget.parse(PATH, "127.0.0.1:9010"), dir);
    assertThat(m.jdbcUrl())
        .isEqualTo("jdbc:cloudspanner://127.0.0.1:9010/projects/p/instances/inst/databases/db1?autoConfigEmulator=true;"
            + "minSessions=0");
  }

  @Test
  void realSpannerUrlLeavesCredentialsToTheEnvironment(@TempDir Path dir) {
    FlywayMigrator m = new FlywayMigrator(SpannerTarget.parse(PATH, null), dir);
    assertThat(m.jdbcUrl()).isEqualTo("jdbc:cloudspanner:/projects/p/instances/inst/databases/db1?minSessions=0");
  }

  @Test
  void checksumIsFlywaysCrc32OfTheLinesWithoutLineBreaks() {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update("-- a".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    crc.update("".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    crc.update("CREATE TABLE t (id INT64) PRIMARY KEY (id);".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    int expected = (int) crc.getValue();
    assertThat(FlywayMigrator.checksum("-- a\n\nCREATE TABLE t (id INT64) PRIMARY KEY (id);\n")).isEqualTo(expected);
    assertThat(FlywayMigrator.checksum("\uFEFF-- a\r\n\r\nCREATE TABLE t (id INT64) PRIMARY KEY (id);"))
        .as("line endings and a BOM do not count").isEqualTo(expected);
  }

  @Test
  void aMissingDirectoryIsALocalIoErrorBeforeAnyConnection(@TempDir Path dir) {
    // The port is never dialled: the directory is checked first.
    FlywayMigrator m = new FlywayMigrator(SpannerTarget.parse(PATH, "127.0.0.1:1"), dir.resolve("nope"));
    assertThatThrownBy(m::applied).isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("nope does not exist")
        .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.LOCAL_IO);
    assertThatThrownBy(() -> m.migrateTo(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
