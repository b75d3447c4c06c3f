package dev.pg2spanner.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The Flink cluster named by {@code --flink-master}, asked before anything starts or changes on the target: the Flink
 * client only finds an unreachable JobManager after retrying for about a minute and a half, after the schema phase,
 * and then fails with "Pipeline execution failed". Its REST API's {@code GET /config} answers with the cluster's
 * {@code flink-version}.
 */
final class FlinkMaster {

  /** The Flink version whose client this build submits with (beam-runners-flink-1.19). */
  static final String CLIENT_MINOR = "1.19";

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  private FlinkMaster() {}

  /**
   * The cluster's Flink version.
   *
   * @param hostPort the JobManager's REST address, HOST:PORT
   * @throws Pg2SpannerException (ENVIRONMENT) when nothing answers there in time, or something that is not Flink's
   *     REST API does
   */
  static String requireReachable(String hostPort) {
    String next = "; start the cluster or correct --flink-master (the JobManager's REST address, e.g. "
        + "flink-jm:8081), or leave it out to run on Flink's embedded local cluster. Nothing was changed on the "
        + "target.";
    HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + hostPort + "/config")).timeout(TIMEOUT)
        .GET().build();
    HttpResponse<String> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.ENVIRONMENT, "cannot reach the Flink JobManager at " + hostPort + " ("
          + describe(e) + ")" + next, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.ENVIRONMENT, "interrupted while asking the Flink JobManager at "
          + hostPort + next, e);
    }
    Optional<String> version = version(response.statusCode(), response.body());
    if (version.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.ENVIRONMENT, hostPort + " answers, but not as a Flink JobManager's REST "
          + "API (GET /config gave HTTP " + response.statusCode() + " without a flink-version)" + next);
    }
    return version.get();
  }

  /** The flink-version of a {@code GET /config} answer, if it is one. */
  static Optional<String> version(int status, String body) {
    if (status != 200 || body == null) {
      return Optional.empty();
    }
    try {
      JsonNode version = JSON.readTree(body).path("flink-version");
      return version.isTextual() && !version.asText().isBlank() ? Optional.of(version.asText()) : Optional.empty();
    } catch (IOException e) {
      // Not JSON: an HTTP server that is not Flink's REST API.
      return Optional.empty();
    }
  }

  /** A warning when the cluster's minor version differs from the client's, which Flink does not promise to accept. */
  static Optional<String> versionWarning(String hostPort, String clusterVersion) {
    if (clusterVersion.equals(CLIENT_MINOR) || clusterVersion.startsWith(CLIENT_MINOR + ".")) {
      return Optional.empty();
    }
    return Optional.of("warning: the Flink cluster at " + hostPort + " runs Flink " + clusterVersion + "; pg2spanner "
        + "submits with Flink " + CLIENT_MINOR + "'s client, and a job submitted across minor versions may fail");
  }

  private static String describe(IOException e) {
    String message = e.getMessage();
    if (e instanceof java.net.http.HttpConnectTimeoutException) {
      return "no answer within " + TIMEOUT.toSeconds() + " s";
    }
    if (e instanceof java.net.ConnectException) {
      return "connection refused";
    }
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
