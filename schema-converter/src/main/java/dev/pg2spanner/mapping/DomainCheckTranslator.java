package dev.pg2spanner.mapping;

import dev.pg2spanner.plan.ValueConversion;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Translates the simple domain CHECKs PostgreSQL prints ({@code pg_get_constraintdef}) into GoogleSQL
 * templates: comparisons of VALUE with literals, AND / OR / NOT, IS [NOT] NULL, {@code = ANY (ARRAY[...])} (how
 * PostgreSQL prints IN lists), text and numeric casts, and char_length / lower / upper. Anything else (regular
 * expressions, arithmetic, other functions, date literals) is not translated: integer division, regex dialects
 * and collations differ, and a check that means something else in Spanner is worse than a reported one.
 */
final class DomainCheckTranslator {

  private static final Set<String> TEXT_TYPES = Set.of("text", "character varying", "varchar", "character",
      "bpchar", "citext", "name");
  private static final Set<String> NUMBER_TYPES = Set.of("integer", "int", "int2", "int4", "int8", "smallint",
      "bigint", "numeric", "real", "double precision", "float4", "float8");
  private static final Set<String> TYPE_STOP_WORDS = Set.of("and", "or", "not", "is", "in", "any", "all", "like",
      "between", "null");
  private static final Set<ValueConversion> NUMERIC_CONVERSIONS = Set.of(ValueConversion.INT64,
      ValueConversion.FLOAT32, ValueConversion.FLOAT64, ValueConversion.NUMERIC, ValueConversion.MONEY_NUMERIC);
  private static final Set<ValueConversion> TEXT_CONVERSIONS = Set.of(ValueConversion.STRING,
      ValueConversion.ENUM_TEXT);

  private enum Kind { WORD, QUOTED, STRING, NUMBER, OP, CAST, LPAREN, RPAREN, LBRACKET, RBRACKET, COMMA }

  private record Token(Kind kind, String text) {
    boolean is(Kind k, String t) {
      return kind == k && text.equalsIgnoreCase(t);
    }
  }

  private DomainCheckTranslator() {}

