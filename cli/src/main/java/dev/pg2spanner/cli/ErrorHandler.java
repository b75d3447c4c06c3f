package dev.pg2spanner.cli;

import dev.pg2spanner.error.ErrorText;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.InvalidValueException;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Expected failures print their one-sentence message and exit with their code; anything else is a bug: exit 1
 * with a short line, and the stack trace only with {@code --stacktrace}.
 */
final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {

  @Override
  public int handleExecutionException(Exception ex, CommandLine cl, CommandLine.ParseResult parseResult) {
    PrintWriter err = cl.getErr();
    boolean trace = root(cl).stacktrace();
    if (ex instanceof InvalidValueException v) {
      // A value no environment could make right: a usage error, like an unknown option.
      err.println("pg2spanner: " + v.getMessage() + " (see pg2spanner " + cl.getCommandName() + " --help)");
      err.flush();
      return Pg2Spanner.EXIT_USAGE;
    }
    if (ex instanceof Pg2SpannerException p) {
      // Every command's failure is printed here, so this is the one place that strips the transport's wrappers.
      err.println("pg2spanner: " + ErrorText.clean(p.getMessage()));
      if (trace) {
        p.printStackTrace(err);
      }
      err.flush();
      return p.code().exitCode();
    }
    java.sql.SQLException source = postgresFailure(ex);
    if (source != null) {
      // The source's own operation (a lock, a cancelled statement, a lost connection) is never a bug: a call site
      // that did not name its table still gets the source's exit code and what PostgreSQL said.
      err.println("pg2spanner: the source PostgreSQL database failed: " + firstLine(source.getMessage())
          + (source.getSQLState() == null ? "" : " (SQLSTATE " + source.getSQLState() + ")") + "; check the source "
          + "(pg2spanner check --source ...), then run the command again");
      if (trace) {
        ex.printStackTrace(err);
      }
      err.flush();
      return ExitCode.SOURCE_CONNECTION.exitCode();
    }
    err.println("pg2spanner: internal error: " + ex + (trace ? "" : " (rerun with --stacktrace for details)"));
    if (trace) {
      ex.printStackTrace(err);
    }
    err.flush();
    return Pg2Spanner.EXIT_INTERNAL;
  }

  /** The PostgreSQL driver's exception in {@code ex}'s cause chain, or null. */
  static java.sql.SQLException postgresFailure(Throwable ex) {
    for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof org.postgresql.util.PSQLException p) {
        return p;
      }
    }
    return null;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }

  private static Pg2Spanner root(CommandLine cl) {
    CommandLine c = cl;
    while (c.getParent() != null) {
      c = c.getParent();
    }
    return (Pg2Spanner) c.getCommand();
  }
}
