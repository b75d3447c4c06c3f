package dev.pg2spanner.cli;

import com.google.cloud.spanner.Spanner;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.InvalidValueException;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.local.EmulatorBinaries;
import dev.pg2spanner.local.LocalEmulator;
import dev.pg2spanner.local.LocalPostgres;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.EmulatorProvisioner;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code pg2spanner demo}: the whole job on this machine with no cloud account. It creates a sample database in
 * PostgreSQL, starts the installed Spanner emulator, and runs the same commands a user would, printing each.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs the whole job locally: creates the sample database " + DemoCommand.DATABASE
        + " in PostgreSQL (an embedded server when none answers), starts the installed Spanner emulator, then runs "
        + "check, plan, migrate and verify against it, printing each command as it goes. It replaces only a "
        + "database an earlier demo made."})
final class DemoCommand implements Callable<Integer> {

  static final String DATABASE = "pg2spanner_demo";
  /** The comment on a database the demo made: the only kind it ever drops. */
  static final String DATABASE_MARKER = "pg2spanner demo sample database (pg2spanner demo may drop and recreate it)";
  /** The file that marks an output directory the demo made. */
  static final String OUT_MARKER = ".pg2spanner-demo";
  private static final String TARGET = "projects/pg2spanner-demo/instances/demo-instance/databases/shop";

