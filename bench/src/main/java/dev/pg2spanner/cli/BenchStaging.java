package dev.pg2spanner.cli;

import java.util.List;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.util.construction.resources.PipelineResources;

/**
 * Benchmark only: the bench's own Beam jobs sent to a session cluster ship what {@code migrate --flink-master}
 * ships ({@link FlinkStaging}, package-private, hence this class in its package); nothing of it is in the product.
 */
public final class BenchStaging {

  private BenchStaging() {}

  /** What {@code migrate --flink-master} ships: this JVM's class path through {@link FlinkStaging#filesToStage}. */
  public static List<String> filesToStage() {
    return FlinkStaging.filesToStage(PipelineResources.detectClassPathResourcesToStage(
        FlinkRunner.class.getClassLoader(), PipelineOptionsFactory.create()));
  }
}
