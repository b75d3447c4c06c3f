/**
 * What a running {@code migrate} tells a monitoring system: {@link dev.pg2spanner.metrics.RunMetrics} holds the
 * meters (Micrometer, named by Prometheus's rules), {@link dev.pg2spanner.metrics.MetricsServer} serves them at
 * {@code /metrics} in the Prometheus text format, and {@link dev.pg2spanner.metrics.MonitorOptions} is what the
 * command line asked for (the port, and the slot-WAL limits a live run warns and stops at).
 */
package dev.pg2spanner.metrics;
