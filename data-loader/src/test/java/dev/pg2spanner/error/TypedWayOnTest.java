package dev.pg2spanner.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every failure whose words offer {@code --resume} says so as a value too ({@link NextStep#RESUME}): the run's own
 * emulator and the Beam runners replace that way on by its value ({@code MigrateCommand}), and a failure after the run
 * changed the target gets one added only when it names none ({@code MigrateRun}). A message that offered --resume in
 * words only would keep advice that is refused. Read from the sources of the modules whose failures reach migrate.
 */
class TypedWayOnTest {

  private static final Pattern CONSTRUCTION = Pattern.compile("new Pg2SpannerException\\(");
  private static final Pattern OFFERS_RESUME = Pattern.compile("(rerun|continue)[^\";]*--resume");

  @Test
  void everyMessageThatOffersResumeIsTypedSo() throws IOException {
    List<String> untyped = new ArrayList<>();
    for (Path root : List.of(Path.of("src/main/java"), Path.of("../beam-pipeline/src/main/java"))) {
      assertThat(root).as("run from the data-loader module").isDirectory();
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          String text = Files.readString(file);
          Matcher m = CONSTRUCTION.matcher(text);
          while (m.find()) {
            String call = call(text, m.end());
            if (OFFERS_RESUME.matcher(call).find() && !call.contains("NextStep.")) {
              untyped.add(file + ":" + (text.substring(0, m.start()).split("\n", -1).length));
            }
          }
        }
      }
    }
    assertThat(untyped).as("failures that offer --resume in words but not as NextStep.RESUME").isEmpty();
  }

  /** The constructor call's arguments, from {@code start} to its closing parenthesis (strings skipped whole). */
  private static String call(String text, int start) {
    int depth = 1;
    int i = start;
    while (depth > 0 && i < text.length()) {
      char c = text.charAt(i);
      if (c == '"') {
        i++;
        while (i < text.length() && text.charAt(i) != '"') {
          i += text.charAt(i) == '\\' ? 2 : 1;
        }
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      }
      i++;
    }
    return text.substring(start, i);
  }
}
