package dev.pg2spanner.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.pg2spanner.source.PgLexer.Kind;
import dev.pg2spanner.source.PgLexer.Token;
import java.util.List;
import org.junit.jupiter.api.Test;

class PgLexerTest {

  private static List<Token> tokens(String text) {
    return PgLexer.tokenize(text);
  }

  @Test
  void eachQuoteEndsOnlyAtItsOwnKindAndADoubledQuoteStandsForOne() {
    // The boundary of the quoting rule: a ' inside "..." and a " inside '...' are plain characters.
    assertThat(tokens("(\"it's\" <> 'say \"hi\"') AND ('a''' = \"b\"\"\")"))
        .extracting(Token::kind, Token::text)
        .containsExactly(tuple(Kind.LPAREN, "("), tuple(Kind.QUOTED_IDENT, "it's"), tuple(Kind.OPERATOR, "<>"),
            tuple(Kind.STRING, "say \"hi\""), tuple(Kind.RPAREN, ")"), tuple(Kind.IDENT, "and"),
            tuple(Kind.LPAREN, "("), tuple(Kind.STRING, "a'"), tuple(Kind.OPERATOR, "="),
            tuple(Kind.QUOTED_IDENT, "b\""), tuple(Kind.RPAREN, ")"), tuple(Kind.END, ""));
  }

  @Test
  void positionsPointAtTheSourceText() {
    String text = "(a = ')')";
    List<Token> t = tokens(text);
    assertThat(PgLexer.closing(t, 0)).isEqualTo(4);
    assertThat(text.charAt(t.get(4).position())).isEqualTo(')');
    assertThat(t.get(4).position()).isEqualTo(text.length() - 1);
  }

  @Test
  void unquotedNamesFoldToLowerCaseAndQuotedOnesDoNot() {
    assertThat(tokens("Price::NUMERIC(10,2) + \"Price\""))
        .extracting(Token::kind, Token::text)
        .startsWith(tuple(Kind.IDENT, "price"), tuple(Kind.CAST, "::"), tuple(Kind.IDENT, "numeric"))
        .contains(tuple(Kind.QUOTED_IDENT, "Price"), tuple(Kind.NUMBER, "10"));
  }

  @Test
  void neverThrowsButMarksWhatItDoesNotRecognise() {
    assertThat(tokens("a[1:2]")).extracting(Token::kind)
        .containsExactly(Kind.IDENT, Kind.LBRACKET, Kind.NUMBER, Kind.OTHER, Kind.NUMBER, Kind.RBRACKET, Kind.END);
    assertThat(tokens("E'it\\'s (' || x")).extracting(Token::kind, Token::text)
        .containsExactly(tuple(Kind.SPECIAL_STRING, "E"), tuple(Kind.OPERATOR, "||"), tuple(Kind.IDENT, "x"),
            tuple(Kind.END, ""));
    assertThat(tokens("(a = 'open")).extracting(Token::kind)
        .containsExactly(Kind.LPAREN, Kind.IDENT, Kind.OPERATOR, Kind.UNTERMINATED, Kind.END);
    assertThat(PgLexer.closing(tokens("(a = 'open)"), 0)).isEqualTo(-1);
  }

  @Test
  void numbersKeepTheirSpelling() {
    assertThat(tokens("1.5e3 .5 42 1e")).extracting(Token::kind, Token::text)
        .containsExactly(tuple(Kind.NUMBER, "1.5e3"), tuple(Kind.NUMBER, ".5"), tuple(Kind.NUMBER, "42"),
            tuple(Kind.NUMBER, "1"), tuple(Kind.IDENT, "e"), tuple(Kind.END, ""));
  }
}
