package dev.pg2spanner.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.spanner.JsonFidelity.Kind;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class JsonFidelityTest {

  private static Kind kind(String json) {
    return JsonFidelity.check(json).map(JsonFidelity.Problem::kind).orElse(null);
  }

  @Test
  void documentsSpannerKeepsPass() {
    assertThat(kind("{\"a\": 1, \"b\": [true, null, \"x\"], \"c\": {\"d\": 0.1}}")).isNull();
    assertThat(kind("{\"big\": 18446744073709551615, \"small\": -9223372036854775808}")).as("UINT64/INT64 ends")
        .isNull();
    assertThat(kind("[1e2, 1.5, -0.0, 3.141592653589793, 1E-7, \"\\ud83d\\ude00\"]")).as("a surrogate pair").isNull();
  }

  @Test
  void aNumberADoubleCannotHoldIsInexact() {
    assertThat(kind("{\"n\": 12345678901234567890123}")).isEqualTo(Kind.INEXACT_NUMBER);
    assertThat(kind("[18446744073709551616]")).as("UINT64 max + 1").isEqualTo(Kind.INEXACT_NUMBER);
    assertThat(kind("[0.10000000000000000001]")).isEqualTo(Kind.INEXACT_NUMBER);
    assertThat(kind("[1e400]")).isEqualTo(Kind.INEXACT_NUMBER);
    assertThat(JsonFidelity.check("[12345678901234567890123]").orElseThrow().reason())
        .contains("round the number 12345678901234567890123");
  }

  @Test
  void theBoundaryOfExactDoublesIsTheShortestRoundTrip() {
    assertThat(JsonFidelity.exact(new BigDecimal("9007199254740993"))).as("an integer in INT64 range").isTrue();
    assertThat(JsonFidelity.exact(new BigDecimal("9223372036854775808.5"))).isFalse();
    assertThat(JsonFidelity.exact(new BigDecimal("0.30000000000000004"))).isTrue();
    assertThat(JsonFidelity.exact(new BigDecimal("0.300000000000000044"))).isFalse();
  }

  @Test
  void stringsSpannerRefusesAreNamed() {
    assertThat(kind("{\"s\": \"\\u0000\"}")).isEqualTo(Kind.REFUSED_STRING);
    assertThat(kind("{\"s\": \"\\ud800\"}")).isEqualTo(Kind.REFUSED_STRING);
    assertThat(kind("{\"s\": \"x\\udc00\"}")).isEqualTo(Kind.REFUSED_STRING);
    assertThat(kind("{\"\\u0000\": 1}")).as("in a key").isEqualTo(Kind.REFUSED_STRING);
  }

  @Test
  void duplicateKeysAreFoundAtAnyDepthButNotAcrossObjects() {
    assertThat(kind("{\"k\": 1, \"k\": 2}")).isEqualTo(Kind.DUPLICATE_KEY);
    assertThat(kind("{\"a\": [{\"k\": 1, \"k\": 1}]}")).isEqualTo(Kind.DUPLICATE_KEY);
    assertThat(kind("[{\"k\": 1}, {\"k\": 2}]")).isNull();
  }

  @Test
  void nestingIsRefusedOneLevelPastTheLimit() {
    assertThat(kind("[".repeat(JsonFidelity.MAX_DEPTH) + "]".repeat(JsonFidelity.MAX_DEPTH))).isNull();
    assertThat(kind("[".repeat(JsonFidelity.MAX_DEPTH + 1) + "]".repeat(JsonFidelity.MAX_DEPTH + 1)))
        .isEqualTo(Kind.TOO_DEEP);
  }

  @Test
  void theOnePassCheckOfUniqueKeyedDocumentsAnswersAsTheFullCheck() {
    String fifteen = "123456789012345";
    String sixteen = "1234567890123456";
    java.util.List<String> documents = java.util.List.of(
        "{\"a\": 1, \"b\": [true, null, \"x\"], \"c\": {\"d\": 0.1}}",
        "[" + fifteen + ", -" + fifteen.substring(1) + ", 0." + fifteen.substring(2) + "]",
        "[0.10000000000000000001]", "[12345678901234567890123]", "[18446744073709551616]",
        "[" + sixteen + "]", "[1e400]", "[1E-7]", "[-0.0]",
        "{\"s\": \"\\u0000\"}", "{\"s\": \"\\ud800\"}", "{\"s\": \"\\\" quoted [ { \\\\\"}",
        "{\"\\u0000\": 1}", "[\"\ud83d\ude00\"]", "{\"n\": \"12345678901234567890123\"}",
        "[".repeat(JsonFidelity.MAX_DEPTH) + "]".repeat(JsonFidelity.MAX_DEPTH),
        "[".repeat(JsonFidelity.MAX_DEPTH + 1) + "]".repeat(JsonFidelity.MAX_DEPTH + 1));
    for (String json : documents) {
      assertThat(JsonFidelity.checkUniqueKeys(json)).as(json).isEqualTo(JsonFidelity.check(json));
    }
    assertThat(JsonFidelity.plainlyKept("[" + fifteen + "]")).as("the longest number settled in one pass").isTrue();
    assertThat(JsonFidelity.plainlyKept("[" + sixteen + "]")).as("one character more: the full check").isFalse();
    assertThat(JsonFidelity.plainlyKept("{\"n\": \"12345678901234567890123\"}")).as("digits in a string").isTrue();
    assertThat(JsonFidelity.plainlyKept("[1e2]")).isFalse();
  }
}
