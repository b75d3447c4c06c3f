package dev.pg2spanner.mapping;

import dev.pg2spanner.plan.ValueConversion;
import java.util.Objects;

/**
 * What the load's own converter made of one column's values when {@code plan} ran it over them (the planner's
 * {@code ValueProbe}): how many values it refused as a draft of the plan would load them, and the first one with the
 * loader's reason. The planner keeps a column's type only when nothing was refused; else it chooses the type that
 * keeps the data ({@link TypeMapper#afterProbe}).
 *
 * @param column the source column (never null)
 * @param conversion the conversion tried (never null)
 * @param targetType the Spanner type tried, as the draft plan spells it in its dialect (never null)
 * @param array true when the type tried is an ARRAY
 * @param rowsExamined rows read
 * @param sampled true when the table has more rows than the probe reads, so a sample was read
 * @param refused values the converter refused
 * @param firstValue an excerpt of the first refused value, or null when none was refused
 * @param firstReason the loader's reason for refusing it (as the dead-letter file would state it), or null
 */
public record ProbedValues(String column, ValueConversion conversion, String targetType, boolean array,
    long rowsExamined, boolean sampled, long refused, String firstValue, String firstReason) {

  public ProbedValues {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(conversion, "conversion");
    Objects.requireNonNull(targetType, "targetType");
    if (refused < 0 || rowsExamined < 0) {
      throw new IllegalArgumentException("negative counts for column " + column);
    }
  }

  /** True when this is what the converter did with the values as {@code mapping} would load them. */
  public boolean tried(TypeMapping mapping) {
    return conversion == mapping.conversion() && array == mapping.target().isArray();
  }
}
