package dev.pg2spanner.plan;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * One Spanner column and where its values come from.
 *
 * @param source the source column name, or null for a column the plan adds (shard, synthetic key)
 * @param sourceType the source type as PostgreSQL prints it ({@code format_type}), or null for added columns
 * @param target the Spanner column name
 * @param targetType the Spanner type as DDL writes it, e.g. "STRING(255)", "ARRAY<INT64>"
 * @param notNull NOT NULL
 * @param conversion how each value (each element, for arrays) is converted
 * @param defaultExpression the Spanner DEFAULT expression, or null
 * @param generatedExpression the expression of a STORED generated column, or null (such columns are never
 *     written by the loader)
 */
@JsonPropertyOrder({"source", "sourceType", "target", "targetType", "notNull", "conversion", "defaultExpression",
    "generatedExpression"})
public record ColumnPlan(
    String source,
    String sourceType,
    String target,
    String targetType,
    boolean notNull,
    ValueConversion conversion,
    String defaultExpression,
    String generatedExpression) {

  public ColumnPlan {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(targetType, "targetType");
    Objects.requireNonNull(conversion, "conversion");
  }

  /** True when the loader reads this column from the source and writes it. */
  public boolean isLoaded() {
    return source != null && generatedExpression == null && conversion != ValueConversion.SYNTHETIC;
  }
}
