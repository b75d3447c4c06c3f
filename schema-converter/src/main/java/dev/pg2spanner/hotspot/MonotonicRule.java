package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import java.util.Optional;

/** One way to tell that a column's values arrive in order. A pure function of catalog facts and sampled values. */
@FunctionalInterface
public interface MonotonicRule {

  /**
   * @param sample the column's values in arrival order (possibly empty when not sampled)
   * @return the evidence, or empty when this rule finds none
   */
  Optional<Monotonicity> detect(PgCatalog catalog, PgTable table, PgColumn column, KeySample sample);
}
