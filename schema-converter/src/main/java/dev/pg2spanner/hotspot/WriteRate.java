package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgTableStats;
import java.time.Duration;
import java.time.Instant;

/**
 * A table's average insert rate over the statistics window ({@code n_tup_ins} since the counters were reset).
 *
 * @param inserts rows inserted in the window, or null when unknown
 * @param window how long the counters have been counting, or null when unknown
 */
public record WriteRate(Long inserts, Duration window) {

  /** Shorter windows say too little about a table's normal load to justify keeping a monotonic key. */
  public static final Duration MIN_TRUSTED_WINDOW = Duration.ofHours(24);

  public static WriteRate of(PgTableStats stats, Instant now) {
    if (stats.inserts() == null || stats.statsSince() == null || stats.statsSince().isAfter(now)) {
      return new WriteRate(stats.inserts(), null);
    }
    return new WriteRate(stats.inserts(), Duration.between(stats.statsSince(), now));
  }

  /** True when the window is long enough to judge the table's write load. */
  public boolean trusted() {
    return inserts != null && window != null && window.compareTo(MIN_TRUSTED_WINDOW) >= 0;
  }

  /** Average inserts per second over the window, or NaN when unknown. */
  public double insertsPerSecond() {
    if (inserts == null || window == null || window.isZero()) {
      return Double.NaN;
    }
    return inserts / (window.toMillis() / 1000.0);
  }

  /** E.g. "0.02 inserts/s over 3 days" or "unknown (statistics cover 2 hours)". */
  public String describe() {
    if (inserts == null || window == null) {
      return "unknown (no activity statistics)";
    }
    String span = window.toDays() >= 2 ? window.toDays() + " days" : window.toHours() >= 2 ? window.toHours()
        + " hours" : Math.max(1, window.toMinutes()) + " minutes";
    String rate = String.format(java.util.Locale.ROOT, "%.3g inserts/s over %s (%d rows)", insertsPerSecond(), span,
        inserts);
    return trusted() ? rate : rate + "; too short a window to judge the table's write load (at least "
        + MIN_TRUSTED_WINDOW.toHours() + " hours needed)";
  }
}