  @ParentCommand
  Pg2Spanner root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--server", paramLabel = "JDBC_URL",
      defaultValue = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres",
      description = "A PostgreSQL server where the demo may create the database " + DATABASE
          + "; the URL names any existing database to connect to first. When nothing answers there, the demo starts "
          + "an embedded PostgreSQL instead (default: ${DEFAULT-VALUE}).")
  String server;

  @Option(names = "--embedded", description = "Use an embedded PostgreSQL (started from the jar's server binaries, "
      + "deleted at the end) even when --server answers.")
  boolean embedded;

  @Option(names = "--database", paramLabel = "NAME", defaultValue = DATABASE,
      description = "The sample database to create; an existing one is replaced only when an earlier demo made it "
          + "(default: ${DEFAULT-VALUE}).")
  String database;

  @Option(names = "--out", paramLabel = "DIR", defaultValue = "demo-output",
      description = "Where the plan and the reports go (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--emulator", paramLabel = "HOST:PORT",
      description = "A running Spanner emulator (default: SPANNER_EMULATOR_HOST, else the installed one is started).")
  String emulator;

  @Option(names = "--dialect", paramLabel = "DIALECT", defaultValue = "googlesql",
      description = "The Spanner database's dialect: googlesql or postgresql (the database is then shop-pg; default: "
          + "${DEFAULT-VALUE}).")
  String dialect;

  @Override
  public Integer call() throws Exception {
    PrintWriter w = spec.commandLine().getOut();
    SourceConfig serverConfig = new SourceConfig(server, null);
    claimOutputDirectory(out);
    try (LocalPostgres local = embedded || !answers(serverConfig) ? startEmbedded(w, serverConfig) : null) {
      if (local != null) {
        serverConfig = new SourceConfig(local.jdbcUrl("postgres"), null);
      }
      return run(w, serverConfig, local != null);
    }
  }

  private int run(PrintWriter w, SourceConfig serverConfig, boolean embeddedServer) throws Exception {
    SourceConfig demo = serverConfig.withDatabase(database);
    w.println("== 1. Sample database " + database + " on " + serverConfig.endpoint().replaceAll("/.*$", "")
        + (embeddedServer ? " (embedded PostgreSQL, deleted at the end)" : ""));
    createSampleDatabase(serverConfig, demo, database);
    w.println("   created: 9 tables (bigserial, identity, timestamp-first and shared-sequence keys, a random-UUID key,");
    w.println("   a child that can be interleaved, a table without a primary key), about 100,000 rows");
    w.flush();

    String host = emulator != null ? emulator : root.env().get("SPANNER_EMULATOR_HOST");
    try (LocalEmulator started = host == null ? startEmulator() : null) {
      String emulatorHost = started != null ? started.hostPort() : host;
      w.println("== 2. Spanner emulator at " + emulatorHost
          + (started != null ? " (started from the Cloud SDK; stopped at the end)" : ""));
      dev.pg2spanner.spanner.SpannerDialect targetDialect;
      try {
        targetDialect = dev.pg2spanner.spanner.SpannerDialect.named(dialect);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--dialect " + e.getMessage());
      }
      String targetPath = targetDialect.isPostgres() ? TARGET + "-pg" : TARGET;
      SpannerTarget target = SpannerTarget.parse(targetPath, emulatorHost);
      try (Spanner spanner = SpannerConnector.open(target)) {
        if (started == null) {
          // An emulator that outlives the demo may hold the demo's own database from an earlier run (its project and
          // instance are the demo's): replace it, or migrate would refuse a target that already holds rows.
          dropEarlierDemoDatabase(spanner, target, w);
        }
        EmulatorProvisioner.ensureExists(spanner, target, targetDialect.isPostgres()
            ? com.google.cloud.spanner.Dialect.POSTGRESQL : com.google.cloud.spanner.Dialect.GOOGLE_STANDARD_SQL);
      }
      w.flush();

      // The demo starts from scratch each time: an earlier run's checkpoint would otherwise ask for --resume.
      deleteRecursively(out.resolve("run"));
      List<String> sourceArgs = List.of("--source", demo.jdbcUrl());
      List<String> targetArgs = List.of("--target", targetPath, "--emulator", emulatorHost);
      Path plan = out.resolve("plan.yaml");
      List<List<String>> steps = List.of(
          concat(List.of("check"), sourceArgs, targetArgs),
          concat(List.of("plan"), sourceArgs, List.of("--out", out.toString(), "--low-write-threshold", "0",
              "--replace", "--dialect", targetDialect.isPostgres() ? "postgresql" : "googlesql")),
          concat(List.of("migrate", "--plan", plan.toString()), sourceArgs, targetArgs),
          concat(List.of("verify", "--plan", plan.toString()), sourceArgs, targetArgs));
      int step = 3;
      for (List<String> args : steps) {
        w.println("== " + step++ + ". pg2spanner " + SourceConfig.redact(String.join(" ", args)));
        w.flush();
        CommandLine cl = Pg2Spanner.commandLine(root.env());
        cl.setOut(spec.commandLine().getOut());
        cl.setErr(spec.commandLine().getErr());
        int code = cl.execute(args.toArray(String[]::new));
        if (code != 0) {
          w.println("demo stopped: 'pg2spanner " + args.get(0) + "' exited with " + code + " (see above)");
          return code;
        }
      }
      w.println();
      w.println("Demo complete. Review " + out.resolve("report.md") + " (or report.html, in a browser) for the key "
          + "advice; what the run did is in " + out.resolve("run").resolve(dev.pg2spanner.rundir.RunFiles.SUMMARY)
          + ".");
      w.flush();
      return 0;
    }
  }

  private static void dropEarlierDemoDatabase(Spanner spanner, SpannerTarget target, PrintWriter w) {
    try {
      spanner.getDatabaseAdminClient().getDatabase(target.instance(), target.database());
    } catch (com.google.cloud.spanner.SpannerException e) {
      return; // none yet (or no instance): nothing to replace
    }
    spanner.getDatabaseAdminClient().dropDatabase(target.instance(), target.database());
    w.println("   replaced the demo's database " + target.path() + " from an earlier run on this emulator");
  }

  private LocalEmulator startEmulator() throws IOException {
    Optional<EmulatorBinaries> binaries = EmulatorBinaries.locate(root.env());
    if (binaries.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.ENVIRONMENT,
          "the demo needs the Spanner emulator and none is installed: " + EmulatorBinaries.installHint());
    }
    return LocalEmulator.start(binaries.get());
  }

  /** Does a PostgreSQL server accept TCP connections where --server points (within two seconds)? */
  private static boolean answers(SourceConfig config) {
    java.util.Properties props = org.postgresql.Driver.parseURL(config.jdbcUrl(), new java.util.Properties());
    String host = props.getProperty("PGHOST", "localhost").split(",")[0];
    int port = Integer.parseInt(props.getProperty("PGPORT", "5432").split(",")[0]);
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress(host, port), 2000);
      return true;
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
  }

  private LocalPostgres startEmbedded(PrintWriter w, SourceConfig wanted) throws IOException {
    w.println("== 0. " + (embedded ? "--embedded" : "No PostgreSQL answers at "
        + wanted.endpoint().replaceAll("/.*$", "")) + ": starting an embedded PostgreSQL 15 from the jar's server "
        + "binaries (the first start unpacks them, a few seconds)");
    w.flush();
    try {
      return LocalPostgres.start(java.util.Map.of());
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.ENVIRONMENT, "no PostgreSQL answers at " + wanted.endpoint()
          + " and the embedded one did not start (" + e.getMessage() + "); start PostgreSQL and pass --server", e);
    }
  }

  /**
   * The demo deletes its earlier run directory in --out: refuse a non-empty directory an earlier demo did not
   * make, and mark the ones it makes.
   */
  private static void claimOutputDirectory(Path out) throws IOException {
    Path marker = out.resolve(OUT_MARKER);
    if (java.nio.file.Files.exists(out) && !java.nio.file.Files.isDirectory(out)) {
      throw new InvalidValueException("--out " + out + " is a file; the demo writes a directory of outputs there, so "
          + "choose a new or empty directory");
    }
    if (java.nio.file.Files.isDirectory(out) && !java.nio.file.Files.exists(marker)) {
      try (var entries = java.nio.file.Files.list(out)) {
        if (entries.findAny().isPresent()) {
          throw new InvalidValueException("--out " + out + " already holds files an earlier demo did not write; the "
              + "demo replaces what is in its output directory, so choose an empty or new --out");
        }
      }
    }
    try {
      java.nio.file.Files.createDirectories(out);
      java.nio.file.Files.writeString(marker, "pg2spanner demo output; the demo may replace what is here\n");
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write the demo's output directory --out " + out + " ("
          + e.getClass().getSimpleName() + ": " + e.getMessage() + "); choose a directory this user can write", e);
    }
  }

  private static void createSampleDatabase(SourceConfig serverConfig, SourceConfig demo, String database)
      throws SQLException, IOException {
    try (Connection c = new SourceConnector(serverConfig).open(); Statement s = c.createStatement()) {
      String existing = null;
      boolean exists = false;
      try (java.sql.PreparedStatement q = c.prepareStatement(
          "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = ?")) {
        q.setString(1, database);
        try (java.sql.ResultSet rs = q.executeQuery()) {
          if (rs.next()) {
            exists = true;
            existing = rs.getString(1);
          }
        }
      }
      if (exists && !DATABASE_MARKER.equals(existing)) {
        throw new InvalidValueException("database " + database + " already exists on " + serverConfig.endpoint()
            .replaceAll("/.*$", "") + " and was not made by the demo, so the demo leaves it alone; choose another "
            + "name with --database NAME");
      }
      if (exists) {
        s.execute("DROP DATABASE " + PgNames.quote(database) + " WITH (FORCE)");
      }
      s.execute("CREATE DATABASE " + PgNames.quote(database) + " TEMPLATE template0 ENCODING 'UTF8'");
      s.execute("COMMENT ON DATABASE " + PgNames.quote(database) + " IS " + PgNames.literal(DATABASE_MARKER));
    }
    String script;
    try (InputStream in = DemoCommand.class.getResourceAsStream("/demo/shop.sql")) {
      if (in == null) {
        throw new IllegalStateException("demo/shop.sql is missing from the jar");
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection c = new SourceConnector(demo).open(); Statement s = c.createStatement()) {
      s.execute(script);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!java.nio.file.Files.exists(dir)) {
      return;
    }
    try (var paths = java.nio.file.Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(p);
      }
    }
  }

  @SafeVarargs
  private static List<String> concat(List<String>... parts) {
    List<String> all = new ArrayList<>();
    for (List<String> p : parts) {
      all.addAll(p);
    }
    return all;
  }
}
