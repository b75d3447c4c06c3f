package dev.pg2spanner.expression;

import java.util.List;

/** The parsed form of a PostgreSQL expression, limited to what the translator understands. */
sealed interface PgExpr {

  /** A column reference (unquoted names already folded to lower case, as PostgreSQL does). */
  record Column(String name) implements PgExpr {}

  /** A string, number, boolean or NULL constant; {@code text} is the value (numbers as written). */
  record Literal(LiteralKind kind, String text) implements PgExpr {}

  enum LiteralKind { STRING, NUMBER, BOOLEAN, NULL }

  /** {@code operand::type}. */
  record Cast(PgExpr operand, TypeName type) implements PgExpr {}

  /** Unary {@code -} or {@code +}. */
  record Unary(String operator, PgExpr operand) implements PgExpr {}

  /** A binary operator other than a comparison: arithmetic, or any other PostgreSQL operator (~, ~~, ||, ...). */
  record Binary(String operator, PgExpr left, PgExpr right) implements PgExpr {}

  /** {@code =, <>, <, <=, >, >=}. */
  record Compare(String operator, PgExpr left, PgExpr right) implements PgExpr {}

  /** {@code left op ANY|SOME|ALL (array)}. */
  record Quantified(String operator, String quantifier, PgExpr left, PgExpr array) implements PgExpr {}

  /** AND or OR over two or more operands (nested ones of the same kind flattened). */
  record Logical(String operator, List<PgExpr> operands) implements PgExpr {
    public Logical {
      operands = List.copyOf(operands);
    }
  }

  record Not(PgExpr operand) implements PgExpr {}

  record IsNull(PgExpr operand, boolean negated) implements PgExpr {}

  record Between(PgExpr operand, PgExpr low, PgExpr high, boolean negated) implements PgExpr {}

  record InList(PgExpr operand, List<PgExpr> items, boolean negated) implements PgExpr {
    public InList {
      items = List.copyOf(items);
    }
  }

  /** A function call; {@code name} lower-cased unless quoted, qualified names joined with '.'. */
  record Call(String name, List<PgExpr> arguments) implements PgExpr {
    public Call {
      arguments = List.copyOf(arguments);
    }
  }

  /** A SQL value function written without parentheses: CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP, ... */
  record SqlValue(String name) implements PgExpr {}

  /** {@code ARRAY[...]}. */
  record ArrayOf(List<PgExpr> elements) implements PgExpr {
    public ArrayOf {
      elements = List.copyOf(elements);
    }
  }
}
