package dev.pg2spanner.load.convert;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.math.BigDecimal;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * One {@link ValueConversion} for one Spanner scalar type: how a value's PostgreSQL text becomes a Java value, and
 * how such values become a Spanner scalar or array {@link Value}. Arrays and scalars share the parser, so an array
 * element is converted exactly like a column value of the same conversion.
 *
 * @param <T> the Java type the Spanner client takes for this type
 */
final class ValueCodec<T> {

  /** Text → value; throws {@link ValueRejection} for a value the target cannot hold. */
  @FunctionalInterface
  interface Parser<T> {
    T parse(String text) throws ValueRejection;
  }

  /**
   * ASCII bytes without escapes → value, or null when the bytes are not in the form it handles (the text parser then
   * decides, so both give the same value or rejection).
   */
  @FunctionalInterface
  interface PlainParser<T> {
    T parse(byte[] bytes, int from, int to);
  }

  private final Parser<T> parser;
  private final PlainParser<T> plainParser;
  private final Function<T, Value> scalar;
  private final Function<Iterable<T>, Value> array;
  private final Value nullScalar;
  private final Value nullArray;
  private final ToLongFunction<Value> scalarSize;
  private final ToLongFunction<Value> arraySize;

  private ValueCodec(Parser<T> parser, Function<T, Value> scalar, Function<Iterable<T>, Value> array,
      Value nullScalar, Value nullArray, ToLongFunction<Value> scalarSize, ToLongFunction<Value> arraySize) {
    this(parser, null, scalar, array, nullScalar, nullArray, scalarSize, arraySize);
  }

  private ValueCodec(Parser<T> parser, PlainParser<T> plainParser, Function<T, Value> scalar,
      Function<Iterable<T>, Value> array, Value nullScalar, Value nullArray, ToLongFunction<Value> scalarSize,
      ToLongFunction<Value> arraySize) {
    this.parser = parser;
    this.plainParser = plainParser;
    this.scalar = scalar;
    this.array = array;
    this.nullScalar = nullScalar;
    this.nullArray = nullArray;
    this.scalarSize = scalarSize;
    this.arraySize = arraySize;
  }

  T parse(String text) throws ValueRejection {
    return parser.parse(text);
  }

  /**
   * The value of ASCII bytes without escapes when they are in the form this codec parses from bytes, else null (and
   * always null for a codec without such a parser): the caller then parses their text with {@link #parse}.
   */
  T parsePlain(byte[] bytes, int from, int to) {
    return plainParser == null ? null : plainParser.parse(bytes, from, to);
  }

  /**
   * The same codec reading another text form of the same values (e.g. a type's own output, not a cast's); it has no
   * byte parser, which read the old form.
   */
  ValueCodec<T> withParser(Parser<T> textParser) {
    return new ValueCodec<>(textParser, null, scalar, array, nullScalar, nullArray, scalarSize, arraySize);
  }

  private ValueCodec<T> withPlainParser(PlainParser<T> bytesParser) {
    return new ValueCodec<>(parser, bytesParser, scalar, array, nullScalar, nullArray, scalarSize, arraySize);
  }

  /**
   * The codec for a column's value as the type's own output function prints it — the text logical replication
   * sends — rather than the text of the select expression {@link ColumnReader} reads. The two differ only where
   * the load casts in SQL: {@code real} (read as float8 text, sent as float4 text) and {@code money} (read as
   * numeric, sent in money's format). {@code jsonb}'s output also gets the quicker fidelity check its unique keys
   * allow, with the same answer.
   *
   * @param sourceType the column's (or array element's) PostgreSQL type as the plan records it, may be null
   * @param dialect the target database's dialect
   */
  @SuppressWarnings("unchecked")
  static ValueCodec<?> ofOutputText(ValueConversion conversion, SpannerType type, String sourceType,
      SpannerDialect dialect) {
    ValueCodec<?> codec = of(conversion, type, dialect);
    if (dialect.isPostgres() && conversion == ValueConversion.MONEY_NUMERIC) {
      // Kept as printed ("0.00"), as the result set's money::numeric::text gives it.
      return ((ValueCodec<String>) codec).withParser(t -> ValueParsers.pgNumeric(ValueParsers.moneyDecimal(t)));
    }
    String base = sourceType == null ? "" : sourceType.replace("[]", "").strip();
    boolean real = base.equals("real") || base.equals("float4");
    return switch (conversion) {
      // jsonb's output has unique keys, which the one-pass fidelity check relies on (json's may repeat keys).
      case JSON -> !base.equals("jsonb") ? codec : dialect.isPostgres()
          ? ((ValueCodec<String>) codec).withParser(ValueParsers::pgJsonbUniqueKeys)
          : ((ValueCodec<String>) codec).withParser(ValueParsers::jsonb);
      case FLOAT32 -> real ? ((ValueCodec<Float>) codec).withParser(ValueParsers::real) : codec;
      case FLOAT64 -> real ? ((ValueCodec<Double>) codec).withParser(t -> (double) ValueParsers.real(t)) : codec;
      case MONEY_NUMERIC -> ((ValueCodec<BigDecimal>) codec).withParser(ValueParsers::money);
      default -> codec;
    };
  }

  Value scalar(T value) {
    return scalar.apply(value);
  }

  /** An ARRAY value; {@code values} may hold nulls. */
  Value array(List<T> values) {
    return array.apply(values);
  }

  Value nullScalar() {
    return nullScalar;
  }

  Value nullArray() {
    return nullArray;
  }

  long scalarSize(Value value) {
    return scalarSize.applyAsLong(value);
  }

