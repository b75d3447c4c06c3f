package dev.pg2spanner.expression;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.source.PgLexer;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The one reader of PostgreSQL expressions, as {@code pg_get_expr} and {@code pg_get_constraintdef} print them:
 * translates column defaults, table and domain CHECKs and generated columns into GoogleSQL, tells which partial
 * index predicates are a NULL filter, and which defaults read the clock. Strict by design: whatever is not
 * understood exactly is returned untranslated with the reason, because a wrong CHECK rejects good rows and a wrong
 * DEFAULT writes wrong values silently. A CHECK is translated knowing each column's PostgreSQL type, Spanner type
 * and value conversion ({@link ColumnRef}), so what the two databases evaluate differently stays reported.
 */
public final class ExpressionTranslator {

  /** The reason given for {@code nextval(...)} defaults, which the key strategy replaces. */
  public static final String SEQUENCE_DEFAULT = "sequence default: handled by the key strategy";

  private static final Set<String> UUID_FUNCTIONS = Set.of("gen_random_uuid", "uuid_generate_v4",
      "public.uuid_generate_v4", "public.gen_random_uuid", "pg_catalog.gen_random_uuid");
  private static final Set<String> LENGTH_FUNCTIONS = Set.of("char_length", "character_length", "length",
      "pg_catalog.char_length", "pg_catalog.length");
  private static final java.util.regex.Pattern CHECK_PREFIX = java.util.regex.Pattern.compile("^\\s*CHECK\\s*(?=\\()");
  /** PostgreSQL functions that read the clock, called with empty parentheses. */
  private static final Set<String> CLOCK_FUNCTIONS = Set.of("now", "transaction_timestamp", "statement_timestamp",
      "clock_timestamp");
  /** SQL value functions that read the clock, written without parentheses (or with a precision in them). */
  private static final Set<String> CLOCK_VALUES = Set.of("current_timestamp", "localtimestamp", "current_date");
  /** The length of a canonical UUID string. */
  private static final int UUID_LENGTH = 36;

  private ExpressionTranslator() {}

  /**
   * A column DEFAULT.
   *
   * @param dialect the plan's: what a constant must fit (a NUMERIC's digits)
   * @param pgExpression {@code pg_get_expr} output, e.g. "now()", "'draft'::text", "nextval('s'::regclass)"; null
   *     or blank means no default
   * @param sourceType the column's PostgreSQL type, or null when unknown (used to accept casts to the column's own
   *     enum or domain type, and for time zone notes)
   * @param targetType the Spanner column type, not null
   * @return the expression, typed, printed in {@code dialect} by the DDL (possibly with a note),
   *     {@link Translation#none()} for NULL, or the reason
   */
  public static Translation defaultValue(SpannerDialect dialect, String pgExpression, PgType sourceType,
      SpannerType targetType) {
    Objects.requireNonNull(targetType, "targetType");
    if (pgExpression == null || pgExpression.isBlank()) {
      return Translation.none();
    }
    try {
      return new DefaultTranslation(dialect.limits(), sourceType, targetType).translate(PgParser.parse(pgExpression));
    } catch (Untranslatable e) {
      return Translation.untranslated(Prose.of("the default " + pgExpression.trim() + " ").plus(e.reason()));
    }
  }

  /**
   * A CHECK, or a generated column's expression.
   *
   * @param dialect the plan's: what a constant must fit (a NUMERIC's digits)
   * @param pgExpression the expression as {@code pg_get_constraintdef} prints it inside {@code CHECK (...)} (the
   *     whole {@code CHECK (...)} text is accepted too), not null
   * @param columns PostgreSQL column name → the column; every column the expression uses must be present
   * @return the boolean expression (without CHECK and outer parentheses), or the reason
   */
  public static Translation check(SpannerDialect dialect, String pgExpression, Map<String, ColumnRef> columns) {
    return check(dialect, pgExpression, columns, Set.of());
  }

  /**
   * A table CHECK, which Spanner creates only when it depends on at least one column that is not generated: a
   * constant one ({@code CHECK (false) NO INHERIT}, PostgreSQL's way to keep rows out of an inheritance parent) or one
   * over generated columns only is refused with that reason, at plan time rather than by Spanner after the load.
   *
   * @param generated the PostgreSQL names of the table's generated columns
   */
  public static Translation check(SpannerDialect dialect, String pgExpression, Map<String, ColumnRef> columns,
      Set<String> generated) {
    Objects.requireNonNull(pgExpression, "pgExpression");
    // Tolerate the full pg_get_constraintdef text too: "CHECK ((x > 0))".
    return translate(dialect, "the check", pgExpression, CHECK_PREFIX.matcher(pgExpression).replaceFirst(""), columns,
        (type, used) -> {
          if (type != SqlType.BOOL && type != SqlType.UNKNOWN) {
            throw new Untranslatable("is not a boolean expression");
          }
          if (used.isEmpty()) {
            throw new Untranslatable("uses no column, and Spanner requires a CHECK to depend on at least one column "
                + "that is not generated");
          }
          if (generated.containsAll(used)) {
            throw new Untranslatable("uses only generated columns, and Spanner requires a CHECK to depend on at least "
                + "one column that is not generated");
          }
        });
  }

