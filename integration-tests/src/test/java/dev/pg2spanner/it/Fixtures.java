package dev.pg2spanner.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Finds the test fixtures: the shared ones beside the checkout and this module's own resources. */
final class Fixtures {

  /** Set by failsafe (see this module's pom) to {@code <checkout>/../shared}. */
  static final String SHARED_PROPERTY = "pg2spanner.shared";

  private Fixtures() {}

  /**
   * The shared fixtures directory: the {@code pg2spanner.shared} system property, else {@code ../../shared} relative
   * to the working directory (an IDE running from the module directory).
   *
   * @throws IllegalStateException naming every place looked at, when none holds a {@code fixtures} directory
   */
  static Path sharedDir() {
    String property = System.getProperty(SHARED_PROPERTY);
    List<Path> candidates = property == null || property.isBlank()
        ? List.of(Path.of("../../shared"))
        : List.of(Path.of(property), Path.of("../../shared"));
    for (Path candidate : candidates) {
      if (Files.isDirectory(candidate.resolve("fixtures"))) {
        return candidate.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException("the shared fixtures directory was not found at "
        + candidates.stream().map(p -> p.toAbsolutePath().normalize().toString()).toList()
        + "; run the tests through Maven (failsafe sets -D" + SHARED_PROPERTY + ") or pass -D" + SHARED_PROPERTY
        + "=/path/to/shared");
  }

  /** The Pagila schema script (see {@code fixtures/pagila/README.md}: plain SQL, no rows). */
  static Path pagilaSchema() {
    Path script = sharedDir().resolve("fixtures/pagila/pagila-schema.sql");
    if (!Files.isRegularFile(script)) {
      throw new IllegalStateException("the Pagila schema is missing at " + script);
    }
    return script;
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
