package dev.pg2spanner.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster's configuration and its pid-file bookkeeping, without starting Flink (FlinkClusterIT does). */
class FlinkSessionClusterTest {

  @Test
  void stopEndsOnlyProcessesStartedForThatDirectory(@TempDir Path dir) throws Exception {
    // A live process that is not the cluster's (a reused pid): its command line does not name dir/NAME/conf.
    Process stranger = new ProcessBuilder("sleep", "60").start();
    try {
      Files.writeString(dir.resolve("taskmanager-1.pid"), stranger.pid() + "\n");
      Files.writeString(dir.resolve("jobmanager.pid"), ProcessHandle.current().pid() + "\n");

      assertThat(FlinkSessionCluster.stop(dir)).isEmpty();

      assertThat(stranger.isAlive()).isTrue();
      assertThat(dir.resolve("taskmanager-1.pid")).doesNotExist();
    } finally {
      stranger.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void stopEndsAProcessThatNamesTheDirectorysConfiguration(@TempDir Path dir) throws Exception {
    Path conf = dir.resolve("taskmanager-1").resolve("conf");
    Process member = new ProcessBuilder("sh", "-c", "sleep 60; : " + conf).start();
    Files.writeString(dir.resolve("taskmanager-1.pid"), member.pid() + "\n");

    assertThat(FlinkSessionCluster.stop(dir)).extracting(FlinkSessionCluster.Member::name)
        .containsExactly("taskmanager-1");

    assertThat(member.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aClusterThatCannotStartIsStoppedAndNamesItsLog(@TempDir Path dir) {
    // No Flink on this class path: the JobManager's JVM exits at once.
    assertThatThrownBy(() -> FlinkSessionCluster.start(dir, dir.toString(), 1, 1, 0, true, Duration.ofMinutes(1)))
        .isInstanceOf(IOException.class).hasMessageContaining("exited while the cluster was starting")
        .hasMessageContaining(dir.resolve("jobmanager").resolve("jobmanager.log").toString());
    assertThat(FlinkSessionCluster.runningMembers(dir)).isEmpty();
    assertThat(dir.resolve("jobmanager.pid")).doesNotExist();
  }

  @Test
  void configurationBindsToLoopbackAndSetsTheRestartStrategy() {
    String withRestarts = FlinkSessionCluster.configuration(8081, 6123, 2, 3, Path.of("/tmp/x"));
    assertThat(withRestarts).contains("rest.port: 8081\n", "jobmanager.rpc.port: 6123\n",
        "rest.bind-address: 127.0.0.1\n", "taskmanager.numberOfTaskSlots: 2\n", "taskmanager.cpu.cores: 2.0\n",
        "restart-strategy.type: fixed-delay\n", "restart-strategy.fixed-delay.attempts: 3\n");
    assertThat(FlinkSessionCluster.configuration(8081, 6123, 1, 0, Path.of("/tmp/x")))
        .contains("restart-strategy.type: none\n").doesNotContain("fixed-delay");
  }

  @Test
  void stopOnADirectoryThatDoesNotExistSaysNothingRunsThere(@TempDir Path dir) {
    Path missing = dir.resolve("never-started");
    assertThat(FlinkSessionCluster.stop(missing)).isEmpty();
    assertThat(FlinkClusterMain.run(new String[] {"stop", "--dir", missing.toString()})).isZero();
  }

  @Test
  void usageErrorsExitTwo() {
    assertThat(FlinkClusterMain.run(new String[] {})).isEqualTo(2);
    assertThat(FlinkClusterMain.run(new String[] {"start", "--taskmanagers", "0"})).isEqualTo(2);
    assertThat(FlinkClusterMain.run(new String[] {"stop", "--slots", "2"})).isEqualTo(2);
  }
}
