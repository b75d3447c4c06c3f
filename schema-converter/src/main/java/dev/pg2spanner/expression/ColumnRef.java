package dev.pg2spanner.expression;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerType;
import java.util.Objects;

/**
 * A column an expression may refer to, as the translator needs it: the Spanner column it writes and what it holds on
 * both sides, so that the translation can refuse what the two databases would evaluate differently.
 *
 * @param expression the column as the translated expression reads it: a Spanner column
 *     ({@link SpannerExpression#column}), or the placeholder a domain's VALUE stands for
 *     ({@link SpannerExpression#placeholder}); not null
 * @param sourceType the PostgreSQL type, or null when unknown
 * @param targetType the Spanner type, or null when unknown
 * @param conversion how the loader turns the PostgreSQL value into the Spanner one, or null when unknown
 */
public record ColumnRef(SpannerExpression expression, PgType sourceType, SpannerType targetType,
    ValueConversion conversion) {

  public ColumnRef {
    Objects.requireNonNull(expression, "expression");
  }

  /** A Spanner column by its (unquoted) name; each dialect quotes it as it needs. */
  public static ColumnRef named(String spannerName, PgType sourceType, SpannerType targetType,
      ValueConversion conversion) {
    return new ColumnRef(SpannerExpression.column(spannerName), sourceType, targetType, conversion);
  }

  /** The column a template is written for (a domain's VALUE), filled in by {@link SpannerExpression#withColumn}. */
  public static ColumnRef placeholder(PgType sourceType, SpannerType targetType, ValueConversion conversion) {
    return new ColumnRef(SpannerExpression.placeholder(), sourceType, targetType, conversion);
  }
}
