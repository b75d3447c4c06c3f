package dev.pg2spanner.expression;

import dev.pg2spanner.source.PgLexer;
import dev.pg2spanner.source.PgLexer.Kind;
import dev.pg2spanner.source.PgLexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A recursive-descent parser for the subset of PostgreSQL expressions the translator handles, following
 * PostgreSQL's operator precedence (lowest first): OR, AND, NOT, IS, comparison, BETWEEN/IN/LIKE, other
 * operators, + -, * / %, unary minus, {@code ::}. Anything outside the subset throws {@link Untranslatable}.
 */
final class PgParser {

  private static final Set<String> COMPARISONS = Set.of("=", "<>", "!=", "<", "<=", ">", ">=");
  /** Written without parentheses, these are SQL value functions, not columns. */
  private static final Set<String> SQL_VALUES = Set.of("current_date", "current_time", "current_timestamp",
      "localtime", "localtimestamp", "current_user", "session_user", "current_role", "user", "current_catalog",
      "current_schema");
  /** Words that begin constructs outside the subset; seeing one is a clear "not translated". */
  private static final Set<String> UNSUPPORTED_WORDS = Set.of("case", "select", "exists", "cast", "row",
      "interval", "collate", "extract", "overlaps", "similar", "ilike", "like", "at", "distinct", "isnull",
      "notnull", "any", "all", "some", "values", "with");

  private final List<Token> tokens;
  private int pos;

  private PgParser(List<Token> tokens) {
    this.tokens = tokens;
  }

  /** Parses a whole expression; trailing input is an error. A trailing "NOT VALID" (constraintdef) is ignored. */
  static PgExpr parse(String text) {
    List<Token> tokens = new ArrayList<>(PgLexer.tokenize(text));
    refuseOutsideTheSubset(tokens);
    int n = tokens.size();
    if (n >= 3 && tokens.get(n - 3).isKeyword("not") && tokens.get(n - 2).isKeyword("valid")) {
      tokens.remove(n - 3);
      tokens.remove(n - 3);
    }
    PgParser p = new PgParser(tokens);
    PgExpr e = p.or();
    if (p.peek().kind() != Kind.END) {
      throw p.unexpected();
    }
    return e;
  }

  /**
   * The tokens the deparser does not print for the supported subset (strings with a prefix, characters that are no
   * part of an expression), and malformed text: the first one stops the translation.
   */
  private static void refuseOutsideTheSubset(List<Token> tokens) {
    for (Token t : tokens) {
      switch (t.kind()) {
        case UNTERMINATED -> throw new Untranslatable("has an unterminated "
            + (t.text().equals("'") ? "string literal" : "quoted identifier"));
        case SPECIAL_STRING -> throw new Untranslatable("contains a special string literal (" + t.text()
            + "'...')");
        case OTHER -> throw new Untranslatable("contains '" + t.text()
            + "', which is not part of a supported expression");
        case QUOTED_IDENT -> {
          if (t.text().isEmpty()) {
            throw new Untranslatable("contains an empty quoted identifier");
          }
        }
        default -> { }
      }
    }
  }

  private PgExpr or() {
    List<PgExpr> operands = new ArrayList<>(List.of(and()));
    while (peek().isKeyword("or")) {
      pos++;
      operands.add(and());
    }
    return operands.size() == 1 ? operands.get(0) : new PgExpr.Logical("OR", flatten("OR", operands));
  }

  private PgExpr and() {
    List<PgExpr> operands = new ArrayList<>(List.of(not()));
    while (peek().isKeyword("and")) {
      pos++;
      operands.add(not());
    }
    return operands.size() == 1 ? operands.get(0) : new PgExpr.Logical("AND", flatten("AND", operands));
  }

  private static List<PgExpr> flatten(String operator, List<PgExpr> operands) {
    List<PgExpr> flat = new ArrayList<>();
    for (PgExpr e : operands) {
      if (e instanceof PgExpr.Logical l && l.operator().equals(operator)) {
        flat.addAll(l.operands());
      } else {
        flat.add(e);
      }
    }
    return flat;
  }

  private PgExpr not() {
    if (peek().isKeyword("not")) {
      pos++;
      return new PgExpr.Not(not());
    }
    return is();
  }

  private PgExpr is() {
    PgExpr e = comparison();
    while (peek().isKeyword("is")) {
      pos++;
      boolean negated = false;
      if (peek().isKeyword("not")) {
        pos++;
        negated = true;
      }
      if (peek().isKeyword("null")) {
        pos++;
        e = new PgExpr.IsNull(e, negated);
      } else {
        throw new Untranslatable("uses IS " + (negated ? "NOT " : "") + peek().text().toUpperCase(Locale.ROOT)
            + ", which is not translated");
      }
    }
    return e;
  }

