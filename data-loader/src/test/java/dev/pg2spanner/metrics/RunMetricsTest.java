package dev.pg2spanner.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class RunMetricsTest {

  /** A run with every meter registered: a load, commits of both stages, a live stream, limits, verification. */
  static RunMetrics everyMeter() {
    RunMetrics m = new RunMetrics();
    RunMetrics.LoadTable t = m.loadTable("orders", 3);
    t.rows().increment(10);
    t.bytes().increment(2048);
    t.rejected().increment();
    t.piecesDone().increment();
    m.commits("load").committed(5_000_000);
    m.commits("live").retried();
    Map<String, java.util.function.LongSupplier> kinds = new LinkedHashMap<>();
    kinds.put("insert", () -> 7);
    kinds.put("update", () -> 2);
    m.live(new RunMetrics.LiveCounts(kinds, () -> 4, () -> 0));
    m.liveReport(1234, 1.5, 4096L, 12);
    m.slotWalLimits(1L << 30, 2L << 30);
    m.slotWalOverMax(true);
    m.verification(List.of("orders"), table -> 42, table -> 3, () -> 0);
    m.schemaChangeApplied();
    return m;
  }

  @Test
  void namesFollowPrometheusRules() {
    Map<String, String> types = families(everyMeter().scrape());
    assertThat(types).isNotEmpty();
    types.forEach((name, type) -> {
      assertThat(name).as(name).startsWith("pg2spanner_").matches("[a-z0-9_]+");
      if (type.equals("counter")) {
        assertThat(name).as(name).endsWith("_total");
      }
    });
    assertThat(types).containsEntry("pg2spanner_load_rows_total", "counter")
        .containsEntry("pg2spanner_load_bytes_total", "counter")
        .containsEntry("pg2spanner_live_lag_seconds", "gauge")
        .containsEntry("pg2spanner_live_lag_bytes", "gauge")
        .containsEntry("pg2spanner_slot_wal_retained_bytes", "gauge");
  }

  @Test
  void valuesArriveAsRecorded() {
    String text = everyMeter().scrape();
    assertThat(text).contains("pg2spanner_load_rows_total{table=\"orders\"} 10.0")
        .contains("pg2spanner_load_bytes_total{table=\"orders\"} 2048.0")
        .contains("pg2spanner_live_changes_applied_total{kind=\"insert\"} 7.0")
        .contains("pg2spanner_live_lag_bytes 1234.0")
        .contains("pg2spanner_slot_wal_over_max 1.0")
        .contains("pg2spanner_slot_wal_limit_bytes{limit=\"stop\"} " + (double) (2L << 30))
        .contains("pg2spanner_live_verified_position_bytes{table=\"orders\"} 42.0")
        .contains("pg2spanner_commit_seconds_count{stage=\"load\"} 1");
  }

  /** README's metrics table lists exactly the meters registered, with their types and labels. */
  @Test
  void theReadmeTableListsEveryMeterWithItsTypeAndLabels() throws Exception {
    String scrape = everyMeter().scrape();
    Map<String, String> registered = new TreeMap<>();
    families(scrape).forEach((name, type) -> registered.put(name, type + " | " + labels(scrape, name)));

    String readme = Files.readString(Path.of("..", "README.md"));
    int section = readme.indexOf("\n#### Metrics\n");
    assertThat(section).as("README.md has a '#### Metrics' section").isNotNegative();
    int end = readme.indexOf("\n#", section + 1);
    Map<String, String> documented = new TreeMap<>();
    Matcher row = Pattern.compile("(?m)^\\| `(pg2spanner_[a-z_]+)` \\| (\\w+) \\| ([^|]*) \\| .+ \\|$")
        .matcher(readme.substring(section, end));
    while (row.find()) {
      String labels = row.group(3).trim().replace("`", "");
      documented.put(row.group(1), row.group(2) + " | " + (labels.equals("-") ? "" : labels));
    }
    assertThat(documented).isEqualTo(registered);
  }

  /** Family name → type, from the {@code # TYPE} lines. */
  static Map<String, String> families(String scrape) {
    Map<String, String> types = new TreeMap<>();
    Matcher m = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$").matcher(scrape);
    while (m.find()) {
      types.put(m.group(1), m.group(2));
    }
    return types;
  }

  /** The label names of a family's samples, sorted, comma-separated ("" for none). */
  static String labels(String scrape, String family) {
    TreeSet<String> names = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(family) + "(?:_count|_sum|_max)?\\{([^}]*)\\}").matcher(scrape);
    while (m.find()) {
      for (String pair : m.group(1).split(",")) {
        if (!pair.isBlank()) {
          names.add(pair.substring(0, pair.indexOf('=')).trim());
        }
      }
    }
    return String.join(", ", new ArrayList<>(names));
  }

  /**
   * A live run opens a new session after each reconnect, and each binds the slot-WAL limits again: Micrometer warned
   * "This Gauge has been already registered ..., the registration will be ignored" on every reconnect.
   */
  @Test
  void theSlotWalLimitsBoundAgainOnAReconnectAreNotRegisteredTwice() {
    // Micrometer logs through JUL here (no SLF4J provider on this module's test classpath); it warns once, then
    // logs at debug level: every level is captured.
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger("io.micrometer.core.instrument.MeterRegistry");
    List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Handler capture = new java.util.logging.Handler() {
      @Override
      public void publish(java.util.logging.LogRecord r) {
        logged.add(String.valueOf(r.getMessage()));
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    capture.setLevel(java.util.logging.Level.ALL);
    java.util.logging.Level was = logger.getLevel();
    logger.setLevel(java.util.logging.Level.ALL);
    logger.addHandler(capture);
    try {
      RunMetrics m = new RunMetrics();
      m.slotWalLimits(1L << 30, 2L << 30);
      m.slotWalLimits(1L << 30, 2L << 30); // the session after a reconnect
      assertThat(m.scrape()).contains("pg2spanner_slot_wal_limit_bytes{limit=\"max\"} 1.073741824E9")
          .contains("pg2spanner_slot_wal_limit_bytes{limit=\"stop\"} 2.147483648E9");
      assertThat(logged).noneMatch(line -> line.contains("already registered"));
    } finally {
      logger.removeHandler(capture);
      logger.setLevel(was);
    }
  }
}
