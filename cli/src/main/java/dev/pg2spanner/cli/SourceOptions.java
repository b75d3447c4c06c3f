package dev.pg2spanner.cli;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.source.Secret;
import dev.pg2spanner.source.SourceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options that name the source database; a mixin shared by every command that reads it. */
public final class SourceOptions {

  @Option(names = "--source", required = true, paramLabel = "JDBC_URL",
      description = "The PostgreSQL database, e.g. jdbc:postgresql://db.internal:5432/app?user=migrator")
  String url;

  @Option(names = "--password-file", paramLabel = "FILE",
      description = "A file whose first line is the password (else PGPASSWORD, else the URL's password).")
  Path passwordFile;

  /** The parsed source; the password comes from the file, else {@code PGPASSWORD}, else the URL. */
  SourceConfig toConfig(Map<String, String> env) {
    Secret password = null;
    if (passwordFile != null) {
      password = Secret.of(readPassword(passwordFile));
    } else if (env.get("PGPASSWORD") != null) {
      password = Secret.of(env.get("PGPASSWORD"));
    }
    return new SourceConfig(url, password);
  }

  private static String readPassword(Path file) {
    try {
      String content = Files.readString(file, StandardCharsets.UTF_8);
      int nl = content.indexOf('\n');
      String line = nl < 0 ? content : content.substring(0, nl);
      return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot read --password-file " + file + " ("
          + e.getClass().getSimpleName() + "); check the path and that this user may read it", e);
    }
  }
}
