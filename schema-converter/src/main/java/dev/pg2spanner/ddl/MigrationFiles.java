package dev.pg2spanner.ddl;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Writes migrations as Flyway SQL files ({@code V1__tables.sql} ...) that Flyway reads with "filesystem:DIR". */
public final class MigrationFiles {

  private MigrationFiles() {}

  /**
   * Writes each migration's {@link Migration#script()} to {@code directory/fileName()} in UTF-8, creating the
   * directory when needed and replacing files of the same name (other files are left alone).
   *
   * @return the written files, in the order of {@code migrations}
   * @throws Pg2SpannerException LOCAL_IO when the directory or a file cannot be written
   */
  public static List<Path> write(List<Migration> migrations, Path directory) {
    List<Path> written = new ArrayList<>(migrations.size());
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot create the migrations directory " + directory
          + " (" + e + "); choose a writable --out directory.", e);
    }
    for (Migration m : migrations) {
      Path file = directory.resolve(m.fileName());
      try {
        Files.writeString(file, m.script(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write the migration file " + file + " (" + e
            + "); check the directory's permissions and free space.", e);
      }
      written.add(file);
    }
    return List.copyOf(written);
  }
}
