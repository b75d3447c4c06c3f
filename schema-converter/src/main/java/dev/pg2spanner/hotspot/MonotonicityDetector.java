package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import java.util.List;
import java.util.Optional;

/** Runs the rules in order of strength; the first that finds evidence wins. */
public final class MonotonicityDetector {

  private static final List<MonotonicRule> RULES = List.of(new SequenceRule(), new TemporalKeyRule(),
      new TimeOrderedUuidRule(), new TimeEncodedIdRule(), new CorrelatedValuesRule());

  private MonotonicityDetector() {}

  public static Optional<Monotonicity> detect(PgCatalog catalog, PgTable table, PgColumn column, KeySample sample) {
    for (MonotonicRule rule : RULES) {
      Optional<Monotonicity> found = rule.detect(catalog, table, column, sample);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }
}