  /**
   * A generated column's expression ({@code GENERATED ALWAYS AS (expr) STORED}): translated as a CHECK's operands
   * are (the same operators, functions and refusals), and its result must be the column's Spanner type (an integer
   * expression may feed a NUMERIC or FLOAT64 column, which hold every integer it gives).
   *
   * @param dialect the plan's: what a constant must fit (a NUMERIC's digits)
   * @param pgExpression {@code pg_get_expr} of the column's generation expression, not null
   * @param columns PostgreSQL column name → the column; every column the expression uses must be present
   * @param target the generated column's Spanner type
   * @return the expression, or the reason
   */
  public static Translation generated(SpannerDialect dialect, String pgExpression, Map<String, ColumnRef> columns,
      SpannerType target) {
    Objects.requireNonNull(pgExpression, "pgExpression");
    Objects.requireNonNull(target, "target");
    SqlType want = sqlType(target);
    return translate(dialect, "the expression", pgExpression, pgExpression, columns, (got, used) -> {
      // Only what Spanner coerces without a change of value: the same type, or an integer into NUMERIC/FLOAT64.
      if (!(got == want || got == SqlType.NULL
          || got == SqlType.INT && (want == SqlType.NUMERIC || want == SqlType.FLOAT))) {
        throw new Untranslatable("gives a ", word(got), " value, but the column is ", target);
      }
    });
  }

  /** What a CHECK or a generated column requires of the translated expression's type and the columns it uses. */
  @FunctionalInterface
  private interface ResultType {
    void require(SqlType type, Set<String> usedColumns) throws Untranslatable;
  }

  /**
   * Translates {@code text} (the expression as printed, or its inner part) with the operators, functions and
   * refusals of a CHECK, then asks {@code result} whether its type fits; the reason quotes {@code what} and the
   * original {@code pgExpression}.
   */
  private static Translation translate(SpannerDialect dialect, String what, String pgExpression, String text,
      Map<String, ColumnRef> columns, ResultType result) {
    Objects.requireNonNull(columns, "columns");
    try {
      CheckTranslation t = new CheckTranslation(dialect.limits(), columns);
      Sql sql = t.translate(PgParser.parse(text));
      result.require(sql.type(), t.used);
      return t.notes.isEmpty() ? Translation.of(sql.expr())
          : Translation.withNote(sql.expr(), String.join("; ", t.notes));
    } catch (Untranslatable e) {
      return Translation.untranslated(Prose.of(what + " " + pgExpression.trim() + " ").plus(e.reason()));
    }
  }

  /**
   * A domain's CHECK, with {@code VALUE} standing for the column the domain types: translated as a CHECK on that
   * column would be, so its PostgreSQL and Spanner types decide what is faithful.
   *
   * @param pgCheck the check as {@code pg_get_constraintdef} prints it, with or without the leading CHECK
   * @param value the column VALUE stands for: its spelling (e.g. a template placeholder), the domain's base type
   *     and the Spanner type the domain maps to
   * @return the boolean expression, or the reason
   */
  public static Translation domainCheck(SpannerDialect dialect, String pgCheck, ColumnRef value) {
    Objects.requireNonNull(value, "value");
    // PostgreSQL prints VALUE as the bare word, which the parser reads as a column named "value".
    return check(dialect, pgCheck, Map.of("value", value));
  }

  /**
   * The columns a partial-index predicate asks to be non-null, when that is all it asks: {@code email IS NOT NULL}
   * or {@code (a IS NOT NULL) AND (b IS NOT NULL)}, which Spanner expresses as a NULL_FILTERED index.
   *
   * @param pgPredicate the predicate as {@code pg_get_expr(indpred, indrelid)} prints it, not null
   * @return the PostgreSQL column names in the order written, or empty when the predicate says anything else (or is
   *     not understood)
   */
  public static Optional<List<String>> notNullColumns(String pgPredicate) {
    Objects.requireNonNull(pgPredicate, "pgPredicate");
    PgExpr e;
    try {
      e = PgParser.parse(pgPredicate);
    } catch (Untranslatable ex) {
      return Optional.empty();
    }
    List<PgExpr> terms = e instanceof PgExpr.Logical l && l.operator().equals("AND") ? l.operands() : List.of(e);
    List<String> columns = new ArrayList<>();
    for (PgExpr term : terms) {
      if (!(term instanceof PgExpr.IsNull n && n.negated() && n.operand() instanceof PgExpr.Column c)) {
        return Optional.empty();
      }
      columns.add(c.name());
    }
    return Optional.of(columns);
  }

  /**
   * True when the expression reads the clock anywhere in it: now(), clock_timestamp(), CURRENT_TIMESTAMP,
   * CURRENT_DATE, LOCALTIMESTAMP... Read on the tokens, so a string literal or a quoted name that merely spells
   * one does not count, and expressions outside the translated subset are read too.
   *
   * @param pgExpression an expression as {@code pg_get_expr} prints it, or null
   */
  /**
   * True when a default is a constant ({@code 'new'::text}, {@code 42}, {@code true}): every row it fills gets the
   * same value whenever it is evaluated. False for anything that calls a function or reads the clock, and for text
   * that does not parse.
   */
  public static boolean isConstant(String pgExpression) {
    if (pgExpression == null || pgExpression.isBlank()) {
      return false;
    }
    try {
      return Constant.of(PgParser.parse(pgExpression)) != null;
    } catch (RuntimeException e) {
      return false;
    }
  }

