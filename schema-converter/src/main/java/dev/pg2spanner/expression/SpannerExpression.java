package dev.pg2spanner.expression;

import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerLiterals;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An expression the tool writes into Spanner DDL (a translated DEFAULT, CHECK or generated column, a type rule's
 * CHECK), held as a small typed tree and printed in either dialect. The two dialects share the operators, keywords
 * and parentheses the translator uses ({@code AND}, {@code IS NOT NULL}, {@code IN (...)}, {@code BETWEEN},
 * comparisons, arithmetic); what they spell differently is a typed node: a column name, a typed literal, an array,
 * a function. So nothing ever reads an expression's text back to write it in the other dialect.
 *
 * <p>A node the PostgreSQL dialect has no faithful spelling for, as pg2spanner writes it, prints as empty there and
 * the caller reports it: a JSON literal (the emulator refuses every cast of a string to jsonb in a DEFAULT), an
 * empty array (it needs a type), a string with a control character, and {@code CURRENT_DATE('UTC')}.
 */
public sealed interface SpannerExpression {

  /** This expression in {@code dialect}, or empty when that dialect cannot hold it as written. */
  default Optional<String> in(SpannerDialect dialect) {
    StringBuilder out = new StringBuilder();
    try {
      print(Objects.requireNonNull(dialect, "dialect"), out);
    } catch (NotInDialect e) {
      return Optional.empty();
    }
    return Optional.of(out.toString());
  }

  /** The GoogleSQL text, which every expression has. */
  default String googleSql() {
    return in(SpannerDialect.GOOGLE_STANDARD_SQL).orElseThrow();
  }

  /** The Spanner columns this expression reads, by name (the placeholder is not one). */
  default Set<String> columns() {
    Set<String> names = new LinkedHashSet<>();
    visit(e -> {
      if (e instanceof Column c && c.name() != null) {
        names.add(c.name());
      }
    });
    return names;
  }

  /** True when this is a template: it reads the column {@link #placeholder()} stands for. */
  default boolean usesPlaceholder() {
    boolean[] found = {false};
    visit(e -> found[0] |= e instanceof Column c && c.name() == null);
    return found[0];
  }

  /** This template with its placeholder replaced by the Spanner column {@code name} (a leaf: itself). */
  default SpannerExpression withColumn(String name) {
    return this;
  }

  /** Writes this expression in {@code dialect}; throws {@link NotInDialect} when the dialect cannot hold it. */
  void print(SpannerDialect dialect, StringBuilder out);

  /** Calls {@code visitor} on this node and every node below it (a leaf: on itself). */
  default void visit(java.util.function.Consumer<SpannerExpression> visitor) {
    visitor.accept(this);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Building

  /** Text both dialects write alike: an operator, a keyword, a parenthesis, a number, TRUE/FALSE/NULL. */
  static SpannerExpression token(String text) {
    return new Token(text);
  }

  /** The parts one after another. */
  static SpannerExpression seq(SpannerExpression... parts) {
    return new Seq(List.of(parts));
  }

  /** The parts with {@code separator} between them. */
  static SpannerExpression joined(String separator, List<SpannerExpression> parts) {
    List<SpannerExpression> all = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      if (i > 0) {
        all.add(token(separator));
      }
      all.add(parts.get(i));
    }
    return new Seq(all);
  }

  /** A Spanner column by its unquoted name, quoted as each dialect quotes names. */
  static SpannerExpression column(String name) {
    return new Column(Objects.requireNonNull(name, "name"));
  }

  /** The column a template is written for (a type's CHECK, a domain's VALUE), printed as {@code {col}}. */
  static SpannerExpression placeholder() {
    return new Column(null);
  }

  static SpannerExpression string(String value) {
    return new Literal(Literal.Kind.STRING, value);
  }

  static SpannerExpression bytes(byte[] value) {
    return new Literal(Literal.Kind.BYTES, HexFormat.of().formatHex(value));
  }

  /** A NUMERIC constant from its plain decimal text. */
  static SpannerExpression numeric(String plain) {
    return new Literal(Literal.Kind.NUMERIC, plain);
  }

  static SpannerExpression date(String isoDate) {
    return new Literal(Literal.Kind.DATE, isoDate);
  }

  /** A timestamp with its offset, e.g. {@code 2024-01-31 10:00:00+00}. */
  static SpannerExpression timestamp(String text) {
    return new Literal(Literal.Kind.TIMESTAMP, text);
  }

  static SpannerExpression json(String document) {
    return new Literal(Literal.Kind.JSON, document);
  }

  static SpannerExpression array(List<SpannerExpression> items) {
    return new ArrayOf(List.copyOf(items));
  }

  static SpannerExpression call(Function function, SpannerExpression... arguments) {
    return new Call(function, List.of(arguments));
  }

  /** The functions the tool writes; each dialect spells them its own way. */
  enum Function {
    /** A random UUID: {@code GENERATE_UUID()}, {@code spanner.generate_uuid()}. */
    GENERATE_UUID,
    /** The commit's time: {@code CURRENT_TIMESTAMP()}, {@code CURRENT_TIMESTAMP}. */
    CURRENT_TIMESTAMP,
    /** Today's date in UTC: {@code CURRENT_DATE('UTC')}; not written in the PostgreSQL dialect. */
    CURRENT_DATE_UTC,
    /** A string's length in characters: {@code CHAR_LENGTH(s)}, {@code length(s)}. */
    CHAR_LENGTH
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Nodes

