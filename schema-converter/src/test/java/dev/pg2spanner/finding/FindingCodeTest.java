package dev.pg2spanner.finding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The catalogue: every code has its title and remedy, written once, and its template where it has one. */
class FindingCodeTest {

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
}
