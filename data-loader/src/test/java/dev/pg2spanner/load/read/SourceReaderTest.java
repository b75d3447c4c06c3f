package dev.pg2spanner.load.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourceReaderTest {

  @Test
  void theEnvironmentChoosesTheReaderAndCopyIsTheDefault() {
    assertThat(SourceReader.from(Map.of())).isEqualTo(SourceReader.COPY);
    assertThat(SourceReader.from(Map.of(SourceReader.VARIABLE, " "))).isEqualTo(SourceReader.COPY);
    assertThat(SourceReader.from(Map.of(SourceReader.VARIABLE, "COPY-TEXT"))).isEqualTo(SourceReader.COPY_TEXT);
    assertThat(SourceReader.from(Map.of(SourceReader.VARIABLE, "jdbc"))).isEqualTo(SourceReader.JDBC);
    assertThat(SourceReader.COPY.binaryCopy()).isTrue();
    assertThat(SourceReader.COPY_TEXT.binaryCopy()).isFalse();
    assertThat(SourceReader.JDBC.binaryCopy()).isFalse();
  }

  @Test
  void aValueThatNamesNoReaderIsRefusedWithTheChoices() {
    assertThatThrownBy(() -> SourceReader.from(Map.of(SourceReader.VARIABLE, "binary")))
        .isInstanceOfSatisfying(Pg2SpannerException.class,
            e -> assertThat(e.code()).isEqualTo(ExitCode.ENVIRONMENT))
        .hasMessageContaining("PG2SPANNER_SOURCE_READER=binary")
        .hasMessageContaining("copy (the default), copy-text or jdbc");
  }
}