  /** Thrown while printing a node the dialect cannot hold; never escapes {@link #in}. */
  final class NotInDialect extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotInDialect() {
      super(null, null, false, false);
    }
  }

  /** Text both dialects write alike. */
  record Token(String text) implements SpannerExpression {
    public Token {
      Objects.requireNonNull(text, "text");
    }

    @Override
    public void print(SpannerDialect dialect, StringBuilder out) {
      out.append(text);
    }
  }

  /** Parts one after another. */
  record Seq(List<SpannerExpression> parts) implements SpannerExpression {
    public Seq {
      parts = List.copyOf(parts);
    }

    @Override
    public SpannerExpression withColumn(String name) {
      return new Seq(parts.stream().map(p -> p.withColumn(name)).toList());
    }

    @Override
    public void print(SpannerDialect dialect, StringBuilder out) {
      parts.forEach(p -> p.print(dialect, out));
    }

    @Override
    public void visit(java.util.function.Consumer<SpannerExpression> visitor) {
      visitor.accept(this);
      parts.forEach(p -> p.visit(visitor));
    }
  }

  /** A column; a null name is the placeholder. */
  record Column(String name) implements SpannerExpression {
    @Override
    public SpannerExpression withColumn(String column) {
      return name == null ? new Column(Objects.requireNonNull(column, "column")) : this;
    }

    @Override
    public void print(SpannerDialect dialect, StringBuilder out) {
      out.append(name == null ? "{col}" : SpannerNames.quote(dialect, name));
    }
  }

  /** A literal whose spelling differs between the dialects. */
  record Literal(Kind kind, String value) implements SpannerExpression {
    enum Kind { STRING, BYTES, NUMERIC, DATE, TIMESTAMP, JSON }

    public Literal {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(value, "value");
    }

    @Override
    public void print(SpannerDialect dialect, StringBuilder out) {
      if (!dialect.isPostgres()) {
        out.append(switch (kind) {
          case STRING -> SpannerLiterals.string(value);
          case BYTES -> googleBytes(value);
          case NUMERIC -> "NUMERIC " + SpannerLiterals.string(value);
          case DATE -> "DATE " + SpannerLiterals.string(value);
          case TIMESTAMP -> "TIMESTAMP " + SpannerLiterals.string(value);
          case JSON -> "JSON " + SpannerLiterals.string(value);
        });
        return;
      }
      out.append(switch (kind) {
        case STRING -> postgresString(value);
        case BYTES -> "'\\x" + value + "'::bytea";
        case NUMERIC -> postgresString(value) + "::numeric";
        case DATE -> postgresString(value) + "::date";
        case TIMESTAMP -> postgresString(value) + "::timestamptz";
        // The emulator (1.5.28) refuses any cast of a string to jsonb in a DEFAULT, and to_jsonb(text) would make a
        // JSON string, not the document.
        case JSON -> throw new NotInDialect();
      });
    }

    private static String googleBytes(String hex) {
      StringBuilder s = new StringBuilder("b'");
      for (int i = 0; i < hex.length(); i += 2) {
        s.append("\\x").append(hex, i, i + 2);
      }
      return s.append('\'').toString();
    }

    /** A standard string literal: quotes doubled, backslash plain; a control character is not written. */
    private static String postgresString(String value) {
      if (value.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
        throw new NotInDialect();
      }
      return "'" + value.replace("'", "''") + "'";
    }
  }

  /** An array of constants: {@code [a, b]}, {@code ARRAY[a, b]}. */
  record ArrayOf(List<SpannerExpression> items) implements SpannerExpression {
    @Override
    public SpannerExpression withColumn(String name) {
      return new ArrayOf(items.stream().map(i -> i.withColumn(name)).toList());
    }

    @Override
    public void print(SpannerDialect dialect, StringBuilder out) {
      if (dialect.isPostgres()) {
        if (items.isEmpty()) {
          throw new NotInDialect(); // ARRAY[] needs a type
        }
        out.append("ARRAY");
      }
      joined(", ", items).print(dialect, out.append('['));
      out.append(']');
    }

    @Override
    public void visit(java.util.function.Consumer<SpannerExpression> visitor) {
      visitor.accept(this);
      items.forEach(i -> i.visit(visitor));
    }
  }

  /** A call of one of the functions the tool writes. */
  record Call(Function function, List<SpannerExpression> arguments) implements SpannerExpression {
    @Override
    public SpannerExpression withColumn(String name) {
      return new Call(function, arguments.stream().map(a -> a.withColumn(name)).toList());
    }

    @Override
    public void print(SpannerDialect dialect, StringBuilder out) {
      boolean pg = dialect.isPostgres();
      switch (function) {
        case GENERATE_UUID -> out.append(pg ? "spanner.generate_uuid()" : "GENERATE_UUID()");
        case CURRENT_TIMESTAMP -> out.append(pg ? "CURRENT_TIMESTAMP" : "CURRENT_TIMESTAMP()");
        case CURRENT_DATE_UTC -> {
          if (pg) {
            throw new NotInDialect();
          }
          out.append("CURRENT_DATE('UTC')");
        }
        case CHAR_LENGTH -> {
          // length(text) counts characters as char_length does; the PostgreSQL dialect has only length.
          out.append(pg ? "length(" : "CHAR_LENGTH(");
          joined(", ", arguments).print(dialect, out);
          out.append(')');
        }
        default -> throw new IllegalStateException(function.name());
      }
    }

    @Override
    public void visit(java.util.function.Consumer<SpannerExpression> visitor) {
      visitor.accept(this);
      arguments.forEach(a -> a.visit(visitor));
    }
  }
}
