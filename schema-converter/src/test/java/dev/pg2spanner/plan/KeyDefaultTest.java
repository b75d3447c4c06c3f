package dev.pg2spanner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.spanner.SpannerDialect;
import org.junit.jupiter.api.Test;

class KeyDefaultTest {

  @Test
  void aRandomUuidInEachDialect() {
    assertThat(KeyDefault.UUID.expression(SpannerDialect.GOOGLE_STANDARD_SQL)).isEqualTo("GENERATE_UUID()");
    assertThat(KeyDefault.UUID.expression(SpannerDialect.POSTGRESQL)).isEqualTo("spanner.generate_uuid()");
  }

  @Test
  void aSequencesNextValueNamesTheSequenceAsEachDialectLooksItUp() {
    KeyDefault plain = KeyDefault.nextValue("orders_id_seq");
    assertThat(plain.expression(SpannerDialect.GOOGLE_STANDARD_SQL))
        .isEqualTo("GET_NEXT_SEQUENCE_VALUE(SEQUENCE orders_id_seq)");
    assertThat(plain.expression(SpannerDialect.POSTGRESQL)).isEqualTo("nextval('orders_id_seq')");
    // A reserved or mixed-case name: back-quoted in GoogleSQL; as it is (no PostgreSQL case folding) in a literal.
    KeyDefault odd = KeyDefault.nextValue("Order's_Seq");
    assertThat(odd.expression(SpannerDialect.POSTGRESQL)).isEqualTo("nextval('Order''s_Seq')");
    assertThat(odd.expression(SpannerDialect.GOOGLE_STANDARD_SQL)).isEqualTo("GET_NEXT_SEQUENCE_VALUE(SEQUENCE `Order's_Seq`)");
  }
}