  private PgExpr comparison() {
    PgExpr left = betweenIn();
    Token t = peek();
    if (t.kind() == Kind.OPERATOR && COMPARISONS.contains(t.text())) {
      pos++;
      String op = t.text().equals("!=") ? "<>" : t.text();
      Token q = peek();
      if ((q.isKeyword("any") || q.isKeyword("some") || q.isKeyword("all")) && peekAt(1).kind() == Kind.LPAREN) {
        pos += 2;
        PgExpr array = or();
        expect(Kind.RPAREN);
        return new PgExpr.Quantified(op, q.text().equals("some") ? "any" : q.text(), left, array);
      }
      PgExpr right = betweenIn();
      if (peek().kind() == Kind.OPERATOR && COMPARISONS.contains(peek().text())) {
        throw new Untranslatable("chains comparisons without parentheses");
      }
      return new PgExpr.Compare(op, left, right);
    }
    return left;
  }

  private PgExpr betweenIn() {
    PgExpr left = otherOperator();
    boolean negated = false;
    if (peek().isKeyword("not") && (peekAt(1).isKeyword("between") || peekAt(1).isKeyword("in"))) {
      pos++;
      negated = true;
    }
    if (peek().isKeyword("between")) {
      pos++;
      if (peek().isKeyword("symmetric") || peek().isKeyword("asymmetric")) {
        throw new Untranslatable("uses BETWEEN " + peek().text().toUpperCase(Locale.ROOT) + ", which is not translated");
      }
      PgExpr low = otherOperator();
      expectKeyword("and");
      PgExpr high = otherOperator();
      return new PgExpr.Between(left, low, high, negated);
    }
    if (peek().isKeyword("in")) {
      pos++;
      expect(Kind.LPAREN);
      List<PgExpr> items = list(Kind.RPAREN);
      return new PgExpr.InList(left, items, negated);
    }
    if (peek().isKeyword("like") || peek().isKeyword("ilike") || peek().isKeyword("similar")) {
      throw new Untranslatable("uses " + peek().text().toUpperCase(Locale.ROOT) + " pattern matching, which is not translated");
    }
    return left;
  }

  /** Operators other than comparisons and arithmetic (~, ~~, ||, @>, ...): parsed so the reason can name them. */
  private PgExpr otherOperator() {
    PgExpr left = additive();
    while (peek().kind() == Kind.OPERATOR && !COMPARISONS.contains(peek().text())
        && !Set.of("+", "-", "*", "/", "%").contains(peek().text())) {
      String op = next().text();
      left = new PgExpr.Binary(op, left, additive());
    }
    return left;
  }

  private PgExpr additive() {
    PgExpr left = multiplicative();
    while (peek().is(Kind.OPERATOR, "+") || peek().is(Kind.OPERATOR, "-")) {
      String op = next().text();
      left = new PgExpr.Binary(op, left, multiplicative());
    }
    return left;
  }

  private PgExpr multiplicative() {
    PgExpr left = unary();
    while (peek().is(Kind.OPERATOR, "*") || peek().is(Kind.OPERATOR, "/") || peek().is(Kind.OPERATOR, "%")) {
      String op = next().text();
      left = new PgExpr.Binary(op, left, unary());
    }
    return left;
  }

  private PgExpr unary() {
    if (peek().is(Kind.OPERATOR, "-") || peek().is(Kind.OPERATOR, "+")) {
      String op = next().text();
      return new PgExpr.Unary(op, unary());
    }
    return postfix();
  }

  private PgExpr postfix() {
    PgExpr e = primary();
    while (true) {
      if (peek().kind() == Kind.CAST) {
        pos++;
        e = new PgExpr.Cast(e, typeName());
      } else if (peek().kind() == Kind.LBRACKET) {
        throw new Untranslatable("uses an array subscript, which is not translated");
      } else {
        return e;
      }
    }
  }

  private PgExpr primary() {
    Token t = next();
    switch (t.kind()) {
      case NUMBER:
        return new PgExpr.Literal(PgExpr.LiteralKind.NUMBER, t.text());
      case STRING:
        return new PgExpr.Literal(PgExpr.LiteralKind.STRING, t.text());
      case LPAREN: {
        PgExpr e = or();
        expect(Kind.RPAREN);
        return e;
      }
      case QUOTED_IDENT:
        return nameOrCall(t.text());
      case IDENT:
        break;
      default:
        pos--;
        throw unexpected();
    }
    String word = t.text();
    switch (word) {
      case "true":
      case "false":
        return new PgExpr.Literal(PgExpr.LiteralKind.BOOLEAN, word);
      case "null":
        return new PgExpr.Literal(PgExpr.LiteralKind.NULL, "NULL");
      case "array":
        if (peek().kind() == Kind.LBRACKET) {
          pos++;
          return new PgExpr.ArrayOf(list(Kind.RBRACKET));
        }
        throw new Untranslatable("uses an ARRAY subquery, which is not translated");
      default:
        break;
    }
    if (SQL_VALUES.contains(word) && peek().kind() != Kind.LPAREN) {
      return new PgExpr.SqlValue(word);
    }
    if (UNSUPPORTED_WORDS.contains(word)) {
      throw new Untranslatable("uses " + word.toUpperCase(Locale.ROOT) + ", which is not translated");
    }
    return nameOrCall(word);
  }

