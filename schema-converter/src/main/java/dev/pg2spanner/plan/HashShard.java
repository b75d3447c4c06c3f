package dev.pg2spanner.plan;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.spanner.SpannerType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A stored shard column's value: {@code MOD(ABS(FARM_FINGERPRINT(input)), shards)}, where input is each hashed
 * column as text, joined by '|' when there are several. One typed value prints the expression in either dialect and
 * computes the same shard in Java (a streamed delete must name the shard Spanner stored), so no code reads the
 * expression text back.
 *
 * <p>How each input becomes text is decided by its planned type and the dialect, and is written here once, for the
 * SQL and for Java side by side. GoogleSQL: a STRING as it is, {@code TO_BASE64} of BYTES, {@code UNIX_MICROS} of a
 * TIMESTAMP (no time zone enters), {@code CAST(x AS STRING)} of anything else. PostgreSQL dialect: a varchar/text as
 * it is, {@code extract(epoch from x)::text} of a timestamptz, {@code x::text} of anything else. Java computes the
 * text of STRING, INT64, BOOL and DATE in both dialects, and of BYTES and TIMESTAMP in GoogleSQL only (the PostgreSQL
 * dialect's text of bytea and of an epoch is not one pg2spanner reproduces): {@link #computable}.
 *
 * @param inputs the hashed columns (target names) in hash order, each with its planned type
 * @param shards the number of shards (the modulus)
 */
public record HashShard(List<Input> inputs, int shards) implements KeyExpression {

  private static final HashFunction FARM = Hashing.farmHashFingerprint64();

  /** One hashed column and its planned type (which decides the text hashed). */
  public record Input(String column, SpannerType type) {
    public Input {
      Objects.requireNonNull(column, "column");
      Objects.requireNonNull(type, "type");
    }
  }

  public HashShard {
    inputs = List.copyOf(inputs);
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("a hash shard hashes at least one column");
    }
    if (shards < 1) {
      throw new IllegalArgumentException("a hash shard needs at least one shard, not " + shards);
    }
  }

  /**
   * The shard over {@code columns}, each typed by {@code typeOf}.
   *
   * @throws IllegalArgumentException when a column has no type
   */
  public static HashShard over(List<String> columns, int shards, Function<String, SpannerType> typeOf) {
    List<Input> inputs = new ArrayList<>();
    for (String column : columns) {
      SpannerType type = typeOf.apply(column);
      if (type == null) {
        throw new IllegalArgumentException("no type for the hashed column " + column);
      }
      inputs.add(new Input(column, type));
    }
    return new HashShard(inputs, shards);
  }

  /**
   * The shard a table's hash-shard key strategy implies: its {@code shardSource} columns with the types the plan
   * gives them in {@code dialect}, and its {@code shards}. Empty when the table's strategy is not hash-shard, or is
   * incomplete, or names a column the table lacks or whose type does not parse (the plan validator reports those).
   */
  public static Optional<HashShard> of(TablePlan table, SpannerDialect dialect) {
    KeyStrategy s = table.keyStrategy();
    if (s == null || s.kind() != KeyStrategy.Kind.HASH_SHARD || s.shards() == null || s.shards() < 1
        || s.shardSource() == null || s.shardSource().isEmpty()) {
      return Optional.empty();
    }
    List<Input> inputs = new ArrayList<>();
    for (String name : s.shardSource()) {
      Optional<ColumnPlan> column = table.column(name);
      if (column.isEmpty()) {
        return Optional.empty();
      }
      try {
        inputs.add(new Input(name, SpannerType.parse(dialect, column.get().targetType())));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    return Optional.of(new HashShard(inputs, s.shards()));
  }

  /** The hashed columns' names, in hash order. */
  public List<String> columns() {
    return inputs.stream().map(Input::column).toList();
  }

  /** The stored generated column's expression in {@code dialect}. */
  @Override
  public String expression(SpannerDialect dialect) {
    List<String> parts = new ArrayList<>();
    for (Input input : inputs) {
      String q = SpannerNames.quote(dialect, input.column());
      SpannerType.Base base = input.type().base();
      if (dialect.isPostgres()) {
        parts.add(switch (base) {
          case STRING -> q;
          case TIMESTAMP -> "extract(epoch from " + q + ")::text";
          default -> q + "::text";
        });
      } else {
        parts.add(switch (base) {
          case STRING -> q;
          case BYTES -> "TO_BASE64(" + q + ")";
          // UNIX_MICROS keeps the text independent of any time zone.
          case TIMESTAMP -> "CAST(UNIX_MICROS(" + q + ") AS STRING)";
          default -> "CAST(" + q + " AS STRING)";
        });
      }
    }
    if (dialect.isPostgres()) {
      return "mod(abs(spanner.farm_fingerprint(" + String.join(" || '|' || ", parts) + ")), " + shards + ")";
    }
    String input = parts.size() == 1 ? parts.get(0) : "CONCAT(" + String.join(", '|', ", parts) + ")";
    return "MOD(ABS(FARM_FINGERPRINT(" + input + ")), " + shards + ")";
  }

  /** True when Java computes the text {@code input} is hashed as in {@code dialect} exactly as Spanner does. */
  public static boolean computable(Input input, SpannerDialect dialect) {
    return switch (input.type().base()) {
      case STRING, INT64, BOOL, DATE -> true;
      case BYTES, TIMESTAMP -> !dialect.isPostgres();
      default -> false;
    };
  }

  /** The first input whose text Java cannot compute in {@code dialect}, or empty. */
  public Optional<Input> firstNotComputable(SpannerDialect dialect) {
    return inputs.stream().filter(i -> !computable(i, dialect)).findFirst();
  }

  /**
   * The shard Spanner stores for one row, or null when an input is NULL (as in SQL).
   *
   * @param values one value per input, in order: a String (STRING), Long (INT64), Boolean (BOOL), LocalDate (DATE),
   *     byte[] (BYTES) or Instant (TIMESTAMP), or null
   * @throws IllegalArgumentException when a value does not fit its input's type, the input's text is not
   *     {@link #computable} (checked against GoogleSQL's forms), or the fingerprint is Long.MIN_VALUE (whose ABS
   *     overflows in Spanner too, so no such row exists)
   */
  public Long shard(List<?> values) {
    if (values.size() != inputs.size()) {
      throw new IllegalArgumentException(inputs.size() + " hashed values expected, not " + values.size());
    }
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < inputs.size(); i++) {
      Object value = values.get(i);
      if (value == null) {
        return null;
      }
      if (i > 0) {
        text.append('|');
      }
      text.append(text(inputs.get(i), value));
    }
    long fingerprint = FARM.hashString(text, StandardCharsets.UTF_8).asLong();
    if (fingerprint == Long.MIN_VALUE) {
      throw new IllegalArgumentException("ABS overflows for this key in Spanner too; the row cannot exist");
    }
    return Math.abs(fingerprint) % shards;
  }

  /** The text an input's value is hashed as (the same in both dialects for the computable types). */
  private static String text(Input input, Object value) {
    SpannerType.Base base = input.type().base();
    if (base == SpannerType.Base.STRING && value instanceof String s) {
      return s;
    } else if (base == SpannerType.Base.INT64 && value instanceof Long l) {
      return Long.toString(l);
    } else if (base == SpannerType.Base.BOOL && value instanceof Boolean b) {
      return b ? "true" : "false";
    } else if (base == SpannerType.Base.DATE && value instanceof LocalDate d) {
      return d.toString();
    } else if (base == SpannerType.Base.BYTES && value instanceof byte[] bytes) {
      return Base64.getEncoder().encodeToString(bytes);
    } else if (base == SpannerType.Base.TIMESTAMP && value instanceof Instant t) {
      return Long.toString(Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000));
    }
    throw new IllegalArgumentException("the shard hashes " + input.column() + " as " + input.type().ddl()
        + ", which pg2spanner cannot compute for a " + value.getClass().getSimpleName() + " value");
  }
}
