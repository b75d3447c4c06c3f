package dev.pg2spanner.beam;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BeamLoaderTest {

  @Test
  void theProgressLineShowsReadWrittenDeadLetteredAndTheWriteRate() {
    LoadPipeline.Counts soFar = new LoadPipeline.Counts(12_345, 12_000, 45, 0, 0, 0, 0, 2, 10_000);
    assertThat(BeamLoader.progressLine(soFar, 30_000, 5_000_000_000L)).isEqualTo(
        "load: 12,345 of ~30,000 rows read (41%), 10,000 written, 45 dead-lettered, 2,000 rows/s written, 0:00:05");
    // No estimate (an empty table's statistics): no share; the share never claims 100% while the job runs.
    assertThat(BeamLoader.progressLine(soFar, 0, 65_000_000_000L)).isEqualTo(
        "load: 12,345 rows read, 10,000 written, 45 dead-lettered, 154 rows/s written, 0:01:05");
    assertThat(BeamLoader.progressLine(soFar, 12_000, 1_000_000_000L)).contains("of ~12,000 rows read (99%)");
  }
}
