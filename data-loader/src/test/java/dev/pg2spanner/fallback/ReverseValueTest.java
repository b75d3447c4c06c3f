package dev.pg2spanner.fallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.plan.ValueConversion;
import org.junit.jupiter.api.Test;

/** Spanner values as a change stream encodes them, back into what the source column holds, or refused. */
class ReverseValueTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static ReverseValue.Target t(ValueConversion c, String base, int scale, int fraction, boolean array) {
    return new ReverseValue.Target(c, base, scale, fraction, array);
  }

  private static JsonNode j(String json) throws Exception {
    return JSON.readTree(json);
  }

  @Test
  void valuesComeBackAsTheSourceTypesText() throws Exception {
    assertThat(ReverseValue.of(t(ValueConversion.INT64, "bigint", -1, 6, false), j("\"9007199254740993\"")))
        .isEqualTo("9007199254740993");
    assertThat(ReverseValue.of(t(ValueConversion.BOOL, "boolean", -1, 6, false), j("true"))).isEqualTo("true");
    assertThat(ReverseValue.of(t(ValueConversion.FLOAT64, "double precision", -1, 6, false), j("0.1")))
        .isEqualTo("0.1");
    assertThat(ReverseValue.of(t(ValueConversion.FLOAT64, "double precision", -1, 6, false), j("\"NaN\"")))
        .isEqualTo("NaN");
    assertThat(ReverseValue.of(t(ValueConversion.NUMERIC, "numeric", 2, 6, false), j("\"12.50\"")))
        .isEqualTo("12.50");
    assertThat(ReverseValue.of(t(ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC, "timestamp without time zone", -1, 6,
        false), j("\"2026-03-01T00:00:00.5Z\""))).isEqualTo("2026-03-01T00:00:00.5");
    assertThat(ReverseValue.of(t(ValueConversion.JSON, "jsonb", -1, 6, false), j("\"{\\\"a\\\":1}\"")))
        .isEqualTo("{\"a\":1}");
    assertThat((byte[]) ReverseValue.of(t(ValueConversion.BYTES, "bytea", -1, 6, false), j("\"AQI=\"")))
        .containsExactly(1, 2);
    assertThat(ReverseValue.of(t(ValueConversion.STRING, "text[]", -1, 6, true), j("[\"a\", null, \"q\\\"\\\\\"]")))
        .isEqualTo("{\"a\",NULL,\"q\\\"\\\\\"}");
    assertThat(ReverseValue.of(t(ValueConversion.BYTES, "bytea[]", -1, 6, true), j("[\"AQI=\"]")))
        .isEqualTo("{\"\\\\x0102\"}");
    assertThat(ReverseValue.of(t(ValueConversion.STRING, "text", -1, 6, false), j("null"))).isNull();
  }

  @Test
  void whatPostgresqlWouldRoundIsRefusedNotWrittenChanged() {
    assertThatThrownBy(() -> ReverseValue.of(t(ValueConversion.NUMERIC, "numeric", 2, 6, false), j("\"1.005\"")))
        .isInstanceOf(ReverseValue.Unfit.class).hasMessageContaining("more than the 2 decimal(s)");
    assertThatThrownBy(() -> ReverseValue.of(t(ValueConversion.MONEY_NUMERIC, "money", -1, 6, false),
        j("\"1.001\""))).isInstanceOf(ReverseValue.Unfit.class);
    assertThatThrownBy(() -> ReverseValue.of(t(ValueConversion.TIMESTAMP, "timestamp with time zone", -1, 6, false),
        j("\"2026-01-01T00:00:00.123456789Z\""))).isInstanceOf(ReverseValue.Unfit.class)
        .hasMessageContaining("fractional-second");
    assertThatThrownBy(() -> ReverseValue.of(t(ValueConversion.TIMESTAMP, "timestamp with time zone", -1, 0, false),
        j("\"2026-01-01T00:00:00.5Z\""))).isInstanceOf(ReverseValue.Unfit.class);
    assertThatThrownBy(() -> ReverseValue.of(t(ValueConversion.FLOAT64, "real", -1, 6, false), j("0.1")))
        .isInstanceOf(ReverseValue.Unfit.class).hasMessageContaining("real");
  }
}
