package dev.pg2spanner.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one reader of PostgreSQL expression text as the server prints it ({@code pg_get_expr},
 * {@code pg_get_constraintdef}): splits it into tokens, so that quotes, doubled quotes and parentheses are
 * understood the same way wherever such text is read (the catalog reader, the expression translator, the index
 * predicate check). The inverse of {@link PgNames}.
 *
 * <p>Total: it never throws. What it does not recognise becomes an {@link Kind#OTHER} token, a string with a
 * prefix ({@code E'...'}, {@code B'...'}) a {@link Kind#SPECIAL_STRING}, and a quote that is never closed an
 * {@link Kind#UNTERMINATED} token running to the end; callers decide whether those are acceptable.
 */
public final class PgLexer {

  /** What a token is. */
  public enum Kind { IDENT, QUOTED_IDENT, STRING, SPECIAL_STRING, NUMBER, OPERATOR, LPAREN, RPAREN, LBRACKET,
    RBRACKET, COMMA, CAST, DOT, OTHER, UNTERMINATED, END }

  /**
   * One token.
   *
   * @param kind the token kind
   * @param text for IDENT: lower-cased (PostgreSQL folds unquoted names); for QUOTED_IDENT and STRING: the value
   *     with the quotes removed and doubled quotes undone; for SPECIAL_STRING: the prefix as written ("E"); for
   *     UNTERMINATED: the opening quote; else the source text
   * @param position the offset of the token's first character in the text
   */
  public record Token(Kind kind, String text, int position) {
    public boolean is(Kind k, String t) {
      return kind == k && text.equals(t);
    }

    /** True for the unquoted word {@code keyword} (lower case), e.g. "and", "not". */
    public boolean isKeyword(String keyword) {
      return kind == Kind.IDENT && text.equals(keyword);
    }
  }

  /** The characters PostgreSQL operators are made of. */
  private static final String OPERATOR_CHARS = "+-*/<>=~!@#%^&|`?";

  private PgLexer() {}

  /** The tokens of {@code text}, ending with one {@link Kind#END} token. */
  public static List<Token> tokenize(String text) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      int start = i;
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '(') {
        tokens.add(new Token(Kind.LPAREN, "(", i++));
      } else if (c == ')') {
        tokens.add(new Token(Kind.RPAREN, ")", i++));
      } else if (c == '[') {
        tokens.add(new Token(Kind.LBRACKET, "[", i++));
      } else if (c == ']') {
        tokens.add(new Token(Kind.RBRACKET, "]", i++));
      } else if (c == ',') {
        tokens.add(new Token(Kind.COMMA, ",", i++));
      } else if (c == ':' && i + 1 < n && text.charAt(i + 1) == ':') {
        tokens.add(new Token(Kind.CAST, "::", i));
        i += 2;
      } else if (c == '.' && !(i + 1 < n && Character.isDigit(text.charAt(i + 1)))) {
        tokens.add(new Token(Kind.DOT, ".", i++));
      } else if (c == '\'' || c == '"') {
        StringBuilder value = new StringBuilder();
        i = quoted(text, i, false, value);
        if (i < 0) {
          tokens.add(new Token(Kind.UNTERMINATED, String.valueOf(c), start));
          break;
        }
        tokens.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED_IDENT, value.toString(), start));
      } else if (Character.isDigit(c) || c == '.') {
        i = number(text, i);
        tokens.add(new Token(Kind.NUMBER, text.substring(start, i), start));
      } else if (Character.isLetter(c) || c == '_') {
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_'
            || text.charAt(i) == '$')) {
          i++;
        }
        String word = text.substring(start, i);
        if (i < n && text.charAt(i) == '\'') {
          // E'...', B'...', X'...': a string with a prefix; only E strings use backslash escapes.
          i = quoted(text, i, word.equalsIgnoreCase("e"), new StringBuilder());
          if (i < 0) {
            tokens.add(new Token(Kind.UNTERMINATED, "'", start));
            break;
          }
          tokens.add(new Token(Kind.SPECIAL_STRING, word, start));
        } else {
          tokens.add(new Token(Kind.IDENT, word.toLowerCase(Locale.ROOT), start));
        }
      } else if (OPERATOR_CHARS.indexOf(c) >= 0) {
        while (i < n && OPERATOR_CHARS.indexOf(text.charAt(i)) >= 0) {
          i++;
        }
        tokens.add(new Token(Kind.OPERATOR, text.substring(start, i), start));
      } else {
        tokens.add(new Token(Kind.OTHER, String.valueOf(c), i++));
      }
    }
    tokens.add(new Token(Kind.END, "", n));
    return tokens;
  }

  /**
   * The index of the {@link Kind#RPAREN} closing the {@link Kind#LPAREN} at {@code open}, or -1 when it is never
   * closed (or the text ends in an unterminated quote first).
   */
  public static int closing(List<Token> tokens, int open) {
    int depth = 0;
    for (int i = open; i < tokens.size(); i++) {
      Kind kind = tokens.get(i).kind();
      if (kind == Kind.LPAREN) {
        depth++;
      } else if (kind == Kind.RPAREN && --depth == 0) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Reads a quoted token whose opening quote is at {@code i} (a doubled quote stands for one; with
   * {@code backslashEscapes}, a backslash escapes the next character too); returns the index after the closing
   * quote, or -1 when there is none.
   */
  private static int quoted(String text, int i, boolean backslashEscapes, StringBuilder value) {
    char quote = text.charAt(i);
    int n = text.length();
    i++;
    while (i < n) {
      char c = text.charAt(i);
      if (backslashEscapes && c == '\\' && i + 1 < n) {
        value.append(text.charAt(i + 1));
        i += 2;
        continue;
      }
      if (c == quote) {
        if (i + 1 < n && text.charAt(i + 1) == quote) {
          value.append(quote);
          i += 2;
          continue;
        }
        return i + 1;
      }
      value.append(c);
      i++;
    }
    return -1;
  }

  /** Reads digits, an optional fraction and an optional exponent from {@code i}; returns the index after them. */
  private static int number(String text, int i) {
    int n = text.length();
    while (i < n && Character.isDigit(text.charAt(i))) {
      i++;
    }
    if (i < n && text.charAt(i) == '.') {
      i++;
      while (i < n && Character.isDigit(text.charAt(i))) {
        i++;
      }
    }
    if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      int mark = i;
      i++;
      if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
        i++;
      }
      if (i < n && Character.isDigit(text.charAt(i))) {
        while (i < n && Character.isDigit(text.charAt(i))) {
          i++;
        }
      } else {
        i = mark;
      }
    }
    return i;
  }
}
