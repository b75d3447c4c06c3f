package dev.pg2spanner.load.convert;

import com.google.cloud.ByteArray;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyUuid;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Reads one loaded column of the current row and returns its Spanner value. Built once per column by
 * {@link #compile}; every decision (select expression, JDBC getter, parser, limits, null value) is made there, so
 * reading a row is a fixed sequence of virtual calls. Stateless and thread-safe: pieces of one table are read by
 * several threads with the same readers.
 */
abstract class ColumnReader {

  /** The target column written. */
  final String target;
  /** The source column read. */
  private final String source;
  /** 1-based position of {@link #selectExpression} in the select list. */
  final int position;
  /** Reject a NULL here rather than let Spanner fail the whole commit it is in. */
  final boolean notNull;
  /** The SQL expression that reads the column, already quoted. */
  final String selectExpression;
  /** The typed NULL of this column. */
  final Value nullValue;
  /** Whether {@link #parseBinary} reads this column ({@link BinaryValues#decodes}). */
  private final boolean binary;

  private ColumnReader(ColumnPlan column, int position, String selectExpression, Value nullValue) {
    this.target = column.target();
    this.source = column.source();
    this.position = position;
    this.notNull = column.notNull();
    this.selectExpression = selectExpression;
    this.nullValue = nullValue;
    this.binary = BinaryValues.decodes(column.conversion(), column.sourceType());
  }

  /**
   * The column's value in the current row (the typed NULL for SQL NULL).
   *
   * @throws ValueRejection when the value cannot be stored in the target column
   */
  abstract Value read(ResultSet rs) throws SQLException, ValueRejection;

  /**
   * The column's value from the type's own text output — what logical replication sends for a changed row, printed
   * with {@link SnapshotSession}'s session settings — converted exactly as {@link #read} converts the load's select
   * expression, so a streamed change and a loaded row of the same value become the same Spanner value.
   *
   * @param text the non-null text (SQL NULL and unchanged TOASTed values are the caller's to handle)
   * @throws ValueRejection when the value cannot be stored in the target column
   */
  abstract Value parse(String text) throws ValueRejection;

  /**
   * {@link #parse} of a value whose text is ASCII without escapes, given as those bytes ({@link CopyLine}): the same
   * value or rejection, without building a {@code String} where the reader can parse the bytes themselves (integers,
   * booleans, dates, timestamps in their common form).
   */
  Value parseAscii(byte[] bytes, int from, int to) throws ValueRejection {
    return parse(ascii(bytes, from, to));
  }

  /**
   * True when {@link #parseBinary} reads this column's binary form; else a binary COPY selects its output text
   * ({@link BinaryValues#outputText}).
   */
  boolean readsBinary() {
    return binary;
  }

  /**
   * {@link #parse} of the value's binary form ({@code COPY ... (FORMAT binary)}, {@link CopyTuple}): the same value
   * or rejection, decoded without text. Only for a column that {@link #readsBinary}.
   */
  Value parseBinary(byte[] bytes, int from, int length) throws ValueRejection {
    throw new IllegalStateException("column " + target + " is not read in binary");
  }

  /**
   * The column's field of a binary COPY row ({@link CopyTuple}): its binary form where {@link #readsBinary}, else its
   * output text, parsed by {@link #parse}.
   */
  final Value parseCopied(byte[] bytes, int from, int length) throws ValueRejection {
    return readsBinary() ? parseBinary(bytes, from, length) : parse(BinaryValues.text(bytes, from, length));
  }

  static String ascii(byte[] bytes, int from, int to) {
    return new String(bytes, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  /** Approximate bytes of a value this reader returned, for commit sizing. */
  abstract long size(Value value);

  /** The source column read (its PostgreSQL name). */
  String source() {
    return source;
  }

  /**
   * The reader for a loaded column ({@link ColumnPlan#isLoaded()}).
   *
   * @param position the 1-based position the reader's expression takes in the select list
   * @param dialect the target database's dialect
   */
  static ColumnReader compile(ColumnPlan column, int position, SpannerDialect dialect) {
    if (!column.isLoaded()) {
      throw new IllegalArgumentException("column " + column.target() + " is not read from the source");
    }
    SpannerType type = SpannerType.parse(dialect, column.targetType());
    String q = PgNames.quote(column.source());
    ValueConversion conversion = column.conversion();
    if (type.isArray()) {
      ValueCodec<?> codec = ValueCodec.of(conversion, type.element(), dialect);
      ValueCodec<?> outputCodec = ValueCodec.ofOutputText(conversion, type.element(), column.sourceType(), dialect);
      String expression = switch (conversion) {
        // Widening real to float8 is exact, and the float8 text is the shortest exact decimal form.
        case FLOAT32, FLOAT64 -> q + "::float8[]";
        case MONEY_NUMERIC -> q + "::numeric[]";
        // Everything else as the array's own output: element output functions, so char(n) keeps its padding
        // (a ::text[] cast would trim it) and each element reads exactly as PostgreSQL prints it.
        default -> q;
      };
      // Only box uses ';' between array elements among the built-in types.
      char delimiter = column.sourceType() != null && column.sourceType().startsWith("box") ? ';' : ',';
      return arrayReader(column, position, expression, codec, outputCodec, delimiter, isVector(column.sourceType()));
    }
    return switch (conversion) {
      case BOOL -> new BoolReader(column, position, q);
      case INT64 -> new Int64Reader(column, position, q);
      case KEY_UUID -> new KeyUuidReader(column, position, q);
      case BYTES -> new BytesReader(column, position, q, type.length() == null ? Integer.MAX_VALUE : type.length());
      default -> textReader(column, position, scalarExpression(conversion, q), ValueCodec.of(conversion, type, dialect),
          ValueCodec.ofOutputText(conversion, type, column.sourceType(), dialect), dialect.isPostgres());
    };
  }

  @SuppressWarnings("unchecked")
  private static <T> ColumnReader textReader(ColumnPlan column, int position, String expression, ValueCodec<T> codec,
      ValueCodec<?> outputCodec, boolean postgresDialect) {
    return new TextReader<>(column, position, expression, codec, (ValueCodec<T>) outputCodec, postgresDialect);
  }

  @SuppressWarnings("unchecked")
  private static <T> ColumnReader arrayReader(ColumnPlan column, int position, String expression, ValueCodec<T> codec,
      ValueCodec<?> outputCodec, char delimiter, boolean vector) {
    return new ArrayReader<>(column, position, expression, codec, (ValueCodec<T>) outputCodec, delimiter, vector);
  }

  /**
   * True for {@code int2vector} and {@code oidvector}: PostgreSQL lists them as arrays (of smallint, of oid), but
   * prints them as integers separated by spaces ({@code 1 2}), not in braces.
   */
  static boolean isVector(String sourceType) {
    return "int2vector".equals(sourceType) || "oidvector".equals(sourceType);
  }

  /** The expression whose text a scalar text-parsed conversion reads. */
  private static String scalarExpression(ValueConversion conversion, String q) {
    return switch (conversion) {
      case FLOAT32, FLOAT64 -> q + "::float8::text";
      case MONEY_NUMERIC -> q + "::numeric::text";
      // Shift to UTC in PostgreSQL, so the text does not depend on any zone setting.
      case TIMESTAMP -> "(" + q + " AT TIME ZONE 'UTC')::text";
      // The output function as is: char(n) padding kept, and for TEXT_OUTPUT types exactly what psql prints
      // (a ::text cast differs for some, e.g. inet adds "/32"); ENUM_TEXT too, should it be edited onto such a type.
      case STRING, TEXT_OUTPUT, ENUM_TEXT -> q;
      default -> q + "::text";
    };
  }

  private static final Value TRUE = Value.bool(true);
  private static final Value FALSE = Value.bool(false);

  private static final class BoolReader extends ColumnReader {
    BoolReader(ColumnPlan column, int position, String expression) {
      super(column, position, expression, Value.bool((Boolean) null));
    }

    @Override
    Value read(ResultSet rs) throws SQLException {
      boolean v = rs.getBoolean(position);
      return rs.wasNull() ? nullValue : Value.bool(v);
    }

    @Override
    Value parse(String text) throws ValueRejection {
      return Value.bool(ValueParsers.bool(text));
    }

    @Override
    Value parseAscii(byte[] bytes, int from, int to) throws ValueRejection {
      if (to - from == 1 && (bytes[from] == 't' || bytes[from] == 'f')) {
        return bytes[from] == 't' ? TRUE : FALSE;
      }
      return super.parseAscii(bytes, from, to);
    }

    @Override
    Value parseBinary(byte[] bytes, int from, int length) {
      return BinaryValues.bool(bytes, from, length) ? TRUE : FALSE;
    }

    @Override
    long size(Value value) {
      return 1;
    }
  }

  private static final class Int64Reader extends ColumnReader {
    Int64Reader(ColumnPlan column, int position, String expression) {
      super(column, position, expression, Value.int64((Long) null));
    }

    @Override
    Value read(ResultSet rs) throws SQLException {
      long v = rs.getLong(position);
      return rs.wasNull() ? nullValue : Value.int64(v);
    }

    @Override
    Value parse(String text) throws ValueRejection {
      return Value.int64(ValueParsers.int64(text));
    }

    @Override
    Value parseAscii(byte[] bytes, int from, int to) throws ValueRejection {
      long v = ValueParsers.plainInt64(bytes, from, to);
      return v != ValueParsers.NOT_PLAIN ? Value.int64(v) : super.parseAscii(bytes, from, to);
    }

    @Override
    Value parseBinary(byte[] bytes, int from, int length) {
      return Value.int64(BinaryValues.int64(bytes, from, length));
    }

    @Override
    long size(Value value) {
      return 8;
    }
  }

  /** An integer key value (or a copy of one) replaced by its UUID: {@link KeyUuid#of} in the column's namespace. */
  private static final class KeyUuidReader extends ColumnReader {
    private final UUID namespace;

    KeyUuidReader(ColumnPlan column, int position, String expression) {
      super(column, position, expression, Value.string(null));
      if (column.uuidNamespace() == null) {
        throw new IllegalArgumentException("column " + column.target() + " has conversion KEY_UUID but no "
            + "uuidNamespace");
      }
      this.namespace = UUID.fromString(column.uuidNamespace());
    }

    @Override
    Value read(ResultSet rs) throws SQLException {
      long v = rs.getLong(position);
      return rs.wasNull() ? nullValue : Value.string(KeyUuid.of(namespace, v).toString());
    }

    @Override
    Value parse(String text) throws ValueRejection {
      return Value.string(KeyUuid.of(namespace, ValueParsers.int64(text)).toString());
    }

    @Override
    Value parseAscii(byte[] bytes, int from, int to) throws ValueRejection {
      long v = ValueParsers.plainInt64(bytes, from, to);
      return v != ValueParsers.NOT_PLAIN ? Value.string(KeyUuid.of(namespace, v).toString())
          : super.parseAscii(bytes, from, to);
    }

    @Override
    Value parseBinary(byte[] bytes, int from, int length) {
      return Value.string(KeyUuid.of(namespace, BinaryValues.int64(bytes, from, length)).toString());
    }

    @Override
    long size(Value value) {
      return value.isNull() ? 0 : 36;
    }
  }

  private static final class BytesReader extends ColumnReader {
    private final int maxBytes;

    BytesReader(ColumnPlan column, int position, String expression, int maxBytes) {
      super(column, position, expression, Value.bytes(null));
      this.maxBytes = maxBytes;
    }

    @Override
    Value read(ResultSet rs) throws SQLException, ValueRejection {
      byte[] v = rs.getBytes(position);
      return v == null ? nullValue : Value.bytes(ByteArray.copyFrom(ValueParsers.bytes(v, maxBytes)));
    }

    @Override
    Value parse(String text) throws ValueRejection {
      return Value.bytes(ByteArray.copyFrom(ValueParsers.bytes(ValueParsers.hexBytea(text), maxBytes)));
    }

    @Override
    Value parseBinary(byte[] bytes, int from, int length) throws ValueRejection {
      return Value.bytes(ByteArray.copyFrom(ValueParsers.bytes(Arrays.copyOfRange(bytes, from, from + length),
          maxBytes)));
    }

    @Override
    long size(Value value) {
      return value.isNull() ? 0 : value.getBytes().length();
    }
  }

  /** A scalar read as text and parsed in Java. */
  private static final class TextReader<T> extends ColumnReader {
    private final ValueCodec<T> codec;
    private final ValueCodec<T> outputCodec;
    /** The value from its binary form, or null when the column is not read in binary. */
    private final BinaryDecoder<T> binaryDecoder;

    TextReader(ColumnPlan column, int position, String expression, ValueCodec<T> codec, ValueCodec<T> outputCodec,
        boolean postgresDialect) {
      super(column, position, expression, codec.nullScalar());
      this.codec = codec;
      this.outputCodec = outputCodec;
      this.binaryDecoder = readsBinary() ? binaryDecoder(column, outputCodec, postgresDialect) : null;
    }

    /**
     * How this column's binary form becomes the value {@link #parse} gives for its text: directly where the value is
     * written as is, else through the text PostgreSQL would print and the same text parser (see {@link BinaryValues}).
     */
    @SuppressWarnings("unchecked")
    private static <T> BinaryDecoder<T> binaryDecoder(ColumnPlan column, ValueCodec<T> text, boolean postgresDialect) {
      boolean jsonb = BinaryValues.baseType(column.sourceType()).equals("jsonb");
      BinaryDecoder<?> decoder = switch (column.conversion()) {
        case FLOAT32 -> BinaryValues::float32;
        case FLOAT64 -> BinaryValues::float64;
        case NUMERIC -> postgresDialect ? (b, f, l) -> text.parse(BinaryValues.numericText(b, f, l))
            : (b, f, l) -> {
              BigDecimal value = BinaryValues.numeric(b, f, l);
              BigDecimal fitting = value == null ? null : ValueParsers.fittingNumeric(value);
              return fitting != null ? fitting : text.parse(BinaryValues.numericText(b, f, l));
            };
        case DATE -> (b, f, l) -> {
          com.google.cloud.Date date = BinaryValues.date(b, f, l);
          return date != null ? date : text.parse(BinaryValues.dateText(b, f, l));
        };
        case TIMESTAMP, TIMESTAMP_WALL_CLOCK_AS_UTC -> {
          boolean withZone = column.conversion() == ValueConversion.TIMESTAMP;
          yield (b, f, l) -> {
            com.google.cloud.Timestamp timestamp = BinaryValues.timestamp(b, f, l);
            return timestamp != null ? timestamp : text.parse(BinaryValues.timestampText(b, f, l, withZone));
          };
        }
        case JSON, JSON_TEXT -> jsonb ? (b, f, l) -> text.parse(BinaryValues.jsonb(b, f, l))
            : (b, f, l) -> text.parse(BinaryValues.text(b, f, l));
        case UUID_TEXT -> (b, f, l) -> text.parse(BinaryValues.uuid(b, f, l));
        case STRING, ENUM_TEXT -> (b, f, l) -> text.parse(BinaryValues.text(b, f, l));
        default -> throw new IllegalStateException("no binary decoder for conversion " + column.conversion()
            + " though BinaryValues.decodes accepts it");
      };
      return (BinaryDecoder<T>) decoder;
    }

    @Override
    Value parseBinary(byte[] bytes, int from, int length) throws ValueRejection {
      return outputCodec.scalar(binaryDecoder.decode(bytes, from, length));
    }

    @Override
    Value read(ResultSet rs) throws SQLException, ValueRejection {
      String text = rs.getString(position);
      return text == null ? nullValue : codec.scalar(codec.parse(text));
    }

    @Override
    Value parse(String text) throws ValueRejection {
      return outputCodec.scalar(outputCodec.parse(text));
    }

    @Override
    Value parseAscii(byte[] bytes, int from, int to) throws ValueRejection {
      T value = outputCodec.parsePlain(bytes, from, to);
      return value != null ? outputCodec.scalar(value) : parse(ascii(bytes, from, to));
    }

    @Override
    long size(Value value) {
      return value.isNull() ? 0 : codec.scalarSize(value);
    }
  }

  /** A value from its binary form (see {@link BinaryValues}). */
  @FunctionalInterface
  private interface BinaryDecoder<T> {
    T decode(byte[] bytes, int from, int length) throws ValueRejection;
  }

  /**
   * A one-dimensional array read as its text output (or a vector's: {@link #isVector}); each element converted with
   * the scalar rule.
   */
  private static final class ArrayReader<T> extends ColumnReader {
    private final ValueCodec<T> codec;
    private final ValueCodec<T> outputCodec;
    private final char delimiter;
    /** The value is an int2vector or oidvector: its text lists the elements separated by spaces. */
    private final boolean vector;

    ArrayReader(ColumnPlan column, int position, String expression, ValueCodec<T> codec, ValueCodec<T> outputCodec,
        char delimiter, boolean vector) {
      super(column, position, expression, codec.nullArray());
      this.codec = codec;
      this.outputCodec = outputCodec;
      this.delimiter = delimiter;
      this.vector = vector;
    }

    @Override
    Value read(ResultSet rs) throws SQLException, ValueRejection {
      String text = rs.getString(position);
      return text == null ? nullValue : array(codec, text);
    }

    @Override
    Value parse(String text) throws ValueRejection {
      return array(outputCodec, text);
    }

    @Override
    boolean readsBinary() {
      return false;
    }

    private Value array(ValueCodec<T> elementCodec, String text) throws ValueRejection {
      List<String> elements = vector ? ValueParsers.vectorElements(text) : ValueParsers.arrayElements(text, delimiter);
      List<T> values = new ArrayList<>(elements.size());
      for (String element : elements) {
        values.add(element == null ? null : elementCodec.parse(element));
      }
      return elementCodec.array(values);
    }

    @Override
    long size(Value value) {
      return value.isNull() ? 0 : codec.arraySize(value);
    }
  }
}
