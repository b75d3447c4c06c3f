package dev.pg2spanner.finding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The catalogue: every code has its title and remedy, written once, and its template where it has one. */
class FindingCodeTest {

  /** The main sources of every module that makes or renders findings, seen from this module's directory. */
  private static final List<Path> SOURCES = Stream.of("schema-converter", "data-loader", "beam-pipeline", "cli")
      .map(m -> Path.of("..", m, "src", "main", "java")).filter(Files::isDirectory).toList();

  @Test
  void everyCodeHasATitleAndARemedy() {
    for (FindingCode code : FindingCode.values()) {
      assertThat(code.title()).as("%s title", code).isNotBlank().doesNotContain("\n").doesNotEndWith(".")
          .hasSizeLessThanOrEqualTo(120);
      assertThat(code.remedy()).as("%s remedy", code).isNotBlank().doesNotContain("\n").endsWith(".")
          .hasSizeLessThanOrEqualTo(240);
      assertThat(code.defaultSeverity()).as("%s severity", code).isNotNull();
    }
  }

  @Test
  void titlesAndRemediesAreEachWrittenOnce() {
    assertThat(Arrays.stream(FindingCode.values()).map(FindingCode::title)).doesNotHaveDuplicates();
    assertThat(Arrays.stream(FindingCode.values()).map(FindingCode::remedy)).doesNotHaveDuplicates();
  }

  /**
   * No call site repeats a code's remedy: no sentence of any remedy appears in the string literals of the main
   * sources outside the catalogue (concatenated literals are joined first, so a sentence split over lines counts).
   */
  @Test
  void noCallSiteRepeatsARemedy() {
    assertThat(SOURCES).as("main sources found from %s", Path.of("").toAbsolutePath()).isNotEmpty();
    List<String> repeated = new ArrayList<>();
    for (Path root : SOURCES) {
      for (Path file : javaFiles(root)) {
        if (file.endsWith(Path.of("finding", "FindingCode.java"))) {
          continue;
        }
        String text = literals(read(file));
        for (FindingCode code : FindingCode.values()) {
          for (String sentence : sentences(code.remedy())) {
            if (text.contains(sentence)) {
              repeated.add(code + " in " + file + ": " + sentence);
            }
          }
        }
      }
    }
    assertThat(repeated).isEmpty();
  }

  @Test
  void aTemplateFillsItsPlaceholdersInOrderAndLeavesOtherTextAlone() {
    assertThat(FindingCode.NOT_MIGRATED.message("Index orders_idx", "it indexes an expression"))
        .isEqualTo("Index orders_idx is not migrated: it indexes an expression.");
    assertThat(FindingCode.LOSSY_TYPE.message("money", "NUMERIC", "the currency's symbol isn't kept {0}"))
        .isEqualTo("money → NUMERIC: the currency's symbol isn't kept {0}");
    assertThat(FindingCode.NAME_CHANGED.message("Table public.Orders", "orders_2", "collides"))
        .isEqualTo("Table public.Orders becomes orders_2: the name collides.");
  }

  @Test
  void aTemplateRefusesTheWrongNumberOfFactsAndACodeWithoutOneRefusesAny() {
    assertThatThrownBy(() -> FindingCode.NOT_MIGRATED.message("Index x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes 2 facts, not 1");
    assertThatThrownBy(() -> FindingCode.HOTSPOT_KEY.message("x"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("HOTSPOT_KEY has no message template");
  }

  @Test
  void everyTemplateNumbersItsPlaceholdersFromZeroWithoutGaps() {
    for (FindingCode code : FindingCode.values()) {
      if (code.hasTemplate()) {
        int n = code.placeholders();
        assertThat(n).as("%s: %s", code, code.template()).isPositive();
        Object[] facts = new Object[n];
        for (int i = 0; i < n; i++) {
          facts[i] = "<fact " + i + ">";
        }
        String message = code.message(facts);
        for (Object fact : facts) {
          assertThat(message).as(code.name()).contains((String) fact);
        }
        assertThat(message).as(code.name()).doesNotContainPattern("\\{\\d+}");
      } else {
        assertThat(code.placeholders()).isZero();
      }
    }
  }

  /** The remedy's sentences (split at ". " and "; ") long enough to be advice rather than a common phrase. */
  private static List<String> sentences(String remedy) {
    return Arrays.stream(remedy.split("(?<=[.;])\\s+")).map(s -> s.replaceAll("[.;]$", "").strip())
        .filter(s -> s.length() >= 25).toList();
  }

  /** The file's string literals, with literals joined by {@code +} across lines written as one. */
  static String literals(String source) {
    return source.replaceAll("\"\\s*\\+\\s*\"", "");
  }

  private static List<Path> javaFiles(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
