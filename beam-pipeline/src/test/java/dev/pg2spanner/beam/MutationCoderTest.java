package dev.pg2spanner.beam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Interval;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.io.gcp.spanner.MutationGroup;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MutationCoderTest {

  private static final MutationCoder CODER = MutationCoder.of();

  private static Mutation roundTrip(Mutation original) throws Exception {
    Mutation decoded = CoderUtils.decodeFromByteArray(CODER, CoderUtils.encodeToByteArray(CODER, original));
    assertThat(decoded).isEqualTo(original);
    assertThat(decoded.getOperation()).isEqualTo(original.getOperation());
    assertThat(decoded.asMap()).isEqualTo(original.asMap());
    // Every value's type, not just its content (Value.equals compares both; this names the column on failure).
    original.asMap().forEach((column, value) ->
        assertThat(decoded.asMap().get(column).getType()).as(column).isEqualTo(value.getType()));
    CoderProperties.coderDecodeEncodeEqual(CODER, original);
    CoderProperties.coderDeterministic(CODER, original, copy(original));
    return decoded;
  }

  /** An equal mutation built afresh (the determinism check needs two equal, distinct objects). */
  private static Mutation copy(Mutation m) {
    Mutation.WriteBuilder b = Mutation.newInsertOrUpdateBuilder(m.getTable());
    switch (m.getOperation()) {
      case INSERT -> b = Mutation.newInsertBuilder(m.getTable());
      case UPDATE -> b = Mutation.newUpdateBuilder(m.getTable());
      case REPLACE -> b = Mutation.newReplaceBuilder(m.getTable());
      default -> { }
    }
    for (var e : m.asMap().entrySet()) {
      b.set(e.getKey()).to(e.getValue());
    }
    return b.build();
  }

  private static Mutation row(String column, Value value) {
    return Mutation.newInsertOrUpdateBuilder("t").set("id").to(1L).set(column).to(value).build();
  }

  private static void each(String name, List<Value> values) throws Exception {
    for (Value v : values) {
      roundTrip(row(name, v));
    }
  }

  private static <T> List<T> withNull(T... elements) {
    List<T> list = new ArrayList<>(Arrays.asList(elements));
    list.add(1, null);
    return list;
  }

  /** The null array, the empty array, the elements, and the elements with a null among them. */
  @SafeVarargs
  private static <T> void arrays(String name, Function<List<T>, Value> factory, T... elements) throws Exception {
    each(name + "[]", List.of(factory.apply(null), factory.apply(List.of()), factory.apply(Arrays.asList(elements)),
        factory.apply(withNull(elements))));
  }

  @Test
  void boolAndInt64() throws Exception {
    each("b", List.of(Value.bool(true), Value.bool(false), Value.bool((Boolean) null)));
    each("i", List.of(Value.int64(0), Value.int64(-1), Value.int64(Long.MIN_VALUE), Value.int64(Long.MAX_VALUE),
        Value.int64((Long) null)));
    arrays("b", Value::boolArray, true, false);
    arrays("i", Value::int64Array, Long.MIN_VALUE, 0L, Long.MAX_VALUE, -7L);
  }

  @Test
  void floatsKeepTheirExactBits() throws Exception {
    double nanWithPayload = Double.longBitsToDouble(0x7ff0_0000_0000_0001L);
    each("d", List.of(Value.float64(Double.NaN), Value.float64(-0.0), Value.float64(0.0),
        Value.float64(Double.POSITIVE_INFINITY), Value.float64(Double.NEGATIVE_INFINITY),
        Value.float64(Double.MIN_VALUE), Value.float64(Double.MAX_VALUE), Value.float64(nanWithPayload),
        Value.float64((Double) null)));
    each("f", List.of(Value.float32(Float.NaN), Value.float32(-0.0f), Value.float32(Float.POSITIVE_INFINITY),
        Value.float32(Float.NEGATIVE_INFINITY), Value.float32(Float.MIN_VALUE), Value.float32(1.1f),
        Value.float32((Float) null)));
    arrays("d", Value::float64Array, Double.NaN, -0.0, Double.NEGATIVE_INFINITY, 1e300);
    arrays("f", Value::float32Array, Float.NaN, -0.0f, Float.POSITIVE_INFINITY, 3.5f);

    Mutation decoded = roundTrip(row("d", Value.float64(-0.0)));
    assertThat(Double.doubleToRawLongBits(decoded.asMap().get("d").getFloat64()))
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
    decoded = roundTrip(row("d", Value.float64(nanWithPayload)));
    assertThat(Double.doubleToRawLongBits(decoded.asMap().get("d").getFloat64())).isEqualTo(0x7ff0_0000_0000_0001L);
  }

  @Test
  void numericsKeepPrecisionAndScale() throws Exception {
    BigDecimal widest = new BigDecimal("99999999999999999999999999999.999999999"); // 38 digits, 9 fractional
    each("n", List.of(Value.numeric(widest), Value.numeric(widest.negate()), Value.numeric(new BigDecimal("1.50")),
        Value.numeric(BigDecimal.ZERO), Value.numeric(new BigDecimal("0.000000001")), Value.numeric(null)));
    Mutation decoded = roundTrip(row("n", Value.numeric(new BigDecimal("1.50"))));
    assertThat(decoded.asMap().get("n").getNumeric().scale()).isEqualTo(2);
    arrays("n", Value::numericArray, widest, BigDecimal.ONE.negate(), new BigDecimal("12.340"));

    each("pn", List.of(Value.pgNumeric("NaN"), Value.pgNumeric("123456789012345678901234567890.12345678901234567890"),
        Value.pgNumeric("-0.000"), Value.pgNumeric(null)));
    arrays("pn", Value::pgNumericArray, "NaN", "1.50", "-99999999999999999999999999999999999999");
  }

  @Test
  void stringsJsonAndJsonb() throws Exception {
    String unicode = "Grüße, 東京, emoji 😀 and 𝄞 (4-byte UTF-8)";
    each("s", List.of(Value.string(""), Value.string(unicode), Value.string("a".repeat(100_000)),
        Value.string(null)));
    arrays("s", Value::stringArray, "", unicode, "x");
    each("j", List.of(Value.json("{\"a\":[1,2,{\"b\":null}],\"é\":\"😀\"}"), Value.json("[]"), Value.json(null)));
    arrays("j", Value::jsonArray, "{}", "{\"k\":\"v\"}");
    each("jb", List.of(Value.pgJsonb("{\"a\": 1}"), Value.pgJsonb("\"😀\""), Value.pgJsonb(null)));
    arrays("jb", Value::pgJsonbArray, "{}", "[1, 2]");
  }

  @Test
  void bytes() throws Exception {
    byte[] large = new byte[3 << 20];
    for (int i = 0; i < large.length; i++) {
      large[i] = (byte) (i * 31 + (i >> 8));
    }
    each("by", List.of(Value.bytes(ByteArray.copyFrom(new byte[0])), Value.bytes(ByteArray.copyFrom(large)),
        Value.bytes(ByteArray.copyFrom(new byte[] {0, -1, 127, -128})), Value.bytes(null)));
    arrays("by", Value::bytesArray, ByteArray.copyFrom(new byte[0]), ByteArray.copyFrom(new byte[] {1, 2, 3}));
  }

  @Test
  void datesAndTimestampsAtTheEdgesOfTheirRange() throws Exception {
    Date first = Date.fromYearMonthDay(1, 1, 1);
    Date last = Date.fromYearMonthDay(9999, 12, 31);
    each("dt", List.of(Value.date(first), Value.date(last), Value.date(Date.fromYearMonthDay(1970, 1, 1)),
        Value.date(Date.fromYearMonthDay(2000, 2, 29)), Value.date(null)));
    arrays("dt", Value::dateArray, first, last, Date.fromYearMonthDay(1969, 12, 31));

    Timestamp min = Timestamp.parseTimestamp("0001-01-01T00:00:00.000000001Z");
    Timestamp max = Timestamp.parseTimestamp("9999-12-31T23:59:59.999999999Z");
    Timestamp beforeEpoch = Timestamp.ofTimeSecondsAndNanos(-1, 500_000_000);
    each("ts", List.of(Value.timestamp(min), Value.timestamp(max), Value.timestamp(beforeEpoch),
        Value.timestamp(Timestamp.ofTimeMicroseconds(1_700_000_000_123_456L)), Value.timestamp(null)));
    arrays("ts", Value::timestampArray, min, max, beforeEpoch);
  }

  @Test
  void everyWriteOperation() throws Exception {
    for (Function<String, Mutation.WriteBuilder> op : List.<Function<String, Mutation.WriteBuilder>>of(
        Mutation::newInsertBuilder, Mutation::newUpdateBuilder, Mutation::newInsertOrUpdateBuilder,
        Mutation::newReplaceBuilder)) {
      Mutation m = op.apply("billing.invoices").set("id").to(42L).set("note").to("x").build();
      assertThat(roundTrip(m).getOperation()).isEqualTo(m.getOperation());
    }
    // A partial row (the converter's UPDATE) and a mutation of no columns.
    roundTrip(Mutation.newUpdateBuilder("t").set("id").to(1L).build());
    roundTrip(Mutation.newInsertBuilder("t").build());
  }

  @Test
  void refusesWhatTheLoadNeverWrites() {
    assertThatThrownBy(() -> CoderUtils.encodeToByteArray(CODER, Mutation.delete("orders", Key.of(1L))))
        .isInstanceOf(CoderException.class).hasMessageContaining("orders").hasMessageContaining("deletes are not");
    Struct struct = Struct.newBuilder().set("a").to(1L).build();
    for (Value unsupported : List.of(Value.struct(struct), Value.interval(Interval.ofMonths(1)),
        Value.uuid(UUID.randomUUID()), Value.pgOid(5L), Value.protoEnum(1L, "a.b.E"),
        Value.protoMessage(ByteArray.copyFrom(new byte[] {1}), "a.b.M"),
        Value.structArray(Type.struct(Type.StructField.of("a", Type.int64())), List.of(struct)),
        Value.uuidArray(List.of(UUID.randomUUID())))) {
      assertThatThrownBy(() -> CoderUtils.encodeToByteArray(CODER, row("odd", unsupported)))
          .as(unsupported.getType().toString())
          .isInstanceOf(CoderException.class).hasMessageContaining("column odd of table t")
          .hasMessageContaining(unsupported.getType().toString());
    }
    assertThatThrownBy(() -> CoderUtils.encodeToByteArray(CODER, row("at", Value.timestamp(Value.COMMIT_TIMESTAMP))))
        .isInstanceOf(CoderException.class).hasMessageContaining("commit timestamp");
    assertThatThrownBy(() -> CoderUtils.encodeToByteArray(CODER, row("at",
        Value.timestampArray(List.of(Value.COMMIT_TIMESTAMP))))).isInstanceOf(CoderException.class)
        .hasMessageContaining("commit timestamp");
  }

  @Test
  void aTypicalRowIsATinyFractionOfItsJavaSerialisation() throws Exception {
    Mutation row = Mutation.newInsertOrUpdateBuilder("orders")
        .set("id").to(1_234_567L)
        .set("customer_id").to(98_765L)
        .set("status").to("shipped")
        .set("total").to(new BigDecimal("1234.56"))
        .set("weight").to(2.75)
        .set("created_at").to(Timestamp.ofTimeMicroseconds(1_700_000_000_123_456L))
        .set("note").to("leave at the door")
        .build();
    roundTrip(row);
    int compact = CoderUtils.encodeToByteArray(CODER, row).length;
    int serialised = CoderUtils.encodeToByteArray(SerializableCoder.of(Mutation.class), row).length;
    // head 1 + table 7 + count 1 + column names 51 (7 of them, each with its length) + values 62:
    // id 4, customer_id 4, status 9, total 6 (tag, 3 unscaled bytes with length, scale), weight 9, created_at 11,
    // note 19. Java serialisation writes the classes of Mutation, its lists and every Value besides.
    assertThat(compact).isEqualTo(122);
    assertThat(compact * 10).as("Java serialisation: %d bytes", serialised).isLessThan(serialised);
    System.out.printf("typical 7-column row: MutationCoder %d bytes, SerializableCoder %d bytes%n", compact,
        serialised);
  }

  @Test
  void mutationGroupsThroughTheSameEncoding() throws Exception {
    MutationGroupCoder coder = MutationGroupCoder.of();
    MutationGroup group = MutationGroup.create(row("s", Value.string("p")),
        row("s", Value.string("a")), Mutation.newUpdateBuilder("u").set("id").to(2L).build());
    assertThat(CoderUtils.decodeFromByteArray(coder, CoderUtils.encodeToByteArray(coder, group))).isEqualTo(group);
    CoderProperties.coderDecodeEncodeEqual(coder, group);
    CoderProperties.coderDecodeEncodeEqual(coder, MutationGroup.create(row("s", Value.string("alone"))));
    coder.verifyDeterministic();
    CODER.verifyDeterministic();
  }

  @Test
  void theLoadCarriesMutationsWithThisCoderEverywhereIncludingInsideSpannerIO(@TempDir Path dir) {
    Pipeline pipeline = Pipeline.create(PipelineOptionsFactory.create());
    var target = new dev.pg2spanner.targetdb.SpannerTarget("p", "inst", "db", "127.0.0.1:9010");
    PieceSpec parent = new PieceSpec("p#1", "p", "public.p", "public", "p", true, 0, null, 0, 1);
    PieceSpec child = new PieceSpec("c#1", "c", "public.c", "public", "c", true, 0, null, 1, 1);
    // Two levels, so the second write waits on the first (SpannerIO's schema-ready signal).
    LoadPipeline.build(pipeline, Map.of(0, List.of(parent), 1, List.of(child)), new ReadPieceTest.FakeSources(),
        "", previous -> previous == null ? LoadPipeline.write(target)
            : LoadPipeline.write(target).withSchemaReadySignal(previous), dir.resolve("dead.jsonl").toString());

    List<String> serialised = new ArrayList<>();
    Map<Class<?>, Integer> ours = new HashMap<>();
    pipeline.traverseTopologically(new Pipeline.PipelineVisitor.Defaults() {
      @Override
      public void visitValue(PValue value, TransformHierarchy.Node producer) {
        if (value instanceof PCollection<?> pc) {
          walk(pc.getName(), pc.getCoder());
        }
      }

      private void walk(String name, Coder<?> coder) {
        if (coder instanceof SerializableCoder<?> s && (s.getRecordType() == Mutation.class
            || s.getRecordType() == MutationGroup.class)) {
          serialised.add(name + ": " + coder);
        }
        if (coder instanceof MutationCoder || coder instanceof MutationGroupCoder) {
          ours.merge(coder.getClass(), 1, Integer::sum);
        }
        for (Coder<?> component : coder.getCoderArguments()) {
          walk(name, component);
        }
        if (coder instanceof StructuredCoder<?> structured) {
          for (Coder<?> component : structured.getComponents()) {
            walk(name, component);
          }
        }
      }
    });
    assertThat(serialised).isEmpty();
    // The read's output (MutationCoder); SpannerIO's groups, batches and failed groups (MutationGroupCoder).
    assertThat(ours.keySet()).containsExactlyInAnyOrder(MutationCoder.class, MutationGroupCoder.class);
  }
}
