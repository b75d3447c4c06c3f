package dev.pg2spanner.plan;

import dev.pg2spanner.spanner.SpannerDialect;

/**
 * An expression a key strategy gives a column, as a typed value that prints itself per dialect: a shard column's
 * {@link HashShard}, or a {@link KeyDefault} (a new row's random UUID, a bit-reversed sequence's next value). The
 * planner decides it once and writes its GoogleSQL text; the PostgreSQL-dialect plan prints the same value in that
 * dialect, so no code reads the planner's own expression text back. (Not sealed: a permits clause would make this
 * type depend on its implementations.)
 */
public interface KeyExpression {

  /** The expression's text in {@code dialect}. */
  String expression(SpannerDialect dialect);
}
