package dev.pg2spanner.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpannerLiteralsTest {

  @Test
  void quotesNeverNeedABackslashWhenAnotherQuoteStyleFits() {
    assertThat(SpannerLiterals.string("happy")).isEqualTo("'happy'");
    assertThat(SpannerLiterals.string("it's ok")).isEqualTo("\"it's ok\"");
    assertThat(SpannerLiterals.string("say \"hi\"")).isEqualTo("'say \"hi\"'");
    assertThat(SpannerLiterals.string("it's \"x\"")).isEqualTo("'''it's \"x\"'''");
  }

  @Test
  void backslashesAndControlCharactersAreEscaped() {
    assertThat(SpannerLiterals.string("a\\b")).isEqualTo("'a\\\\b'");
    assertThat(SpannerLiterals.string("line\nbreak")).isEqualTo("'line\\nbreak'");
    assertThat(SpannerLiterals.string("it's\ta")).isEqualTo("\"it's\\ta\"");
  }
}
