package dev.pg2spanner.expression;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits expression text as PostgreSQL's deparser prints it ({@code pg_get_expr}, {@code pg_get_constraintdef})
 * into tokens. Only what the deparser emits for the supported subset is recognised; anything else (escape
 * strings, dollar quotes, parameters) stops the translation with a reason.
 */
final class PgLexer {

  enum Kind { IDENT, QUOTED_IDENT, STRING, NUMBER, OPERATOR, LPAREN, RPAREN, LBRACKET, RBRACKET, COMMA, CAST, DOT,
    END }

  /**
   * @param kind the token kind
   * @param text for IDENT: lower-cased (PostgreSQL folds unquoted names); for QUOTED_IDENT and STRING: the value
   *     with quotes removed and doubled quotes undone; else the source text
   */
  record Token(Kind kind, String text, int position) {
    boolean is(Kind k, String t) {
      return kind == k && text.equals(t);
    }

    boolean isKeyword(String keyword) {
      return kind == Kind.IDENT && text.equals(keyword);
    }
  }

  private static final String OPERATOR_CHARS = "+-*/<>=~!@#%^&|`?";

  private PgLexer() {}

  static List<Token> tokenize(String text) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
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
      } else if (c == '\'') {
        int start = i;
        StringBuilder value = new StringBuilder();
        i = quoted(text, i, '\'', value);
        tokens.add(new Token(Kind.STRING, value.toString(), start));
      } else if (c == '"') {
        int start = i;
        StringBuilder value = new StringBuilder();
        i = quoted(text, i, '"', value);
        if (value.length() == 0) {
          throw new Untranslatable("contains an empty quoted identifier");
        }
        tokens.add(new Token(Kind.QUOTED_IDENT, value.toString(), start));
      } else if (Character.isDigit(c) || c == '.') {
        int start = i;
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
        tokens.add(new Token(Kind.NUMBER, text.substring(start, i), start));
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_'
            || text.charAt(i) == '$')) {
          i++;
        }
        String word = text.substring(start, i);
        if (i < n && text.charAt(i) == '\'') {
          // E'...', B'...', X'...', U&'...': escape or bit strings, not printed for the supported subset.
          throw new Untranslatable("contains a special string literal (" + word + "'...')");
        }
        tokens.add(new Token(Kind.IDENT, word.toLowerCase(Locale.ROOT), start));
      } else if (OPERATOR_CHARS.indexOf(c) >= 0) {
        int start = i;
        while (i < n && OPERATOR_CHARS.indexOf(text.charAt(i)) >= 0) {
          i++;
        }
        tokens.add(new Token(Kind.OPERATOR, text.substring(start, i), start));
      } else {
        throw new Untranslatable("contains '" + c + "', which is not part of a supported expression");
      }
    }
    tokens.add(new Token(Kind.END, "", n));
    return tokens;
  }

  /** Reads a quoted token starting at {@code i}; returns the index after the closing quote. */
  private static int quoted(String text, int i, char quote, StringBuilder value) {
    int n = text.length();
    i++;
    while (i < n) {
      char c = text.charAt(i);
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
    throw new Untranslatable("has an unterminated " + (quote == '\'' ? "string literal" : "quoted identifier"));
  }
}