  private PgExpr nameOrCall(String first) {
    String name = first;
    boolean qualified = false;
    while (peek().kind() == Kind.DOT) {
      pos++;
      Token part = next();
      if (part.kind() != Kind.IDENT && part.kind() != Kind.QUOTED_IDENT) {
        pos--;
        throw unexpected();
      }
      name = name + "." + part.text();
      qualified = true;
    }
    if (peek().kind() == Kind.LPAREN) {
      pos++;
      if (peek().isKeyword("distinct") || peek().isKeyword("variadic")) {
        throw new Untranslatable("calls " + name + "(" + peek().text().toUpperCase(Locale.ROOT) + " ...), which is not translated");
      }
      return new PgExpr.Call(name, list(Kind.RPAREN));
    }
    if (qualified) {
      throw new Untranslatable("refers to " + name + ", a qualified name, which is not translated");
    }
    return new PgExpr.Column(name);
  }

  /** A comma-separated list up to (and consuming) {@code close}; may be empty. */
  private List<PgExpr> list(Kind close) {
    List<PgExpr> items = new ArrayList<>();
    if (peek().kind() == close) {
      pos++;
      return items;
    }
    items.add(or());
    while (peek().kind() == Kind.COMMA) {
      pos++;
      items.add(or());
    }
    expect(close);
    return items;
  }

  private TypeName typeName() {
    Token first = next();
    if (first.kind() != Kind.IDENT && first.kind() != Kind.QUOTED_IDENT) {
      pos--;
      throw unexpected();
    }
    String schema = null;
    String name = first.text();
    if (peek().kind() == Kind.DOT) {
      pos++;
      Token second = next();
      if (second.kind() != Kind.IDENT && second.kind() != Kind.QUOTED_IDENT) {
        pos--;
        throw unexpected();
      }
      schema = name;
      name = second.text();
    }
    List<Integer> modifiers = new ArrayList<>();
    if (first.kind() == Kind.IDENT && schema == null) {
      switch (name) {
        case "character", "bit" -> {
          if (peek().isKeyword("varying")) {
            pos++;
            name = name + " varying";
          }
        }
        case "double" -> {
          expectKeyword("precision");
          name = "double precision";
        }
        case "timestamp", "time" -> {
          modifiers(modifiers);
          if ((peek().isKeyword("with") || peek().isKeyword("without")) && peekAt(1).isKeyword("time")) {
            String with = next().text();
            expectKeyword("time");
            expectKeyword("zone");
            name = name + " " + with + " time zone";
          }
        }
        default -> { }
      }
    }
    if (modifiers.isEmpty()) {
      modifiers(modifiers);
    }
    boolean array = false;
    while (peek().kind() == Kind.LBRACKET) {
      if (array) {
        throw new Untranslatable("casts to a multi-dimensional array type, which is not translated");
      }
      pos++;
      if (peek().kind() == Kind.NUMBER) {
        pos++;
      }
      expect(Kind.RBRACKET);
      array = true;
    }
    return new TypeName(schema, name, modifiers, array);
  }

  private void modifiers(List<Integer> into) {
    if (peek().kind() != Kind.LPAREN) {
      return;
    }
    pos++;
    do {
      Token t = next();
      if (t.kind() != Kind.NUMBER || !t.text().matches("\\d{1,9}")) {
        pos--;
        throw unexpected();
      }
      into.add(Integer.parseInt(t.text()));
    } while (peek().kind() == Kind.COMMA && next() != null);
    expect(Kind.RPAREN);
  }

  private Token peek() {
    return tokens.get(pos);
  }

  private Token peekAt(int ahead) {
    return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
  }

  private Token next() {
    Token t = tokens.get(pos);
    if (t.kind() != Kind.END) {
      pos++;
    }
    return t;
  }

  private void expect(Kind kind) {
    if (peek().kind() != kind) {
      throw unexpected();
    }
    pos++;
  }

  private void expectKeyword(String keyword) {
    if (!peek().isKeyword(keyword)) {
      throw unexpected();
    }
    pos++;
  }

  private Untranslatable unexpected() {
    Token t = peek();
    return new Untranslatable(t.kind() == Kind.END ? "ends unexpectedly; the expression is not understood"
        : "is not understood at '" + t.text() + "' (offset " + t.position() + ")");
  }
}
