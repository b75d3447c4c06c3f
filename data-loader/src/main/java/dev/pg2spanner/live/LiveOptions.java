package dev.pg2spanner.live;

import dev.pg2spanner.metrics.MonitorOptions;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What a live run ({@code migrate --live}) needs of the command's options; {@code migrate} builds it from its own.
 *
 * @param planFile plan.yaml, as named on the command line (repeated in the resume command)
 * @param source the source database
 * @param target the Spanner database
 * @param runDirectory where the live state, progress and lock live
 * @param deadLetterFile where rejected changes go (JSON lines)
 * @param maxBadRows rejected rows tolerated before the run fails
 * @param progressInterval how often progress is reported
 * @param resume continue the live run recorded in {@code runDirectory}
 * @param publication an existing publication to stream, or null to create one
 * @param verifyInterval how often changed rows are compared at a consistent cut; null never
 * @param monitor the metrics endpoint and the slot-WAL limits
 * @param runner the {@code --runner} a resume must repeat (the bulk phase ran on Beam), or null for the in-process
 *     loader
 */
public record LiveOptions(Path planFile, SourceConfig source, SpannerTarget target, Path runDirectory,
    Path deadLetterFile, long maxBadRows, Duration progressInterval, boolean resume, String publication,
    Duration verifyInterval, MonitorOptions monitor, String runner) {

  public LiveOptions {
    Objects.requireNonNull(planFile, "planFile");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(runDirectory, "runDirectory");
    Objects.requireNonNull(deadLetterFile, "deadLetterFile");
    monitor = monitor == null ? MonitorOptions.NONE : monitor;
  }
}