  public static boolean readsCurrentTime(String pgExpression) {
    if (pgExpression == null) {
      return false;
    }
    List<PgLexer.Token> tokens = PgLexer.tokenize(pgExpression);
    for (int i = 0; i < tokens.size() - 1; i++) {
      PgLexer.Token t = tokens.get(i);
      if (t.kind() != PgLexer.Kind.IDENT) {
        continue;
      }
      if (CLOCK_VALUES.contains(t.text())
          || CLOCK_FUNCTIONS.contains(t.text()) && tokens.get(i + 1).kind() == PgLexer.Kind.LPAREN) {
        return true;
      }
    }
    return false;
  }

  // -----------------------------------------------------------------------------------------------------------
  // DEFAULT

  private static final class DefaultTranslation {
    private final SpannerLimits limits;
    private final PgType sourceType;
    private final SpannerType target;
    private final List<String> notes = new ArrayList<>();

    DefaultTranslation(SpannerLimits limits, PgType sourceType, SpannerType target) {
      this.limits = limits;
      this.sourceType = sourceType;
      this.target = target;
    }

    Translation translate(PgExpr e) {
      if (e instanceof PgExpr.Call call && (call.name().equals("nextval")
          || call.name().equals("pg_catalog.nextval"))) {
        return Translation.untranslated(SEQUENCE_DEFAULT);
      }
      String time = timeFunction(e);
      if (time != null) {
        return currentTimestamp(time);
      }
      if (e instanceof PgExpr.SqlValue v && v.name().equals("current_date")
          || e instanceof PgExpr.Call c && c.name().equals("current_date") && c.arguments().isEmpty()) {
        requireTarget(SpannerType.Base.DATE, "CURRENT_DATE");
        // Spanner's CURRENT_DATE() uses the database time zone, America/Los_Angeles unless changed; the loader
        // keeps timestamps in UTC, so the date is taken in UTC as well.
        return Translation.withNote(SpannerExpression.call(SpannerExpression.Function.CURRENT_DATE_UTC), "CURRENT_DATE is taken in UTC; PostgreSQL used the "
            + "session's time zone" + sessionZoneHint());
      }
      if (e instanceof PgExpr.Call call && UUID_FUNCTIONS.contains(call.name()) && call.arguments().isEmpty()) {
        if (target.base() != SpannerType.Base.STRING
            || (target.length() != null && target.length() < UUID_LENGTH)) {
          throw new Untranslatable("generates a UUID, but ",
              SpannerExpression.call(SpannerExpression.Function.GENERATE_UUID), " returns a ",
              SpannerType.string(UUID_LENGTH), " and the column is ", target);
        }
        return Translation.of(SpannerExpression.call(SpannerExpression.Function.GENERATE_UUID));
      }
      Constant constant = constantOrArray(e);
      if (constant != null && constant.isNull()) {
        return Translation.none();
      }
      if (constant == null && !(e instanceof PgExpr.ArrayOf) && !(e instanceof PgExpr.Cast cast
          && cast.operand() instanceof PgExpr.ArrayOf)) {
        throw new Untranslatable(describe(e));
      }
      SpannerExpression sql = target.isArray() ? array(e) : constant.render(limits, target.base(),
          castMatchesColumn(constant.cast()), notes);
      return notes.isEmpty() ? Translation.of(sql) : Translation.withNote(sql, String.join("; ", notes));
    }

    private Constant constantOrArray(PgExpr e) {
      if (e instanceof PgExpr.Cast cast && cast.operand() instanceof PgExpr.ArrayOf) {
        return null;
      }
      return Constant.of(e);
    }

    /** Renders an array default: {@code '{a,b}'::text[]} or {@code ARRAY['a'::text, 'b'::text]}. */
    private SpannerExpression array(PgExpr e) {
      SpannerType.Base element = target.element().base();
      List<SpannerExpression> items = new ArrayList<>();
      if (e instanceof PgExpr.Cast cast && cast.operand() instanceof PgExpr.ArrayOf arrayOf) {
        requireArrayCast(cast.type());
        for (PgExpr item : arrayOf.elements()) {
          items.add(element(item, element));
        }
      } else if (e instanceof PgExpr.ArrayOf arrayOf) {
        for (PgExpr item : arrayOf.elements()) {
          items.add(element(item, element));
        }
      } else {
        Constant c = Constant.of(e);
        if (c.cast() == null || !c.cast().array() || c.kind() != PgExpr.LiteralKind.STRING) {
          throw new Untranslatable("is not an array value for the column type ", target);
        }
        requireArrayCast(c.cast());
        for (String item : c.arrayElements()) {
          items.add(item == null ? SpannerExpression.token("NULL") : new Constant(PgExpr.LiteralKind.STRING, item, c.elementCast())
              .render(limits, element, castMatchesColumn(c.elementCast()), notes));
        }
      }
      return SpannerExpression.array(items);
    }

    private void requireArrayCast(TypeName cast) {
      if (!cast.array()) {
        throw new Untranslatable("casts an array to the non-array type " + cast);
      }
    }

    private SpannerExpression element(PgExpr item, SpannerType.Base element) {
      Constant c = Constant.of(item);
      if (c == null) {
        throw new Untranslatable("has an array element that is not a constant: " + describe(item));
      }
      return c.render(limits, element, castMatchesColumn(c.cast()), notes);
    }

