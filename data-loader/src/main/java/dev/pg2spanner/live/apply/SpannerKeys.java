package dev.pg2spanner.live.apply;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.HashShard;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerDialect;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Builds a row's whole Spanner primary key from its column values, for the mutations that must name a row by its
 * key: deletes. Most key parts are loaded columns; a hash-shard column is a STORED generated column that Spanner
 * computes on writes, but a delete must name it, and a delete with a wrong shard deletes nothing without an error.
 * So the shard is computed here as Spanner computes it, by the table's {@link HashShard}: the hash-shard key
 * strategy's columns with their planned types in the plan's dialect, and its shard count (the plan validator has
 * checked that the shard column's expression is the one they imply). Nothing reads the expression text.
 *
 * <p>A generated key part that is not the strategy's shard column, and a hashed type whose text Java does not
 * compute in that dialect ({@link HashShard#computable}: timestamptz and bytea in the PostgreSQL dialect), are
 * refused by {@link #of}, so a live run stops before it starts instead of missing deletes. Immutable and
 * thread-safe.
 */
public final class SpannerKeys {

  /** One part of the key: a loaded column's value, or a computed shard. */
  private sealed interface Part permits Loaded, Shard {}

  private record Loaded(String column) implements Part {}

  private record Shard(HashShard hash) implements Part {}

  private final String table;
  private final List<Part> parts;

  private SpannerKeys(String table, List<Part> parts) {
    this.table = table;
    this.parts = List.copyOf(parts);
  }

  /**
   * The key builder of a table whose key parts are loaded columns or planner-written shard columns.
   *
   * @throws Pg2SpannerException PLAN_INVALID naming the table and column when a key part is neither
   */
  public static SpannerKeys of(TablePlan table) {
    return of(table, SpannerDialect.GOOGLE_STANDARD_SQL);
  }

  /**
   * The key builder of a table whose key parts are loaded columns or planner-written shard columns, in a database of
   * {@code dialect}.
   *
   * @throws Pg2SpannerException PLAN_INVALID naming the table and column when a key part is neither
   */
  public static SpannerKeys of(TablePlan table, SpannerDialect dialect) {
    List<Part> parts = new ArrayList<>();
    for (KeyPart keyPart : table.primaryKey()) {
      ColumnPlan column = table.column(keyPart.column()).orElseThrow(() -> new Pg2SpannerException(
          ExitCode.PLAN_INVALID, "key column " + keyPart.column() + " of " + table.target() + " is not a column"));
      if (column.isLoaded()) {
        parts.add(new Loaded(column.target()));
      } else if (column.generatedExpression() != null && isStrategyShard(table, column)) {
        parts.add(new Shard(typedShard(table, column, dialect)));
      } else if (column.generatedExpression() != null) {
        throw notUnderstood(table, column);
      } else {
        throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "key column " + table.target() + "."
            + column.target() + " is neither read from the source nor computed from it, so a streamed delete "
            + "cannot name the row; such tables are updated by content (see RowKey)");
      }
    }
    return new SpannerKeys(table.target(), parts);
  }

  /** The loaded columns whose values the key needs (directly or through a shard). */
  public List<String> inputColumns() {
    List<String> columns = new ArrayList<>();
    for (Part part : parts) {
      if (part instanceof Loaded loaded) {
        if (!columns.contains(loaded.column())) {
          columns.add(loaded.column());
        }
      } else {
        for (String input : ((Shard) part).hash().columns()) {
          if (!columns.contains(input)) {
            columns.add(input);
          }
        }
      }
    }
    return columns;
  }

  /** True when the key holds a computed shard (worth a self-check against rows Spanner holds). */
  public boolean computesShard() {
    return parts.stream().anyMatch(p -> p instanceof Shard);
  }

  /**
   * The whole key.
   *
   * @param values the value of each loaded column by target name (at least {@link #inputColumns()})
   * @throws IllegalArgumentException when an input is missing or of a type the shard text is not known for
   */
  public Key key(Function<String, Value> values) {
    Key.Builder key = Key.newBuilder();
    for (Part part : parts) {
      if (part instanceof Loaded loaded) {
        append(key, require(values, loaded.column()));
      } else {
        key.append(shard(((Shard) part).hash(), values));
      }
    }
    return key.build();
  }

  /** The shard value Spanner computes for one row (null when an input is NULL, as in SQL). */
  private Long shard(HashShard hash, Function<String, Value> values) {
    List<Object> inputs = new ArrayList<>();
    for (String column : hash.columns()) {
      inputs.add(javaValue(require(values, column)));
    }
    try {
      return hash.shard(inputs);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the shard of " + table + ": " + e.getMessage(), e);
    }
  }

  /** A Spanner value as the plain Java value {@link HashShard#shard} takes, or null for NULL. */
  private static Object javaValue(Value value) {
    if (value.isNull()) {
      return null;
    }
    return switch (value.getType().getCode()) {
      case STRING -> value.getString();
      case INT64 -> value.getInt64();
      case BOOL -> value.getBool();
      case DATE -> LocalDate.of(value.getDate().getYear(), value.getDate().getMonth(),
          value.getDate().getDayOfMonth());
      case BYTES -> value.getBytes().toByteArray();
      case TIMESTAMP -> Instant.ofEpochSecond(value.getTimestamp().getSeconds(), value.getTimestamp().getNanos());
      default -> throw new IllegalArgumentException("a hashed key value of type " + value.getType()
          + " is not supported");
    };
  }

  private static Value require(Function<String, Value> values, String column) {
    Value v = values.apply(column);
    if (v == null) {
      throw new IllegalArgumentException("no value for key column " + column);
    }
    return v;
  }

  /** Appends one key value of any type a Spanner key can hold. */
  public static void append(Key.Builder key, Value v) {
    if (v.isNull()) {
      key.appendObject(null);
      return;
    }
    switch (v.getType().getCode()) {
      case BOOL -> key.append(v.getBool());
      case INT64 -> key.append(v.getInt64());
      case FLOAT32 -> key.append(v.getFloat32());
      case FLOAT64 -> key.append(v.getFloat64());
      case NUMERIC -> key.append(v.getNumeric());
      case STRING -> key.append(v.getString());
      case BYTES -> key.append(v.getBytes());
      case TIMESTAMP -> key.append(v.getTimestamp());
      case DATE -> key.append(v.getDate());
      default -> throw new IllegalArgumentException("a key part of type " + v.getType() + " is not supported");
    }
  }

  /** Is {@code column} the shard column the table's hash-shard key strategy added? */
  private static boolean isStrategyShard(TablePlan table, ColumnPlan column) {
    KeyStrategy strategy = table.keyStrategy();
    return strategy != null && strategy.kind() == KeyStrategy.Kind.HASH_SHARD
        && column.target().equals(strategy.shardColumn()) && strategy.shards() != null
        && strategy.shardSource() != null && !strategy.shardSource().isEmpty();
  }

  /** The strategy's shard, when Java computes each input's text as Spanner does in {@code dialect}. */
  private static HashShard typedShard(TablePlan table, ColumnPlan shard, SpannerDialect dialect) {
    HashShard hash = HashShard.of(table, dialect).orElseThrow(() -> notUnderstood(table, shard));
    for (String name : hash.columns()) {
      if (table.column(name).filter(ColumnPlan::isLoaded).isEmpty()) {
        throw notUnderstood(table, shard);
      }
    }
    hash.firstNotComputable(dialect).ifPresent(input -> {
      ColumnPlan column = table.column(input.column()).orElseThrow();
      throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "key column " + table.target() + "." + shard.target()
          + " hashes " + column.target() + " (" + column.targetType() + "), whose text pg2spanner cannot compute "
          + "the way Spanner's " + (dialect.isPostgres() ? "PostgreSQL" : "GoogleSQL") + " dialect does, so "
          + "streamed deletes could miss their rows; give " + table.source() + " another key strategy in the plan "
          + "(e.g. bit-reversed or keep), or migrate without --live");
    });
    return hash;
  }

  private static Pg2SpannerException notUnderstood(TablePlan table, ColumnPlan column) {
    return new Pg2SpannerException(ExitCode.PLAN_INVALID, "key column " + table.target() + "." + column.target()
        + " is computed by " + column.generatedExpression() + ", which a live run cannot evaluate to delete rows. "
        + "Only the shard column of the table's hash-shard key strategy is computed (keyStrategy.shardColumn); use "
        + "that strategy, or "
        + "migrate without --live");
  }
}
