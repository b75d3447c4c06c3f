package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** README's exit-code table lists exactly the codes the code can return: 0, 1, 2 and every {@link ExitCode}. */
class ReadmeExitCodesTest {

  @Test
  void theReadmeTableListsExactlyTheCodesTheCommandsReturn() throws Exception {
    // Surefire runs in the module's directory; README.md is the repository's.
    Path readme = Path.of("..", "README.md");
    String text = Files.readString(readme);
    int section = text.indexOf("\n## Exit codes\n");
    assertThat(section).as("README.md has an '## Exit codes' section").isNotNegative();
    int end = text.indexOf("\n## ", section + 1);
    String table = text.substring(section, end < 0 ? text.length() : end);
    Map<String, String> documented = new LinkedHashMap<>();
    Matcher row = Pattern.compile("(?m)^\\| (\\d+) \\| (.+) \\|$").matcher(table);
    while (row.find()) {
      assertThat(documented.put(row.group(1), row.group(2))).as("code " + row.group(1) + " listed once").isNull();
    }
    assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(Pg2Spanner.exitCodeList().keySet());
    // A live run stopped with Ctrl-C returns 130, as the JVM itself does on SIGINT: documented like every other.
    assertThat(documented).containsKey("130");
    // Each code's meaning starts with the words --help uses for it.
    for (ExitCode code : ExitCode.values()) {
      assertThat(firstWords(documented.get(String.valueOf(code.exitCode())))).as(code.name())
          .isEqualTo(firstWords(code.summary()));
    }
  }

  private static String firstWords(String text) {
    String[] words = text.replace("`", "").toLowerCase(java.util.Locale.ROOT).split("[\\s(:;,]+");
    return String.join(" ", java.util.Arrays.copyOf(words, 3));
  }
}
