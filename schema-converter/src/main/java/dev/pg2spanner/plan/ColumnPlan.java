package dev.pg2spanner.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
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
 * @param uuidNamespace for {@link ValueConversion#KEY_UUID} only: the namespace UUID the values are mapped in (one
 *     per remapped key, shared by every column that references it); else null
 */
@JsonPropertyOrder({"source", "sourceType", "target", "targetType", "notNull", "conversion", "uuidNamespace",
    "defaultExpression", "generatedExpression"})
public record ColumnPlan(
    String source,
    String sourceType,
    String target,
    String targetType,
    boolean notNull,
    ValueConversion conversion,
    String defaultExpression,
    String generatedExpression,
    @JsonInclude(JsonInclude.Include.NON_NULL) String uuidNamespace) {

  @JsonCreator
  public ColumnPlan {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(targetType, "targetType");
    Objects.requireNonNull(conversion, "conversion");
  }

  /** A column without a {@code uuidNamespace} (every conversion but {@link ValueConversion#KEY_UUID}). */
  public ColumnPlan(String source, String sourceType, String target, String targetType, boolean notNull,
      ValueConversion conversion, String defaultExpression, String generatedExpression) {
    this(source, sourceType, target, targetType, notNull, conversion, defaultExpression, generatedExpression, null);
  }

  /** True when the loader reads this column from the source and writes it. */
  public boolean isLoaded() {
    return source != null && generatedExpression == null && conversion != ValueConversion.SYNTHETIC;
  }
}
