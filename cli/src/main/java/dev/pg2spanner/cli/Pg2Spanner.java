package dev.pg2spanner.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.pg2spanner.error.ExitCode;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code pg2spanner} command: a thin shell over the modules. */
@Command(
    name = "pg2spanner",
    mixinStandardHelpOptions = true,
    versionProvider = Pg2Spanner.Version.class,
    description = {
        "Migrates a live PostgreSQL database to Cloud Spanner, with keys that do not hotspot.",
        "",
        "Typical flow: check -> plan (review plan.yaml and report.md) -> migrate -> verify.",
        "Passwords come from PGPASSWORD, --password-file or the JDBC URL; never put one on the command line."},
    subcommands = {
        CheckCommand.class,
        PlanCommand.class,
        MigrateCommand.class,
        VerifyCommand.class,
        CutoverCommand.class,
        FallbackCommand.class,
        StatusCommand.class,
        DemoCommand.class,
        CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    sortOptions = false)
public final class Pg2Spanner implements Callable<Integer> {

  /** Loggers of the libraries whose warnings are shown only with -v. */
  private static final List<String> LIBRARY_LOGGERS = List.of("io.grpc", "io.netty", "com.google", "org.flywaydb",
      "io.opencensus", "io.opentelemetry", "org.apache.beam", "org.apache.flink");

  /** Exit code of a bug: an unexpected exception. */
  public static final int EXIT_INTERNAL = 1;
  /** Exit code of a usage error (picocli's own). */
  public static final int EXIT_USAGE = 2;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = {"-v", "--verbose"}, scope = CommandLine.ScopeType.INHERIT,
      description = "More diagnostics on stderr (-v: info, -vv: debug).")
  boolean[] verbose = new boolean[0];

  @Option(names = "--stacktrace", scope = CommandLine.ScopeType.INHERIT,
      description = "Print the stack trace of a failure (for bug reports).")
  boolean stacktrace;

  private final Map<String, String> env;

  /** @param env the process environment, read here at the edge and nowhere below */
  public Pg2Spanner(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  public static void main(String[] args) {
    System.exit(commandLine(System.getenv()).execute(args));
  }

  /** The configured command line; tests call {@code execute} on it with their own out/err writers. */
  public static CommandLine commandLine(Map<String, String> env) {
    Pg2Spanner root = new Pg2Spanner(env);
    CommandLine cl = new CommandLine(root);
    cl.setExecutionStrategy(root::executionStrategy);
    cl.setExecutionExceptionHandler(new ErrorHandler());
    cl.setParameterExceptionHandler(new UsageErrorHandler());
    Map<String, String> codes = exitCodeList();
    cl.getCommandSpec().usageMessage().exitCodeList(codes);
    for (CommandLine sub : cl.getSubcommands().values()) {
      sub.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(codes);
    }
    return cl;
  }

  /** The documented exit codes, from {@link ExitCode} so that code and documentation cannot drift. */
  static Map<String, String> exitCodeList() {
    Map<String, String> codes = new LinkedHashMap<>();
    codes.put("0", "Success.");
    codes.put(String.valueOf(EXIT_INTERNAL), "Internal error (a bug; rerun with --stacktrace and report it).");
    codes.put(String.valueOf(EXIT_USAGE), "Usage error: unknown or missing option or value.");
    for (ExitCode code : ExitCode.values()) {
      codes.put(String.valueOf(code.exitCode()), capitalise(code.summary()) + ".");
    }
    return codes;
  }

  @Override
  public Integer call() {
    // `pg2spanner` alone names no command: show what there is, on stderr, and fail as any usage error does.
    CommandLine cl = spec.commandLine();
    cl.getErr().println("pg2spanner: no command given; choose one of the commands below (e.g. pg2spanner demo).");
    cl.usage(cl.getErr());
    return EXIT_USAGE;
  }

  Map<String, String> env() {
    return env;
  }

  boolean stacktrace() {
    return stacktrace;
  }

  private int executionStrategy(CommandLine.ParseResult parseResult) {
    configureLogging(verbose.length);
    return new CommandLine.RunLast().execute(parseResult);
  }

  private static void configureLogging(int verbosity) {
    // gRPC and the Spanner client log through java.util.logging: route it through SLF4J so -v controls all.
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
    if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
      root.setLevel(verbosity >= 2 ? Level.DEBUG : verbosity == 1 ? Level.INFO : Level.WARN);
      java.util.logging.Logger.getLogger("").setLevel(verbosity >= 2 ? java.util.logging.Level.FINE
          : verbosity == 1 ? java.util.logging.Level.INFO : java.util.logging.Level.WARNING);
      // Without -v the libraries' warnings (gRPC retries, pool leaks, Beam temp files) stay off stderr: each
      // failure pg2spanner reports is one sentence of its own. -v shows them again.
      for (String library : LIBRARY_LOGGERS) {
        if (LoggerFactory.getLogger(library) instanceof Logger logger) {
          logger.setLevel(verbosity == 0 ? Level.ERROR : null);
        }
      }
    }
  }

  private static String capitalise(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  /** Reads the version Maven wrote into the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws Exception {
      Properties p = new Properties();
      try (InputStream in = Pg2Spanner.class.getResourceAsStream("/pg2spanner-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {"pg2spanner " + p.getProperty("version", "unknown"),
          "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
    }
  }

  /** Usage errors: a short message and the synopsis, exit 2, never a stack trace. */
  static final class UsageErrorHandler implements CommandLine.IParameterExceptionHandler {
    @Override
    public int handleParseException(CommandLine.ParameterException ex, String[] args) {
      CommandLine cl = ex.getCommandLine();
      PrintWriter err = cl.getErr();
      err.println("pg2spanner: " + ex.getMessage());
      CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
      err.print(cl.getHelp().fullSynopsis());
      err.printf("Run '%s --help' for the options.%n", cl.getCommandSpec().qualifiedName());
      err.flush();
      return EXIT_USAGE;
    }
  }
}
