package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code --flink-master} is asked before anything starts: a clear error for what is not a reachable JobManager. */
class FlinkMasterTest {

  private static HttpServer serve(int status, String body) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
    return server;
  }

  private static String hostPort(HttpServer server) {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  @Test
  void aJobManagerAnswersWithItsVersion() throws Exception {
    HttpServer server = serve(200, "{\"refresh-interval\":3000,\"timezone-name\":\"UTC\",\"flink-version\":\"1.19.1\","
        + "\"flink-revision\":\"abc\"}");
    try {
      assertThat(FlinkMaster.requireReachable(hostPort(server))).isEqualTo("1.19.1");
      assertThat(FlinkMaster.versionWarning(hostPort(server), "1.19.1")).isEmpty();
      assertThat(FlinkMaster.versionWarning(hostPort(server), "1.20.0")).get().asString()
          .contains("runs Flink 1.20.0").contains("1.19");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aClosedPortIsNamedWithTheWayOn() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    assertThatThrownBy(() -> FlinkMaster.requireReachable("127.0.0.1:" + port))
        .isInstanceOf(Pg2SpannerException.class)
        .satisfies(e -> assertThat(((Pg2SpannerException) e).code()).isEqualTo(ExitCode.ENVIRONMENT))
        .hasMessageContaining("cannot reach the Flink JobManager at 127.0.0.1:" + port)
        .hasMessageContaining("--flink-master").hasMessageContaining("Nothing was changed on the target");
  }

  @Test
  void somethingElseAnsweringIsNotTakenForFlink() throws Exception {
    HttpServer server = serve(404, "<html>not here</html>");
    try {
      assertThatThrownBy(() -> FlinkMaster.requireReachable(hostPort(server)))
          .isInstanceOf(Pg2SpannerException.class)
          .hasMessageContaining("not as a Flink JobManager's REST API (GET /config gave HTTP 404");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void onlyAJsonAnswerWithAFlinkVersionIsFlinks() {
    // A nested or escaped "flink-version" inside another value is not the answer's own.
    assertThat(FlinkMaster.version(200, "{\"note\": \"{\\\"flink-version\\\": \\\"9.9\\\"}\"}")).isEmpty();
    assertThat(FlinkMaster.version(200, "{\"x\": {\"flink-version\": \"9.9\"}}")).isEmpty();
    assertThat(FlinkMaster.version(200, "{\"flink-version\" : \"1.19.0\"}")).contains("1.19.0");
    assertThat(FlinkMaster.version(200, "{\"flink-version\": 1.19}")).as("not a string").isEmpty();
    assertThat(FlinkMaster.version(200, "flink-version: 1.19")).as("not JSON").isEmpty();
    assertThat(FlinkMaster.version(500, "{\"flink-version\": \"1.19.0\"}")).isEmpty();
  }
}