    private Translation currentTimestamp(String function) {
      requireTarget(SpannerType.Base.TIMESTAMP, function);
      List<String> why = new ArrayList<>();
      switch (function) {
        case "now()", "transaction_timestamp()", "CURRENT_TIMESTAMP" -> why.add(function + " is the start time "
            + "of the PostgreSQL transaction; Spanner's CURRENT_TIMESTAMP() is taken per statement, so rows "
            + "written by different statements of one transaction no longer share a timestamp");
        case "clock_timestamp()" -> why.add("clock_timestamp() changes from row to row in PostgreSQL; Spanner's "
            + "CURRENT_TIMESTAMP() is the same for every row of one statement");
        case "LOCALTIMESTAMP" -> why.add("LOCALTIMESTAMP is the PostgreSQL transaction's start time");
        default -> { }
      }
      if (sourceType != null && "timestamp".equals(sourceType.name())) {
        why.add("the column is timestamp without time zone: PostgreSQL stored the session's local wall-clock time, "
            + "Spanner stores the UTC instant" + sessionZoneHint());
      }
      SpannerExpression now = SpannerExpression.call(SpannerExpression.Function.CURRENT_TIMESTAMP);
      return why.isEmpty() ? Translation.of(now) : Translation.withNote(now, String.join("; ", why));
    }

    private String sessionZoneHint() {
      return " (the same when the server's time zone is UTC)";
    }

    private void requireTarget(SpannerType.Base base, String what) {
      if (target.base() != base) {
        throw new Untranslatable("(" + what + ") gives a ", word(base), ", but the column is ", target);
      }
    }

    private boolean castMatchesColumn(TypeName cast) {
      if (cast == null || sourceType == null) {
        return false;
      }
      for (PgType t = sourceType; t != null; t = t.domainBase()) {
        if (cast.names(t.name()) && (cast.schema() == null || cast.schema().equals(t.schema()))) {
          return t.kind() == PgType.Kind.ENUM || t.kind() == PgType.Kind.DOMAIN;
        }
      }
      return false;
    }
  }

  /** The PostgreSQL name of a current-time expression, or null. */
  private static String timeFunction(PgExpr e) {
    if (e instanceof PgExpr.SqlValue v) {
      return switch (v.name()) {
        case "current_timestamp" -> "CURRENT_TIMESTAMP";
        case "localtimestamp" -> "LOCALTIMESTAMP";
        default -> null;
      };
    }
    if (e instanceof PgExpr.Call c) {
      String name = c.name().startsWith("pg_catalog.") ? c.name().substring("pg_catalog.".length()) : c.name();
      if (c.arguments().isEmpty()) {
        return CLOCK_FUNCTIONS.contains(name) ? name + "()" : null;
      }
      // CURRENT_TIMESTAMP(3): the precision does not matter, Spanner keeps microseconds... and more.
      if (c.arguments().size() == 1 && (name.equals("current_timestamp") || name.equals("localtimestamp"))) {
        return name.toUpperCase(java.util.Locale.ROOT);
      }
    }
    return null;
  }

  /** A short description of an expression the translator refuses, for the reason. */
  private static String describe(PgExpr e) {
    if (e instanceof PgExpr.Call c) {
      return "calls " + c.name() + "(), which has no translation";
    }
    if (e instanceof PgExpr.SqlValue v) {
      return "uses " + v.name().toUpperCase(java.util.Locale.ROOT) + ", which has no translation";
    }
    if (e instanceof PgExpr.Column) {
      return "refers to a column, which Spanner defaults cannot do";
    }
    if (e instanceof PgExpr.Binary || e instanceof PgExpr.Unary) {
      return "is computed with operators, which is not translated";
    }
    return "is not a constant or a supported function";
  }

  // -----------------------------------------------------------------------------------------------------------
  // CHECK

  /**
   * What the translator knows about a GoogleSQL sub-expression's type: UNKNOWN for a column whose type is not
   * known, NUMBER for arithmetic over those (some number, integer or not), OTHER for JSON and arrays.
   */
  private enum SqlType { INT, NUMERIC, FLOAT, NUMBER, STRING, BOOL, DATE, TIMESTAMP, BYTES, OTHER, NULL, UNKNOWN }

