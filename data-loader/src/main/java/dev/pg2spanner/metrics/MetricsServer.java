package dev.pg2spanner.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves a run's metrics at {@code http://HOST:PORT/metrics} in the Prometheus text format, with the JDK's own HTTP
 * server (one thread: a scrape every few seconds needs no more). Bound to 127.0.0.1 unless the operator names
 * another address: the figures name tables and slots, so they are not offered to the network by default.
 */
public final class MetricsServer implements AutoCloseable {

  /** The content type of Prometheus's text exposition format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private MetricsServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Starts serving.
   *
   * @param port the port; 0 picks a free one ({@link #port()} says which)
   * @throws Pg2SpannerException LOCAL_IO when the address cannot be bound (port in use, unknown host), before the run
   *     changes anything
   */
  public static MetricsServer start(String host, int port, RunMetrics metrics) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException | RuntimeException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot serve metrics on " + host + ":" + port + " ("
          + e.getMessage() + "); choose another --metrics-port (or --metrics-host), or free that port. Nothing was "
          + "changed", e);
    }
    server.createContext("/metrics", exchange -> respond(exchange, metrics));
    server.createContext("/", exchange -> {
      byte[] body = "pg2spanner: metrics are at /metrics\n".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      exchange.sendResponseHeaders(404, body.length);
      try (OutputStream o = exchange.getResponseBody()) {
        o.write(body);
      }
    });
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pg2spanner-metrics");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.start();
    return new MetricsServer(server, executor);
  }

  private static void respond(HttpExchange exchange, RunMetrics metrics) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      if ("HEAD".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream o = exchange.getResponseBody()) {
        o.write(body);
      }
    }
  }

  /** The port served on. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** "http://127.0.0.1:9464/metrics". */
  public String url() {
    String host = server.getAddress().getHostString();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + "/metrics";
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