  long arraySize(Value value) {
    return arraySize.applyAsLong(value);
  }

  /**
   * The codec of a conversion writing {@code type} (the element type, for arrays) in a database of {@code dialect}.
   * The PostgreSQL dialect differs in two types: its {@code numeric} is PostgreSQL's (any precision, NaN), written
   * as {@code Value.pgNumeric} text, and {@code jsonb} is written as {@code Value.pgJsonb}.
   *
   * @throws IllegalArgumentException for SYNTHETIC, which is never read, and KEY_UUID, which needs its column
   */
  static ValueCodec<?> of(ValueConversion conversion, SpannerType type, SpannerDialect dialect) {
    if (dialect.isPostgres()) {
      switch (conversion) {
        case NUMERIC, MONEY_NUMERIC -> {
          return new ValueCodec<String>(ValueParsers::pgNumeric, Value::pgNumeric, Value::pgNumericArray,
              Value.pgNumeric(null), Value.pgNumericArray(null), v -> v.getString().length(),
              v -> stringsSize(v.getStringArray()));
        }
        case JSON -> {
          return new ValueCodec<String>(ValueParsers::pgJsonb, Value::pgJsonb,
              Value::pgJsonbArray, Value.pgJsonb(null), Value.pgJsonbArray(null), v -> v.getPgJsonb().length(),
              v -> stringsSize(v.getPgJsonbArray()));
        }
        default -> { }
      }
    }
    return ofDefault(conversion, type);
  }

  private static ValueCodec<?> ofDefault(ValueConversion conversion, SpannerType type) {
    return switch (conversion) {
      case BOOL -> new ValueCodec<>(ValueParsers::bool, Value::bool, Value::boolArray,
          Value.bool((Boolean) null), Value.boolArray((Iterable<Boolean>) null),
          v -> 1, v -> v.getBoolArray().size());
      case INT64 -> new ValueCodec<>(ValueParsers::int64, Value::int64, Value::int64Array,
          Value.int64((Long) null), Value.int64Array((Iterable<Long>) null),
          v -> 8, v -> 8L * v.getInt64Array().size());
      case FLOAT32 -> new ValueCodec<>(ValueParsers::float32, Value::float32, Value::float32Array,
          Value.float32((Float) null), Value.float32Array((Iterable<Float>) null),
          v -> 4, v -> 4L * v.getFloat32Array().size());
      case FLOAT64 -> new ValueCodec<>(ValueParsers::float64, Value::float64, Value::float64Array,
          Value.float64((Double) null), Value.float64Array((Iterable<Double>) null),
          v -> 8, v -> 8L * v.getFloat64Array().size());
      case NUMERIC, MONEY_NUMERIC -> new ValueCodec<BigDecimal>(ValueParsers::numeric, Value::numeric,
          Value::numericArray, Value.numeric(null), Value.numericArray(null),
          v -> numericSize(v.getNumeric()),
          v -> v.getNumericArray().stream().mapToLong(ValueCodec::numericSize).sum())
          .withPlainParser(ValueParsers::plainNumeric);
      case BYTES -> {
        int max = type.length() == null ? Integer.MAX_VALUE : type.length();
        yield new ValueCodec<ByteArray>(t -> ByteArray.copyFrom(ValueParsers.bytes(ValueParsers.hexBytea(t), max)),
            Value::bytes, Value::bytesArray, Value.bytes(null), Value.bytesArray(null),
            v -> v.getBytes().length(),
            v -> v.getBytesArray().stream().mapToLong(b -> b == null ? 0 : b.length()).sum());
      }
      case DATE -> new ValueCodec<Date>(ValueParsers::date, Value::date, Value::dateArray, Value.date(null),
          Value.dateArray(null), v -> 4, v -> 4L * v.getDateArray().size())
          .withPlainParser(ValueParsers::plainDate);
      case TIMESTAMP, TIMESTAMP_WALL_CLOCK_AS_UTC -> new ValueCodec<Timestamp>(ValueParsers::timestamp,
          Value::timestamp, Value::timestampArray, Value.timestamp(null), Value.timestampArray(null),
          v -> 12, v -> 12L * v.getTimestampArray().size())
          .withPlainParser(ValueParsers::plainTimestamp);
      case JSON -> new ValueCodec<String>(ValueParsers::json, Value::json,
          Value::jsonArray, Value.json(null), Value.jsonArray(null),
          v -> v.getJson().length(), v -> stringsSize(v.getJsonArray()));
      case STRING, NUMERIC_TEXT, JSON_TEXT, UUID_TEXT, ENUM_TEXT, INTERVAL_ISO8601, TIME_TEXT, BIT_TEXT,
          TEXT_OUTPUT -> {
        int max = type.length() == null ? Integer.MAX_VALUE : type.length();
        yield new ValueCodec<String>(t -> ValueParsers.string(t, max), Value::string, Value::stringArray,
            Value.string(null), Value.stringArray(null),
            v -> v.getString().length(), v -> stringsSize(v.getStringArray()));
      }
      case SYNTHETIC -> throw new IllegalArgumentException("SYNTHETIC columns are never read from the source");
      // Needs the column's namespace: ColumnReader reads it with a reader of its own, and never inside arrays.
      case KEY_UUID -> throw new IllegalArgumentException("KEY_UUID columns are read by ColumnReader's KeyUuidReader");
    };
  }

  private static long numericSize(BigDecimal value) {
    return value == null ? 0 : value.precision() + 2;
  }

  private static long stringsSize(List<String> values) {
    long total = 0;
    for (String s : values) {
      total += s == null ? 0 : s.length();
    }
    return total;
  }
}
