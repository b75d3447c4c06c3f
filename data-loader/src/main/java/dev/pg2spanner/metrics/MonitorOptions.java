package dev.pg2spanner.metrics;

/**
 * How a run is watched, parsed once by the CLI.
 *
 * @param metricsHost the address {@code /metrics} is served on (127.0.0.1 unless told otherwise)
 * @param metricsPort the port, or null to serve no metrics
 * @param maxSlotWalBytes with {@code --live}: above this much WAL held by the slot, warn (log, metric, status); null
 *     never
 * @param stopSlotWalBytes with {@code --live}: above this, stop streaming and print the drop command; null never
 */
public record MonitorOptions(String metricsHost, Integer metricsPort, Long maxSlotWalBytes, Long stopSlotWalBytes) {

  /** No metrics served, no slot-WAL limits. */
  public static final MonitorOptions NONE = new MonitorOptions("127.0.0.1", null, null, null);

  public MonitorOptions {
    if (metricsHost == null || metricsHost.isBlank()) {
      metricsHost = "127.0.0.1";
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65_535)) {
      throw new IllegalArgumentException("metricsPort must be 0..65535, was " + metricsPort);
    }
    if (maxSlotWalBytes != null && maxSlotWalBytes <= 0) {
      throw new IllegalArgumentException("maxSlotWalBytes must be positive");
    }
    if (stopSlotWalBytes != null && stopSlotWalBytes <= 0) {
      throw new IllegalArgumentException("stopSlotWalBytes must be positive");
    }
  }

  /** True when a slot-WAL limit is set. */
  public boolean limitsSlotWal() {
    return maxSlotWalBytes != null || stopSlotWalBytes != null;
  }
}
