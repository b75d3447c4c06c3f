package dev.pg2spanner.it;

import dev.pg2spanner.cli.Pg2Spanner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine;

/** Runs the CLI in-process with captured output, the way a user would call it. */
record CliRunner(Map<String, String> env) {

  record Result(int exitCode, String out, String err) {}

  static CliRunner withEnv(Map<String, String> env) {
    return new CliRunner(new HashMap<>(env));
  }

  Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Pg2Spanner.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }
}
