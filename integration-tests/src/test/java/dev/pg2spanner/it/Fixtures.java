package dev.pg2spanner.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Finds this module's test fixtures. */
final class Fixtures {

  private Fixtures() {}

  /**
   * The Pagila schema script, shipped with this module (with its licence) so the tests need nothing beside the
   * checkout: plain SQL, no rows (see {@code fixtures/pagila/README.md}).
   */
  static Path pagilaSchema() {
    java.net.URL url = Fixtures.class.getClassLoader().getResource("fixtures/pagila/pagila-schema.sql");
    if (url == null) {
      throw new IllegalStateException("test resource fixtures/pagila/pagila-schema.sql is not on the classpath");
    }
    try {
      return Path.of(url.toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + url, e);
    }
  }

  /** A classpath resource of this module as UTF-8 text, e.g. {@code resource("fixtures/catalog-zoo.sql")}. */
  static String resource(String path) {
    try (InputStream in = Fixtures.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("test resource " + path + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("reading test resource " + path, e);
    }
  }
}