  /** A translated value's type in a reason: a Spanner type, printed per dialect where there is one. */
  private static Object word(SqlType type) {
    return switch (type) {
      case INT -> SpannerType.INT64;
      case NUMERIC -> SpannerType.NUMERIC;
      case FLOAT -> SpannerType.FLOAT64;
      case BOOL -> SpannerType.BOOL;
      case DATE -> SpannerType.DATE;
      case TIMESTAMP -> SpannerType.TIMESTAMP;
      case STRING -> "string";
      case BYTES -> "bytes";
      default -> type.name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  /** A column type's kind in a reason, printed per dialect where it names one type. */
  private static Object word(SpannerType.Base base) {
    return switch (base) {
      case STRING -> "string";
      case BYTES -> "bytes";
      case ARRAY -> "array";
      default -> new SpannerType(base, null, null);
    };
  }

  /** The type of a column as Spanner holds it. */
  private static SqlType sqlType(SpannerType target) {
    if (target == null) {
      return SqlType.UNKNOWN;
    }
    return switch (target.base()) {
      case INT64 -> SqlType.INT;
      case NUMERIC -> SqlType.NUMERIC;
      case FLOAT32, FLOAT64 -> SqlType.FLOAT;
      case STRING -> SqlType.STRING;
      case BOOL -> SqlType.BOOL;
      case DATE -> SqlType.DATE;
      case TIMESTAMP -> SqlType.TIMESTAMP;
      case BYTES -> SqlType.BYTES;
      case JSON, ARRAY -> SqlType.OTHER;
    };
  }

  /** Why PostgreSQL compares a column's values unlike Spanner does. */
  private enum Differs {
    /** char(n): PostgreSQL ignores the blank padding, which Spanner keeps. */
    PADDING,
    /** citext: PostgreSQL ignores case. */
    CASE,
    /** Spanner holds the values as another type (e.g. the decimal text of a numeric that does not fit NUMERIC). */
    FORM
  }

  /** How the values of {@code column} compare unlike Spanner's, or null when they compare alike (or are unknown). */
  private static Differs differs(ColumnRef column) {
    PgType base = column.sourceType();
    while (base != null && base.domainBase() != null) {
      base = base.domainBase();
    }
    if (base != null && base.name().equals("bpchar")) {
      return Differs.PADDING;
    }
    if (base != null && base.name().equals("citext")) {
      return Differs.CASE;
    }
    return column.conversion() != null && !keepsValues(column.conversion()) ? Differs.FORM : null;
  }

  /**
   * True when the loader writes each value as a Spanner value that compares as the PostgreSQL one does; false
   * when it writes text standing for another type (a numeric's decimal text: 1.0 = 1.00 in PostgreSQL, not as
   * text; an interval's ISO 8601 form; a key remapped to UUIDs).
   */
  private static boolean keepsValues(ValueConversion conversion) {
    return switch (conversion) {
      case BOOL, INT64, FLOAT32, FLOAT64, NUMERIC, MONEY_NUMERIC, STRING, BYTES, DATE, TIMESTAMP,
          TIMESTAMP_WALL_CLOCK_AS_UTC, JSON, UUID_TEXT, ENUM_TEXT -> true;
      case NUMERIC_TEXT, JSON_TEXT, KEY_UUID, INTERVAL_ISO8601, TIME_TEXT, BIT_TEXT, TEXT_OUTPUT, SYNTHETIC -> false;
    };
  }

  private static Prose reason(Differs differs, ColumnRef column) {
    return switch (differs) {
      case PADDING -> Prose.of("PostgreSQL ignores the trailing blanks of character(n) values, which Spanner keeps");
      case CASE -> Prose.of("PostgreSQL compares citext values ignoring case, and Spanner does not");
      case FORM -> Prose.of("Spanner holds its values as ", column.targetType() == null ? "text" : column.targetType(),
          ", not as the " + (column.sourceType() == null ? "" : column.sourceType().display() + " ")
              + "values PostgreSQL compares");
    };
  }

  /** What GoogleSQL can compare with what: null for "anything" (unknown, NULL). */
  private static String family(SqlType type) {
    return switch (type) {
      case INT, NUMERIC, FLOAT, NUMBER -> "a number";
      case STRING -> "a STRING";
      case BOOL -> "a BOOL";
      case DATE -> "a DATE";
      case TIMESTAMP -> "a TIMESTAMP";
      case BYTES -> "BYTES";
      case OTHER -> "a JSON or ARRAY value";
      case NULL, UNKNOWN -> null;
    };
  }

  /** GoogleSQL operator precedence, loosest first, to print only the parentheses that are needed. */
  private static final int OR = 1;
  private static final int AND = 2;
  private static final int NOT = 3;
  private static final int COMPARISON = 4;
  private static final int ADDITIVE = 5;
  private static final int MULTIPLICATIVE = 6;
  private static final int UNARY = 7;
  private static final int PRIMARY = 8;

  /**
   * @param expr the translated expression
   * @param precedence the precedence of its top operator
   * @param type what is known of its type
   * @param constant true for a literal (what IN lists may hold)
   * @param arithmetic the form to use inside arithmetic when it differs (NUMERIC 'n' for an integral numeric
   *     constant that is written as a plain integer in comparisons), else null
   */
  private record Sql(SpannerExpression expr, int precedence, SqlType type, boolean constant,
      SpannerExpression arithmetic) {
    static Sql of(int precedence, SqlType type, SpannerExpression... parts) {
      return new Sql(parts.length == 1 ? parts[0] : SpannerExpression.seq(parts), precedence, type, false, null);
    }

    /** The GoogleSQL text, for reasons. */
    String text() {
      return expr.googleSql();
    }

    SpannerExpression inArithmetic() {
      return arithmetic == null ? expr : arithmetic;
    }

    /** The expression, parenthesised when its operator binds looser than {@code min}. */
    SpannerExpression at(int min) {
      return parenthesised(expr, precedence < min);
    }

    SpannerExpression arithmeticAt(int min) {
      return parenthesised(inArithmetic(), precedence < min);
    }

    static SpannerExpression parenthesised(SpannerExpression e, boolean parenthesise) {
      return parenthesise ? SpannerExpression.seq(T_OPEN, e, T_CLOSE) : e;
    }
  }

  private static final SpannerExpression T_OPEN = SpannerExpression.token("(");
  private static final SpannerExpression T_CLOSE = SpannerExpression.token(")");

  private static SpannerExpression t(String text) {
    return SpannerExpression.token(text);
  }

  private static final class CheckTranslation {
    private final SpannerLimits limits;
    private final Map<String, ColumnRef> columns;
    private final List<String> notes = new ArrayList<>();
    /** The PostgreSQL names of the columns the expression uses. */
    private final Set<String> used = new java.util.HashSet<>();

    CheckTranslation(SpannerLimits limits, Map<String, ColumnRef> columns) {
      this.limits = limits;
      this.columns = columns;
    }

    /**
     * A column reference. Its value may only be used where PostgreSQL and Spanner agree on it: a value they compare
     * differently (char(n), citext, text standing for another type) only where {@code tolerated} says the
     * difference does not matter (IS NULL; citext cast to text).
     */
    private Sql column(PgExpr.Column c, Differs... tolerated) {
      ColumnRef column = columns.get(c.name());
      if (column == null) {
        throw new Untranslatable("refers to " + c.name() + ", which is not a column of the table");
      }
      used.add(c.name());
      Differs differs = differs(column);
      if (differs != null && !List.of(tolerated).contains(differs)) {
        throw new Untranslatable(Prose.of("uses " + c.name() + ": ").plus(reason(differs, column)));
      }
      return Sql.of(PRIMARY, sqlType(column.targetType()), column.expression());
    }

    Sql translate(PgExpr e) {
      if (e instanceof PgExpr.Column c) {
        return column(c);
      }
      Constant constant = Constant.of(e);
      if (constant != null) {
        return constant(constant);
      }
      if (e instanceof PgExpr.Cast cast) {
        return castOf(cast);
      }
      if (e instanceof PgExpr.Logical l) {
        int precedence = l.operator().equals("AND") ? AND : OR;
        List<SpannerExpression> parts = new ArrayList<>();
        for (PgExpr operand : l.operands()) {
          Sql s = bool(translate(operand));
          // AND inside OR is parenthesised although it binds tighter: easier to read and review.
          parts.add(s.at(precedence + 1 + (precedence == OR && s.precedence() == AND ? 1 : 0)));
        }
        return Sql.of(precedence, SqlType.BOOL, SpannerExpression.joined(" " + l.operator() + " ", parts));
      }
      if (e instanceof PgExpr.Not n) {
        return Sql.of(NOT, SqlType.BOOL, t("NOT "), bool(translate(n.operand())).at(NOT));
      }
      if (e instanceof PgExpr.IsNull n) {
        Sql operand = n.operand() instanceof PgExpr.Column c ? column(c, Differs.values()) : translate(n.operand());
        return Sql.of(COMPARISON, SqlType.BOOL, operand.at(COMPARISON + 1), t(n.negated() ? " IS NOT NULL" : " IS NULL"));
      }
      if (e instanceof PgExpr.Compare c) {
        Sql left = translate(c.left());
        Sql right = translate(c.right());
        requireComparable(left, right);
        if (!c.operator().equals("=") && !c.operator().equals("<>")) {
          requireOrderable(left, right, c.operator());
        }
        return Sql.of(COMPARISON, SqlType.BOOL, left.at(COMPARISON + 1), t(" " + c.operator() + " "),
            right.at(COMPARISON + 1));
      }
      if (e instanceof PgExpr.Between b) {
        Sql x = translate(b.operand());
        Sql low = translate(b.low());
        Sql high = translate(b.high());
        requireComparable(x, low);
        requireComparable(x, high);
        requireOrderable(x, low, "BETWEEN");
        requireOrderable(x, high, "BETWEEN");
        return Sql.of(COMPARISON, SqlType.BOOL, x.at(COMPARISON + 1), t(b.negated() ? " NOT BETWEEN " : " BETWEEN "),
            low.at(COMPARISON + 1), t(" AND "), high.at(COMPARISON + 1));
      }
      if (e instanceof PgExpr.Quantified q) {
        boolean in = q.operator().equals("=") && q.quantifier().equals("any");
        boolean notIn = q.operator().equals("<>") && q.quantifier().equals("all");
        if (!in && !notIn) {
          throw new Untranslatable("uses " + q.operator() + " " + q.quantifier().toUpperCase(java.util.Locale.ROOT)
              + " (...), which is not translated");
        }
        return inList(translate(q.left()), arrayItems(q.array()), notIn);
      }
      if (e instanceof PgExpr.InList in) {
        List<Sql> items = new ArrayList<>();
        for (PgExpr item : in.items()) {
          items.add(translate(item));
        }
        return inList(translate(in.operand()), items, in.negated());
      }
      if (e instanceof PgExpr.Unary u) {
        Sql operand = translate(u.operand());
        requireNumeric(operand, "unary " + u.operator());
        if (!u.operator().equals("-")) {
          return operand;
        }
        // "--" would start a comment: a negative operand is parenthesised.
        SpannerExpression inner = operand.inArithmetic().googleSql().startsWith("-")
            ? Sql.parenthesised(operand.inArithmetic(), true) : operand.arithmeticAt(UNARY);
        return Sql.of(UNARY, operand.type(), t("-"), inner);
      }
      if (e instanceof PgExpr.Binary b) {
        return binary(b);
      }
      if (e instanceof PgExpr.Call c) {
        if (LENGTH_FUNCTIONS.contains(c.name()) && c.arguments().size() == 1) {
          PgExpr of = c.arguments().get(0);
          // The length of a citext value is that of its text; char(n)'s ignores the padding.
          Sql argument = of instanceof PgExpr.Column column ? column(column, Differs.CASE) : translate(of);
          if (argument.type() != SqlType.STRING && argument.type() != SqlType.UNKNOWN) {
            throw new Untranslatable("takes the length of a non-string value");
          }
          return Sql.of(PRIMARY, SqlType.INT, SpannerExpression.call(SpannerExpression.Function.CHAR_LENGTH,
              argument.expr()));
        }
        throw new Untranslatable("calls " + c.name() + "(), which is not translated");
      }
      if (e instanceof PgExpr.SqlValue v) {
        throw new Untranslatable("uses " + v.name().toUpperCase(java.util.Locale.ROOT)
            + ", which a Spanner CHECK cannot use");
      }
      if (e instanceof PgExpr.ArrayOf) {
        throw new Untranslatable("uses an ARRAY[...] outside = ANY (...), which is not translated");
      }
      throw new Untranslatable("is not understood");
    }

    private Sql constant(Constant c) {
      SpannerType.Base base = c.naturalBase();
      if (base == null) {
        return new Sql(t("NULL"), PRIMARY, SqlType.NULL, true, null);
      }
      SpannerExpression text = c.render(limits, base, false, notes);
      SqlType type = switch (base) {
        case INT64 -> SqlType.INT;
        case NUMERIC -> SqlType.NUMERIC;
        case FLOAT64, FLOAT32 -> SqlType.FLOAT;
        case STRING -> SqlType.STRING;
        case BOOL -> SqlType.BOOL;
        case DATE -> SqlType.DATE;
        case TIMESTAMP -> SqlType.TIMESTAMP;
        default -> throw new Untranslatable("uses the constant " + c.describe() + ", which a CHECK does not "
            + "translate");
      };
      if (type == SqlType.NUMERIC && c.isIntegral()) {
        // (0)::numeric compares with a NUMERIC column as plain 0 does; in arithmetic keep it NUMERIC so that,
        // e.g., an INT64 column divided by it still divides exactly.
        String plain = Long.toString(Long.parseLong(c.text().trim()));
        return new Sql(t(plain), plain.startsWith("-") ? UNARY : PRIMARY, type, true, text);
      }
      boolean negative = text.googleSql().startsWith("-");
      return new Sql(text, negative ? UNARY : PRIMARY, type, true, null);
    }

    /** A cast of a non-constant: stripped when harmless, refused when it changes the value. */
    private Sql castOf(PgExpr.Cast cast) {
      if (cast.operand() instanceof PgExpr.ArrayOf) {
        throw new Untranslatable("uses an ARRAY[...] outside = ANY (...), which is not translated");
      }
      TypeName type = cast.type();
      // Cast to text, a citext value is compared as text by PostgreSQL too (char(n) loses its padding: refused).
      Sql operand = cast.operand() instanceof PgExpr.Column c && type.category() == TypeName.Category.TEXT
          ? column(c, Differs.CASE) : translate(cast.operand());
      if (type.array()) {
        throw new Untranslatable("casts to the array type " + type + ", which is not translated");
      }
      switch (type.category()) {
        case TEXT:
          // What PostgreSQL adds to compare a varchar (or enum) column with text; Spanner holds both as STRING.
          if (type.modifiers().isEmpty() && (operand.type() == SqlType.UNKNOWN
              || operand.type() == SqlType.STRING)) {
            return new Sql(operand.expr(), operand.precedence(), SqlType.STRING, false, null);
          }
          break;
        case NUMERIC:
          // Widening an integer (or numeric) column to unconstrained numeric changes no value.
          if (type.modifiers().isEmpty() && (operand.type() == SqlType.UNKNOWN || operand.type() == SqlType.INT
              || operand.type() == SqlType.NUMERIC)) {
            return new Sql(operand.expr(), operand.precedence(), SqlType.NUMERIC, false, null);
          }
          break;
        case FLOAT:
          if (type.name().equals("double precision") && (operand.type() == SqlType.UNKNOWN
              || operand.type() == SqlType.INT || operand.type() == SqlType.FLOAT)) {
            return new Sql(operand.expr(), operand.precedence(), SqlType.FLOAT, false, null);
          }
          break;
        default:
          break;
      }
      throw new Untranslatable("casts " + operand.text() + " to " + type + ", which may change its value");
    }

    private Sql binary(PgExpr.Binary b) {
      String op = b.operator();
      switch (op) {
        case "+", "-", "*", "/" -> { }
        case "~", "~*", "!~", "!~*" -> throw new Untranslatable("uses a regular expression match (" + op
            + "), which is not translated");
        case "~~", "~~*", "!~~", "!~~*" -> throw new Untranslatable("uses LIKE pattern matching (" + op
            + "), which is not translated");
        case "||" -> throw new Untranslatable("uses string concatenation (||), which is not translated");
        case "%" -> throw new Untranslatable("uses the modulo operator (%), which is not translated");
        default -> throw new Untranslatable("uses the operator " + op + ", which is not translated");
      }
      Sql left = translate(b.left());
      Sql right = translate(b.right());
      requireNumeric(left, op);
      requireNumeric(right, op);
      SqlType type = arithmeticType(left.type(), right.type());
      if (op.equals("/") && !(left.type() == SqlType.NUMERIC || left.type() == SqlType.FLOAT
          || right.type() == SqlType.NUMERIC || right.type() == SqlType.FLOAT)) {
        // PostgreSQL's integer / integer truncates; GoogleSQL's / returns FLOAT64. Without the column types the
        // two cannot be told apart.
        throw new Untranslatable("divides values that may be integers: PostgreSQL truncates integer division and "
            + "GoogleSQL does not");
      }
      int precedence = op.equals("+") || op.equals("-") ? ADDITIVE : MULTIPLICATIVE;
      return Sql.of(precedence, type, left.arithmeticAt(precedence), t(" " + op + " "),
          right.arithmeticAt(precedence + 1));
    }

    private static SqlType arithmeticType(SqlType a, SqlType b) {
      if (a == SqlType.FLOAT || b == SqlType.FLOAT) {
        return SqlType.FLOAT;
      }
      if (a == SqlType.NUMERIC || b == SqlType.NUMERIC) {
        return SqlType.NUMERIC;
      }
      if (a == SqlType.INT && b == SqlType.INT) {
        return SqlType.INT;
      }
      return SqlType.NUMBER;
    }

    private static void requireNumeric(Sql s, String op) {
      switch (s.type()) {
        case INT, NUMERIC, FLOAT, NUMBER, UNKNOWN -> { }
        default -> throw new Untranslatable("applies " + op + " to " + s.text() + ", which is not a number");
      }
    }

    /** Both sides of a comparison must be of one kind in Spanner (PostgreSQL's types may have been mapped apart). */
    private static void requireComparable(Sql a, Sql b) {
      String left = family(a.type());
      String right = family(b.type());
      if (SqlType.OTHER == a.type() || SqlType.OTHER == b.type()) {
        throw new Untranslatable("compares " + (left == null ? right : left) + ", which is not translated");
      }
      if (left != null && right != null && !left.equals(right)) {
        throw new Untranslatable("compares " + a.text() + " with " + b.text() + ", which Spanner holds as "
            + "different types (" + left + " and " + right + ")");
      }
    }

    private static void requireOrderable(Sql a, Sql b, String op) {
      if (a.type() == SqlType.STRING || b.type() == SqlType.STRING) {
        throw new Untranslatable("orders strings (" + op + "): PostgreSQL compares them by its collation and "
            + "Spanner by code point");
      }
      if (a.type() == SqlType.BOOL || b.type() == SqlType.BOOL) {
        throw new Untranslatable("orders booleans (" + op + "), which is not translated");
      }
    }

    private static Sql bool(Sql s) {
      switch (s.type()) {
        case BOOL, UNKNOWN -> {
          return s;
        }
        default -> throw new Untranslatable("uses " + s.text() + " where a boolean is needed");
      }
    }

    /** The constant items of {@code ARRAY[...]}, {@code (ARRAY[...])::text[]} or {@code '{a,b}'::text[]}. */
    private List<Sql> arrayItems(PgExpr array) {
      PgExpr inner = array;
      if (array instanceof PgExpr.Cast cast && cast.operand() instanceof PgExpr.ArrayOf) {
        // (ARRAY['a'::character varying])::text[]: the element casts say what the values are; varchar → text
        // and int → numeric widenings of a constant list change no value.
        TypeName.Category category = cast.type().category();
        if (!cast.type().array() || !(category == TypeName.Category.TEXT || category == TypeName.Category.INTEGER
            || category == TypeName.Category.NUMERIC)) {
          throw new Untranslatable("casts an array to " + cast.type() + ", which is not translated");
        }
        inner = cast.operand();
      }
      List<Sql> items = new ArrayList<>();
      if (inner instanceof PgExpr.ArrayOf arrayOf) {
        for (PgExpr element : arrayOf.elements()) {
          items.add(translate(element));
        }
        return items;
      }
      Constant c = Constant.of(inner);
      if (c == null || c.cast() == null || !c.cast().array() || c.kind() != PgExpr.LiteralKind.STRING) {
        throw new Untranslatable("compares with = ANY (...) over something other than a constant array");
      }
      for (String element : c.arrayElements()) {
        items.add(element == null ? constant(new Constant(PgExpr.LiteralKind.NULL, "NULL", null))
            : constant(new Constant(PgExpr.LiteralKind.STRING, element, c.elementCast())));
      }
      return items;
    }

    private Sql inList(Sql operand, List<Sql> items, boolean negated) {
      if (items.isEmpty()) {
        throw new Untranslatable("compares with an empty list, which GoogleSQL cannot write as IN ()");
      }
      List<SpannerExpression> constants = new ArrayList<>();
      for (Sql item : items) {
        if (!item.constant()) {
          throw new Untranslatable("has a non-constant item " + item.text() + " in an IN list");
        }
        requireComparable(operand, item);
        constants.add(item.expr());
      }
      return Sql.of(COMPARISON, SqlType.BOOL, operand.at(COMPARISON + 1), t(negated ? " NOT IN (" : " IN ("),
          SpannerExpression.joined(", ", constants), T_CLOSE);
    }
  }
}
