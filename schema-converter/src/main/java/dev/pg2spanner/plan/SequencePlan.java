package dev.pg2spanner.plan;

import java.util.List;
import java.util.Objects;

/**
 * A Spanner {@code bit_reversed_positive} sequence that replaces a PostgreSQL sequence for new rows.
 *
 * @param source the PostgreSQL sequence, "schema.name"
 * @param target the Spanner sequence name
 * @param skipRangeMin the first id new rows must not take (covers every migrated id)
 * @param skipRangeMax the last id new rows must not take
 * @param usedBy the target "table.column"s whose DEFAULT draws from it (shared when PostgreSQL shared it)
 */
public record SequencePlan(String source, String target, long skipRangeMin, long skipRangeMax, List<String> usedBy) {
  public SequencePlan {
    Objects.requireNonNull(target, "target");
    usedBy = List.copyOf(usedBy);
    if (skipRangeMin > skipRangeMax) {
      throw new IllegalArgumentException("sequence " + target + ": skipRangeMin " + skipRangeMin
          + " is above skipRangeMax " + skipRangeMax);
    }
  }
}
