package dev.pg2spanner.planner;

import dev.pg2spanner.expression.SpannerExpression;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The typed expressions the planner wrote for one table, by Spanner name: each column's translated DEFAULT and
 * generated expression, each CHECK (the table's own and its types'). The plan holds their text; these are what
 * {@link PostgresDialectPlan} prints in that dialect and what {@link UuidRemapKey} asks which columns an expression
 * reads, so no code reads the planner's text back. The key design's own expressions (shard columns, key defaults)
 * are {@link dev.pg2spanner.plan.KeyExpression}s and are not here.
 */
final class TableExpressions {

  private final Map<String, SpannerExpression> defaults = new LinkedHashMap<>();
  private final Map<String, SpannerExpression> generated = new LinkedHashMap<>();
  private final Map<String, SpannerExpression> checks = new LinkedHashMap<>();

  void putDefault(String column, SpannerExpression e) {
    defaults.put(column, e);
  }

  void putGenerated(String column, SpannerExpression e) {
    generated.put(column, e);
  }

  void putCheck(String check, SpannerExpression e) {
    checks.put(check, e);
  }

  /** The DEFAULT the planner wrote for {@code column}. */
  SpannerExpression defaultOf(String table, String column) {
    return require(defaults, table, column, "default");
  }

  /** The generated expression the planner wrote for {@code column}. */
  SpannerExpression generatedOf(String table, String column) {
    return require(generated, table, column, "generated expression");
  }

  /** The CHECK the planner wrote under the Spanner name {@code check}. */
  SpannerExpression checkOf(String table, String check) {
    return require(checks, table, check, "check");
  }

  private static SpannerExpression require(Map<String, SpannerExpression> map, String table, String name,
      String what) {
    SpannerExpression e = map.get(name);
    if (e == null) {
      // Every expression a table plan holds was written by the planner, which records it here.
      throw new IllegalStateException("no typed " + what + " for " + table + "." + name);
    }
    return e;
  }
}
