package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the migrate ITs share: planning a fixture, the migrate command line, and reading both sides back. */
final class MigrateSupport {

  private static final ObjectMapper JSON = new ObjectMapper();

  private MigrateSupport() {}

  /** Plans {@code pg} into {@code out} and returns the plan file; fails the test when plan fails. */
  static Path plan(PgTestDatabase pg, Path out) {
    CliRunner.Result r = PlanCommandIT.plan(pg, out);
    // Error findings (exit 14) still write every file: tests that plan such sources go on to migrate them.
    assertThat(r.exitCode()).as(r.out() + r.err()).isIn(0, ExitCode.PLAN_HAS_ERRORS.exitCode());
    assertThat(r.exitCode() == 0).as(r.out()).isEqualTo(r.out().contains(" 0 error(s)"));
    return out.resolve("plan.yaml");
  }

  /** {@code migrate --plan ... --source ... --target ... --emulator ... --run-dir ...} followed by {@code extra}. */
  static List<String> migrateArgs(Path plan, PgTestDatabase pg, String targetPath, String emulatorHost,
      Path runDir, String... extra) {
    List<String> args = new ArrayList<>(List.of("migrate", "--plan", plan.toString(), "--source", pg.jdbcUrl(),
        "--target", targetPath, "--emulator", emulatorHost, "--run-dir", runDir.toString()));
    args.addAll(List.of(extra));
    return args;
  }

  static CliRunner.Result cli(List<String> args) {
    return CliRunner.withEnv(Map.of()).run(args.toArray(String[]::new));
  }

  /** The single INT64 value of a Spanner query (e.g. a COUNT). */
  static long spannerLong(DatabaseClient client, String sql) {
    try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
      assertThat(rs.next()).as("a row from: " + sql).isTrue();
      return rs.getLong(0);
    }
  }

  static long spannerLong(SpannerTestDatabase spanner, String sql) {
    return spannerLong(spanner.client(), sql);
  }

  static long pgLong(PgTestDatabase pg, String sql) throws Exception {
    return ((Number) pg.queryValue(sql)).longValue();
  }

  /** Each line of a JSON-lines file, parsed; an absent file has none. */
  static List<JsonNode> jsonLines(Path file) throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    if (!Files.exists(file)) {
      return nodes;
    }
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        nodes.add(JSON.readTree(line));
      }
    }
    return nodes;
  }

  /** Complete lines of a file another process is appending to (a torn last line is not counted). */
  static long completeLines(Path file) throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    return Files.readString(file).chars().filter(ch -> ch == '\n').count();
  }

  /**
   * Rewrites one column of {@code table} in plan.yaml: its {@code targetType} and {@code conversion} lines, the way
   * a person edits the plan. Fails when the column is not found, so a changed plan layout cannot make the edit a
   * silent no-op.
   */
  static void editColumn(Path planFile, String table, String column, String targetType, String conversion)
      throws IOException {
    String yaml = Files.readString(planFile);
    int tableAt = yaml.indexOf("  - source: " + table + "\n");
    assertThat(tableAt).as("table " + table + " in plan.yaml").isNotNegative();
    Pattern block = Pattern.compile("(      - source: \"?" + Pattern.quote(column) + "\"?\n(?:        .*\n)*?)"
        + "        targetType: .*\n((?:        .*\n)*?)        conversion: .*\n");
    Matcher m = block.matcher(yaml);
    assertThat(m.find(tableAt)).as("column " + column + " of " + table + " in plan.yaml").isTrue();
    String replaced = m.group(1) + "        targetType: \"" + targetType + "\"\n" + m.group(2) + "        conversion: "
        + conversion + "\n";
    Files.writeString(planFile, yaml.substring(0, m.start()) + replaced + yaml.substring(m.end()));
  }
}
