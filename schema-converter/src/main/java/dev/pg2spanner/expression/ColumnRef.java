package dev.pg2spanner.expression;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.spanner.SpannerType;
import java.util.Objects;

/**
 * A column an expression may refer to, as the translator needs it: how GoogleSQL writes it and what it holds on
 * both sides, so that the translation can refuse what the two databases would evaluate differently.
 *
 * @param sql the column as GoogleSQL writes it: a quoted Spanner column name, or a template placeholder such as
 *     {@code {col}} for a domain's VALUE; not null
 * @param sourceType the PostgreSQL type, or null when unknown
 * @param targetType the Spanner type, or null when unknown
 * @param conversion how the loader turns the PostgreSQL value into the Spanner one, or null when unknown
 */
public record ColumnRef(String sql, PgType sourceType, SpannerType targetType, ValueConversion conversion) {

  public ColumnRef {
    Objects.requireNonNull(sql, "sql");
  }

  /** A Spanner column by its (unquoted) name, quoted here as GoogleSQL needs. */
  public static ColumnRef named(String spannerName, PgType sourceType, SpannerType targetType,
      ValueConversion conversion) {
    return new ColumnRef(SpannerNames.quote(spannerName), sourceType, targetType, conversion);
  }
}