  /**
   * @param check the domain check as PostgreSQL prints it, with or without the leading CHECK
   * @param conversion the conversion of the column the check will apply to: literals must suit its target type
   * @return the GoogleSQL template with {@code {col}} for VALUE, or empty when the check is not simple
   */
  static Optional<String> translate(String check, ValueConversion conversion) {
    boolean numeric = NUMERIC_CONVERSIONS.contains(conversion);
    boolean text = TEXT_CONVERSIONS.contains(conversion);
    if (!numeric && !text && conversion != ValueConversion.BOOL) {
      return Optional.empty();
    }
    String body = check.strip();
    if (body.regionMatches(true, body.length() - 9, "NOT VALID", 0, 9)) {
      body = body.substring(0, body.length() - 9).strip();
    }
    if (body.regionMatches(true, 0, "CHECK", 0, 5)) {
      body = body.substring(5).strip();
    }
    List<Token> tokens;
    try {
      tokens = stripOuterParens(tokenize(body));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    List<String> out = new ArrayList<>();
    boolean sawString = false;
    boolean sawNumber = false;
    boolean sawLength = false;
    boolean sawValue = false;
    int i = 0;
    while (i < tokens.size()) {
      Token t = tokens.get(i);
      String lower = t.text().toLowerCase(Locale.ROOT);
      switch (t.kind()) {
        case WORD -> {
          if (lower.equals("value")) {
            out.add(TypeMapping.COLUMN_PLACEHOLDER);
            sawValue = true;
          } else if (Set.of("and", "or", "not", "is", "null", "true", "false").contains(lower)) {
            out.add(lower.toUpperCase(Locale.ROOT));
          } else if ((lower.equals("any") || lower.equals("all")) && !out.isEmpty()) {
            String op = out.remove(out.size() - 1);
            if (lower.equals("any") && op.equals("=")) {
              out.add("IN");
            } else if (lower.equals("all") && op.equals("<>")) {
              out.add("NOT IN");
            } else {
              return Optional.empty();
            }
            int end = inList(tokens, i + 1, out, numeric);
            if (end < 0) {
              return Optional.empty();
            }
            sawString |= text;
            sawNumber |= numeric;
            i = end;
            continue;
          } else if (Set.of("length", "char_length", "character_length", "lower", "upper").contains(lower)
              && i + 1 < tokens.size() && tokens.get(i + 1).kind() == Kind.LPAREN && text) {
            out.add(lower.endsWith("length") ? "CHAR_LENGTH" : lower.toUpperCase(Locale.ROOT));
            sawLength |= lower.endsWith("length");
          } else {
            return Optional.empty();
          }
          i++;
        }
        case STRING -> {
          int next = i + 1;
          String type = null;
          if (next < tokens.size() && tokens.get(next).kind() == Kind.CAST) {
            int[] end = new int[1];
            type = castType(tokens, next + 1, end);
            next = end[0];
          }
          if (type != null && NUMBER_TYPES.contains(type)) {
            Optional<String> number = number(t.text());
            if (number.isEmpty()) {
              return Optional.empty();
            }
            out.add(number.get());
            sawNumber = true;
          } else if (type == null || TEXT_TYPES.contains(type)) {
            out.add(GoogleSqlLiteral.string(t.text()));
            sawString = true;
          } else {
            return Optional.empty();
          }
          i = next;
        }
        case NUMBER -> {
          out.add(t.text());
          sawNumber = true;
          i++;
          if (i < tokens.size() && tokens.get(i).kind() == Kind.CAST) {
            int[] end = new int[1];
            if (!NUMBER_TYPES.contains(castType(tokens, i + 1, end))) {
              return Optional.empty();
            }
            i = end[0];
          }
        }
        case CAST -> {
          // "(VALUE)::text": a cast of an expression to its own family is a no-op in Spanner.
          int[] end = new int[1];
          String type = castType(tokens, i + 1, end);
          if (!(text && TEXT_TYPES.contains(type)) && !(numeric && NUMBER_TYPES.contains(type))) {
            return Optional.empty();
          }
          i = end[0];
        }
        case OP -> {
          out.add(t.text().equals("!=") ? "<>" : t.text());
          i++;
        }
        case LPAREN, RPAREN, COMMA -> {
          out.add(t.text());
          i++;
        }
        default -> {
          return Optional.empty();
        }
      }
    }
    if (!sawValue || (numeric && sawString) || (text && sawNumber && !sawLength)
        || (conversion == ValueConversion.BOOL && (sawString || sawNumber))) {
      return Optional.empty();
    }
    return Optional.of(join(out));
  }

  /** Reads "(ARRAY[a, b])" or "((ARRAY[a, b])::text[])" after ANY/ALL into "(a, b)"; returns the next index. */
  private static int inList(List<Token> tokens, int i, List<String> out, boolean numeric) {
    int open = 0;
    while (i < tokens.size() && tokens.get(i).kind() == Kind.LPAREN) {
      open++;
      i++;
    }
    if (open == 0 || i + 1 >= tokens.size() || !tokens.get(i).is(Kind.WORD, "array")
        || tokens.get(i + 1).kind() != Kind.LBRACKET) {
      return -1;
    }
    i += 2;
    List<String> items = new ArrayList<>();
    while (i < tokens.size() && tokens.get(i).kind() != Kind.RBRACKET) {
      Token t = tokens.get(i);
      if (t.kind() == Kind.COMMA) {
        i++;
        continue;
      }
      String type = null;
      int next = i + 1;
      if (next < tokens.size() && tokens.get(next).kind() == Kind.CAST) {
        int[] end = new int[1];
        type = castType(tokens, next + 1, end);
        next = end[0];
      }
      if (t.kind() == Kind.NUMBER && numeric && (type == null || NUMBER_TYPES.contains(type))) {
        items.add(t.text());
      } else if (t.kind() == Kind.STRING && numeric && type != null && NUMBER_TYPES.contains(type)) {
        Optional<String> n = number(t.text());
        if (n.isEmpty()) {
          return -1;
        }
        items.add(n.get());
      } else if (t.kind() == Kind.STRING && !numeric && (type == null || TEXT_TYPES.contains(type))) {
        items.add(GoogleSqlLiteral.string(t.text()));
      } else {
        return -1;
      }
      i = next;
    }
    i++; // ]
    // Closing parentheses, with an optional array cast between them: ")::text[])".
    while (open > 0 && i < tokens.size()) {
      Token t = tokens.get(i);
      if (t.kind() == Kind.RPAREN) {
        open--;
        i++;
      } else if (t.kind() == Kind.CAST) {
        int[] end = new int[1];
        String type = castType(tokens, i + 1, end);
        if (type == null || !type.endsWith("[]")) {
          return -1;
        }
        i = end[0];
      } else {
        return -1;
      }
    }
    if (open != 0 || items.isEmpty()) {
      return -1;
    }
    out.add("(" + String.join(", ", items) + ")");
    return i;
  }

  /** The type name after "::" (words joined by one space, "[]" appended for arrays); end[0] = next index. */
  private static String castType(List<Token> tokens, int i, int[] end) {
    List<String> words = new ArrayList<>();
    while (i < tokens.size()) {
      Token t = tokens.get(i);
      if ((t.kind() == Kind.WORD && !TYPE_STOP_WORDS.contains(t.text().toLowerCase(Locale.ROOT)))
          || t.kind() == Kind.QUOTED) {
        words.add(t.text().toLowerCase(Locale.ROOT));
        i++;
      } else {
        break;
      }
    }
    String type = String.join(" ", words);
    if (i + 1 < tokens.size() && tokens.get(i).kind() == Kind.LBRACKET && tokens.get(i + 1).kind() == Kind.RBRACKET) {
      type += "[]";
      i += 2;
    }
    end[0] = i;
    return words.isEmpty() ? null : type;
  }

  private static Optional<String> number(String text) {
    try {
      return Optional.of(new BigDecimal(text.strip()).toPlainString());
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static List<Token> tokenize(String s) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'') {
        StringBuilder v = new StringBuilder();
        i++;
        while (true) {
          if (i >= s.length()) {
            throw new IllegalArgumentException("unterminated string");
          }
          char d = s.charAt(i);
          if (d == '\'' && i + 1 < s.length() && s.charAt(i + 1) == '\'') {
            v.append('\'');
            i += 2;
          } else if (d == '\'') {
            i++;
            break;
          } else {
            v.append(d);
            i++;
          }
        }
        tokens.add(new Token(Kind.STRING, v.toString()));
      } else if (c == '"') {
        int end = s.indexOf('"', i + 1);
        if (end < 0) {
          throw new IllegalArgumentException("unterminated identifier");
        }
        tokens.add(new Token(Kind.QUOTED, s.substring(i + 1, end)));
        i = end + 1;
      } else if (Character.isDigit(c)) {
        int start = i;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
          i++;
        }
        tokens.add(new Token(Kind.NUMBER, s.substring(start, i)));
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
          i++;
        }
        tokens.add(new Token(Kind.WORD, s.substring(start, i)));
      } else if (s.startsWith("::", i)) {
        tokens.add(new Token(Kind.CAST, "::"));
        i += 2;
      } else if (s.startsWith("<>", i) || s.startsWith("!=", i) || s.startsWith("<=", i) || s.startsWith(">=", i)) {
        tokens.add(new Token(Kind.OP, s.substring(i, i + 2)));
        i += 2;
      } else if (c == '=' || c == '<' || c == '>') {
        if (i + 1 < s.length() && "=<>~!*+-/%".indexOf(s.charAt(i + 1)) >= 0) {
          throw new IllegalArgumentException("operator " + s.substring(i, i + 2));
        }
        tokens.add(new Token(Kind.OP, String.valueOf(c)));
        i++;
      } else if (c == '(' || c == ')' || c == '[' || c == ']' || c == ',') {
        Kind k = switch (c) {
          case '(' -> Kind.LPAREN;
          case ')' -> Kind.RPAREN;
          case '[' -> Kind.LBRACKET;
          case ']' -> Kind.RBRACKET;
          default -> Kind.COMMA;
        };
        tokens.add(new Token(k, String.valueOf(c)));
        i++;
      } else {
        throw new IllegalArgumentException("unsupported character " + c);
      }
    }
    return tokens;
  }

  private static List<Token> stripOuterParens(List<Token> tokens) {
    List<Token> t = tokens;
    while (t.size() >= 2 && t.get(0).kind() == Kind.LPAREN && matching(t, 0) == t.size() - 1) {
      t = t.subList(1, t.size() - 1);
    }
    return t;
  }

  private static int matching(List<Token> t, int open) {
    int depth = 0;
    for (int i = open; i < t.size(); i++) {
      if (t.get(i).kind() == Kind.LPAREN) {
        depth++;
      } else if (t.get(i).kind() == Kind.RPAREN && --depth == 0) {
        return i;
      }
    }
    throw new IllegalArgumentException("unbalanced parentheses");
  }

  private static String join(List<String> out) {
    StringBuilder s = new StringBuilder();
    String previous = null;
    for (String t : out) {
      boolean noSpace = previous == null || previous.equals("(") || t.equals(")") || t.equals(",")
          || (t.equals("(") && (previous.equals("CHAR_LENGTH") || previous.equals("LOWER")
          || previous.equals("UPPER")));
      if (!noSpace) {
        s.append(' ');
      }
      s.append(t);
      previous = t;
    }
    return s.toString();
  }
}
