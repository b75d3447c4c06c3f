package dev.pg2spanner.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizeTest {

  @Test
  void readsSizesAsPostgresqlCountsThem() {
    assertThat(ByteSize.parse("512")).isEqualTo(512);
    assertThat(ByteSize.parse("512B")).isEqualTo(512);
    assertThat(ByteSize.parse("64kB")).isEqualTo(64L * 1024);
    assertThat(ByteSize.parse("64KB")).isEqualTo(64L * 1024);
    assertThat(ByteSize.parse("300MB")).isEqualTo(300L << 20);
    assertThat(ByteSize.parse("20GB")).isEqualTo(20L << 30);
    assertThat(ByteSize.parse("20 gb")).isEqualTo(20L << 30);
    assertThat(ByteSize.parse("20GiB")).isEqualTo(20L << 30);
    assertThat(ByteSize.parse("1.5TB")).isEqualTo(3L << 39);
    assertThat(ByteSize.parse("1TiB")).isEqualTo(1L << 40);
    assertThat(ByteSize.parse("0.5k")).isEqualTo(512);
  }

  @Test
  void refusesWhatIsNotAPositiveSizeNamingTheValue() {
    assertThatThrownBy(() -> ByteSize.parse("twenty")).hasMessageContaining("'twenty' is not a size")
        .hasMessageContaining("20GB");
    assertThatThrownBy(() -> ByteSize.parse("20XB")).hasMessageContaining("unknown unit 'XB'");
    assertThatThrownBy(() -> ByteSize.parse("-1GB")).hasMessageContaining("is not a size");
    assertThatThrownBy(() -> ByteSize.parse("0")).hasMessageContaining("not a positive size");
    assertThatThrownBy(() -> ByteSize.parse("")).hasMessageContaining("is not a size");
    assertThatThrownBy(() -> ByteSize.parse("99999999999TB")).hasMessageContaining("too large");
  }

  @Test
  void printsSizesLikePgSizePretty() {
    assertThat(ByteSize.format(17)).isEqualTo("17 bytes");
    assertThat(ByteSize.format(64L << 10)).isEqualTo("64 kB");
    assertThat(ByteSize.format(300L << 20)).isEqualTo("300.0 MB");
    assertThat(ByteSize.format(ByteSize.parse("1.5GB"))).isEqualTo("1.5 GB");
    assertThat(ByteSize.format(2L << 40)).isEqualTo("2.0 TB");
  }
}
