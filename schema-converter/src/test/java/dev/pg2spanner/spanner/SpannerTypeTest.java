package dev.pg2spanner.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SpannerTypeTest {

  @ParameterizedTest
  @ValueSource(strings = {"BOOL", "INT64", "FLOAT32", "FLOAT64", "NUMERIC", "DATE", "TIMESTAMP", "JSON",
      "STRING(MAX)", "STRING(36)", "BYTES(MAX)", "BYTES(16)", "ARRAY<INT64>", "ARRAY<STRING(MAX)>",
      "ARRAY<NUMERIC>"})
  void printsWhatItParses(String ddl) {
    assertThat(SpannerType.parse(ddl).ddl()).isEqualTo(ddl);
  }

  @Test
  void parsingIsCaseAndSpaceInsensitive() {
    assertThat(SpannerType.parse(" array < string ( 10 ) > ")).isEqualTo(SpannerType.arrayOf(SpannerType.string(10)));
  }

  @Test
  void rejectsWhatSpannerRejects() {
    assertThatThrownBy(() -> SpannerType.parse("ARRAY<ARRAY<INT64>>")).hasMessageContaining("cannot nest");
    assertThatThrownBy(() -> SpannerType.parse("STRING(0)")).hasMessageContaining("outside");
    assertThatThrownBy(() -> SpannerType.parse("STRING(2621441)")).hasMessageContaining("outside");
    assertThatThrownBy(() -> SpannerType.parse("VARCHAR(10)")).hasMessageContaining("is not a Spanner GoogleSQL");
    assertThatThrownBy(() -> SpannerType.parse("INTERVAL")).hasMessageContaining("is not a Spanner GoogleSQL");
  }

  @Test
  void quotesReservedAndIrregularNamesOnly() {
    assertThat(SpannerNames.quote("orders")).isEqualTo("orders");
    assertThat(SpannerNames.quote("Orders")).isEqualTo("Orders");
    assertThat(SpannerNames.quote("Order")).isEqualTo("`Order`");
    assertThat(SpannerNames.quote("order")).isEqualTo("`order`");
    assertThat(SpannerNames.quote("select")).isEqualTo("`select`");
    assertThat(SpannerNames.quote("_x")).isEqualTo("`_x`");
    assertThat(SpannerNames.qualified("billing", "Invoice")).isEqualTo("billing.Invoice");
    assertThat(SpannerNames.qualified(null, "from")).isEqualTo("`from`");
  }
}
