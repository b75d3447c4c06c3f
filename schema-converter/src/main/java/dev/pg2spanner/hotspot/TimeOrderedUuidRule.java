package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * UUIDs of versions 1, 6 and 7 carry a timestamp in their leading (v6, v7) or scrambled (v1) bits; v6 and v7 sort
 * by creation time, and v1 values generated on one host cluster too. Judged from sampled values: most of them
 * must be of a time-ordered version. Random (v4) UUIDs are the cure, not the disease.
 */
public final class TimeOrderedUuidRule implements MonotonicRule {

  private static final Pattern UUID = Pattern.compile(
      "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
  /** Share of sampled values that must be time-ordered versions. */
  static final double MIN_SHARE = 0.9;

  @Override
  public Optional<Monotonicity> detect(PgCatalog catalog, PgTable table, PgColumn column, KeySample sample) {
    List<Object> values = sample.values(column.name());
    Map<Integer, Integer> versions = new TreeMap<>();
    int uuids = 0;
    for (Object v : values) {
      if (v instanceof String s && UUID.matcher(s).matches()) {
        uuids++;
        versions.merge(Character.digit(s.charAt(14), 16), 1, Integer::sum);
      }
    }
    if (uuids < 10 || uuids < values.size() * MIN_SHARE) {
      return Optional.empty();
    }
    int timeOrdered = versions.getOrDefault(1, 0) + versions.getOrDefault(6, 0) + versions.getOrDefault(7, 0);
    if (timeOrdered < uuids * MIN_SHARE) {
      return Optional.empty();
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    Map<String, Object> histogram = new TreeMap<>();
    versions.forEach((version, count) -> histogram.put("v" + version, count));
    evidence.put("sampledVersions", histogram);
    evidence.put("sampled", uuids);
    int dominant = versions.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    return Optional.of(new Monotonicity(column.name(), Monotonicity.Cause.TIME_ORDERED_UUID, false, evidence,
        column.name() + " holds version-" + dominant + " UUIDs (" + timeOrdered + " of " + uuids + " sampled values "
            + "are v1/v6/v7), which begin with their creation time, so new values sort after the old ones."));
  }
}
