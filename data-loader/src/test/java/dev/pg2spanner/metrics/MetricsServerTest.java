package dev.pg2spanner.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class MetricsServerTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void servesTheRegistryInThePrometheusTextFormatOnLocalhost() throws Exception {
    RunMetrics metrics = new RunMetrics();
    RunMetrics.LoadTable t = metrics.loadTable("orders", 4);
    try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics)) {
      assertThat(server.url()).startsWith("http://127.0.0.1:").endsWith("/metrics");
      t.rows().increment(1234);
      metrics.phase(RunMetrics.Phase.LOAD);
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.url())).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).contains(MetricsServer.CONTENT_TYPE);
      assertThat(r.body()).contains("pg2spanner_load_rows_total{table=\"orders\"} 1234.0")
          .contains("pg2spanner_run_phase{phase=\"load\"} 1.0")
          .contains("pg2spanner_run_phase{phase=\"starting\"} 0.0");
      HttpResponse<String> other = HTTP.send(HttpRequest.newBuilder(URI.create(server.url().replace("/metrics",
          "/other"))).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(other.statusCode()).isEqualTo(404);
    }
  }

  @Test
  void aPortInUseIsALocalErrorThatNamesTheOption() {
    try (MetricsServer first = MetricsServer.start("127.0.0.1", 0, new RunMetrics())) {
      assertThatThrownBy(() -> MetricsServer.start("127.0.0.1", first.port(), new RunMetrics()))
          .isInstanceOf(Pg2SpannerException.class)
          .satisfies(e -> assertThat(((Pg2SpannerException) e).code()).isEqualTo(ExitCode.LOCAL_IO))
          .hasMessageContaining("127.0.0.1:" + first.port()).hasMessageContaining("--metrics-port");
    }
  }
}
