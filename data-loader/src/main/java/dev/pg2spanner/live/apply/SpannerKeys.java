package dev.pg2spanner.live.apply;

import com.google.cloud.ByteArray;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds a row's whole Spanner primary key from its column values, for the mutations that must name a row by its
 * key: deletes. Most key parts are loaded columns; a hash-shard column is a STORED generated column that Spanner
 * computes on writes, but a delete must name it, and a delete with a wrong shard deletes nothing without an error.
 * So the shard is computed here exactly as Spanner computes it: {@code MOD(ABS(FARM_FINGERPRINT(input)), n)}, with
 * FarmHash Fingerprint64 (Guava's implementation of the same function) over the input text.
 *
 * <p>The shard column of the table's hash-shard key strategy is computed from the plan's typed facts, in either
 * dialect: the strategy's hashed columns and each one's planned type decide the text hashed, as the planner writes
 * it for that dialect (GoogleSQL: a STRING as it is, {@code CAST(x AS STRING)} of INT64, BOOL or DATE,
 * {@code TO_BASE64} of BYTES, {@code UNIX_MICROS} of TIMESTAMP; PostgreSQL: a varchar/text as it is, {@code x::text}
 * of bigint, boolean or date), joined by '|'. Any other generated key part in a GoogleSQL plan (a hand-edited one) is
 * read from its expression; in a PostgreSQL-dialect plan, and for a hashed type whose text Spanner's PostgreSQL
 * dialect writes differently (timestamptz, bytea), {@link #of} refuses, so a live run stops before it starts instead
 * of missing deletes. Immutable and thread-safe.
 */
public final class SpannerKeys {

  private static final HashFunction FARM = Hashing.farmHashFingerprint64();
  private static final Pattern SHARD = Pattern.compile("^MOD\\(ABS\\(FARM_FINGERPRINT\\((.*)\\)\\), ([0-9]+)\\)$");
  private static final Pattern QUOTED = Pattern.compile("^(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)$");
  private static final Pattern CAST = Pattern.compile("^CAST\\((.+) AS STRING\\)$");
  private static final Pattern MICROS = Pattern.compile("^CAST\\(UNIX_MICROS\\((.+)\\) AS STRING\\)$");
  private static final Pattern BASE64 = Pattern.compile("^TO_BASE64\\((.+)\\)$");

  /** One part of the key: a loaded column's value, or a computed shard. */
  private sealed interface Part permits Loaded, Shard {}

  private record Loaded(String column) implements Part {}

  private record Shard(List<Input> inputs, long shards) implements Part {}

  /** One hashed column and how it is turned into text. */
  private record Input(String column, Text text) {}

  private enum Text { STRING, CAST, MICROS, BASE64 }

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
    return of(table, SpannerLimits.GOOGLE_STANDARD_SQL);
  }

  /**
   * The key builder of a table whose key parts are loaded columns or planner-written shard columns, in a database of
   * {@code dialect}.
   *
   * @throws Pg2SpannerException PLAN_INVALID naming the table and column when a key part is neither
   */
  public static SpannerKeys of(TablePlan table, SpannerLimits dialect) {
    List<Part> parts = new ArrayList<>();
    for (KeyPart keyPart : table.primaryKey()) {
      ColumnPlan column = table.column(keyPart.column()).orElseThrow(() -> new Pg2SpannerException(
          ExitCode.PLAN_INVALID, "key column " + keyPart.column() + " of " + table.target() + " is not a column"));
      if (column.isLoaded()) {
        parts.add(new Loaded(column.target()));
      } else if (column.generatedExpression() != null && isStrategyShard(table, column)) {
        parts.add(typedShard(table, column, dialect));
      } else if (column.generatedExpression() != null) {
        if (dialect.isPostgres()) {
          throw notUnderstood(table, column); // only the strategy's shard column is known in this dialect
        }
        parts.add(shard(table, column));
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
        for (Input input : ((Shard) part).inputs()) {
          if (!columns.contains(input.column())) {
            columns.add(input.column());
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
        Long shard = shard((Shard) part, values);
        key.append(shard);
      }
    }
    return key.build();
  }

  /** The shard value Spanner computes for one row (null when an input is NULL, as in SQL). */
  private Long shard(Shard shard, Function<String, Value> values) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < shard.inputs().size(); i++) {
      Input input = shard.inputs().get(i);
      String part = text(input, require(values, input.column()));
      if (part == null) {
        return null;
      }
      if (i > 0) {
        text.append('|');
      }
      text.append(part);
    }
    long fingerprint = FARM.hashString(text, StandardCharsets.UTF_8).asLong();
    if (fingerprint == Long.MIN_VALUE) {
      throw new IllegalArgumentException("ABS overflows for this key in Spanner too; the row cannot exist");
    }
    return Math.abs(fingerprint) % shard.shards();
  }

  /** The text Spanner hashes for one input value, or null for NULL. */
  private String text(Input input, Value value) {
    if (value.isNull()) {
      return null;
    }
    Type.Code code = value.getType().getCode();
    return switch (input.text()) {
      case STRING -> {
        if (code != Type.Code.STRING) {
          throw unsupported(input, code);
        }
        yield value.getString();
      }
      case BASE64 -> {
        if (code != Type.Code.BYTES) {
          throw unsupported(input, code);
        }
        ByteArray bytes = value.getBytes();
        yield bytes.toBase64();
      }
      case MICROS -> {
        if (code != Type.Code.TIMESTAMP) {
          throw unsupported(input, code);
        }
        Timestamp t = value.getTimestamp();
        yield Long.toString(Math.addExact(Math.multiplyExact(t.getSeconds(), 1_000_000L), t.getNanos() / 1000));
      }
      case CAST -> switch (code) {
        case INT64 -> Long.toString(value.getInt64());
        case BOOL -> value.getBool() ? "true" : "false";
        case DATE -> value.getDate().toString();
        case STRING -> value.getString();
        default -> throw unsupported(input, code);
      };
    };
  }

  private IllegalArgumentException unsupported(Input input, Type.Code code) {
    return new IllegalArgumentException("the shard of " + table + " hashes " + input.column() + " as "
        + input.text() + ", which pg2spanner cannot compute for a " + code + " value");
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

  /**
   * The strategy's shard from its typed facts: the hashed columns, each one's planned type, the shard count. The text
   * of each type is the one the planner's expression hashes in that dialect.
   */
  private static Shard typedShard(TablePlan table, ColumnPlan shard, SpannerLimits dialect) {
    KeyStrategy strategy = table.keyStrategy();
    List<Input> inputs = new ArrayList<>();
    for (String name : strategy.shardSource()) {
      ColumnPlan input = table.column(name).filter(ColumnPlan::isLoaded)
          .orElseThrow(() -> notUnderstood(table, shard));
      SpannerType type;
      try {
        type = SpannerType.parse(dialect, input.targetType());
      } catch (IllegalArgumentException e) {
        throw notUnderstood(table, shard);
      }
      Text text = switch (type.isArray() ? SpannerType.Base.ARRAY : type.base()) {
        case STRING -> Text.STRING;
        case INT64, BOOL, DATE -> Text.CAST;
        case BYTES -> dialect.isPostgres() ? null : Text.BASE64;
        case TIMESTAMP -> dialect.isPostgres() ? null : Text.MICROS;
        default -> null;
      };
      if (text == null) {
        throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "key column " + table.target() + "." + shard.target()
            + " hashes " + input.target() + " (" + input.targetType() + "), whose text pg2spanner cannot compute the "
            + "way Spanner's " + (dialect.isPostgres() ? "PostgreSQL" : "GoogleSQL") + " dialect does, so streamed "
            + "deletes could miss their rows; give " + table.source() + " another key strategy in the plan (e.g. "
            + "bit-reversed or keep), or migrate without --live");
      }
      inputs.add(new Input(input.target(), text));
    }
    return new Shard(inputs, strategy.shards());
  }

  private static Shard shard(TablePlan table, ColumnPlan column) {
    Matcher m = SHARD.matcher(column.generatedExpression().strip());
    if (!m.matches()) {
      throw notUnderstood(table, column);
    }
    String input = m.group(1).strip();
    List<String> pieces = input.startsWith("CONCAT(") && input.endsWith(")")
        ? splitTopLevel(input.substring("CONCAT(".length(), input.length() - 1)) : List.of(input);
    List<Input> inputs = new ArrayList<>();
    for (int i = 0; i < pieces.size(); i++) {
      String piece = pieces.get(i).strip();
      if (i % 2 == 1) {
        if (!piece.equals("'|'")) {
          throw notUnderstood(table, column);
        }
        continue;
      }
      inputs.add(input(table, column, piece));
    }
    if (inputs.isEmpty()) {
      throw notUnderstood(table, column);
    }
    return new Shard(inputs, Long.parseLong(m.group(2)));
  }

  private static Input input(TablePlan table, ColumnPlan shard, String text) {
    Map<Pattern, Text> forms = Map.of(MICROS, Text.MICROS, BASE64, Text.BASE64, CAST, Text.CAST);
    for (Pattern form : List.of(MICROS, BASE64, CAST)) {
      Matcher m = form.matcher(text);
      if (m.matches()) {
        return new Input(column(table, shard, m.group(1).strip()), forms.get(form));
      }
    }
    return new Input(column(table, shard, text), Text.STRING);
  }

  private static String column(TablePlan table, ColumnPlan shard, String quoted) {
    if (!QUOTED.matcher(quoted).matches()) {
      throw notUnderstood(table, shard);
    }
    String name = quoted.startsWith("`") ? quoted.substring(1, quoted.length() - 1).replace("``", "`") : quoted;
    ColumnPlan input = table.column(name).orElseThrow(() -> notUnderstood(table, shard));
    if (!input.isLoaded()) {
      throw notUnderstood(table, shard);
    }
    return input.target();
  }

  /** Splits at commas outside parentheses and quotes. */
  private static List<String> splitTopLevel(String s) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    boolean quoted = false;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\'') {
        quoted = !quoted;
      } else if (!quoted && c == '(') {
        depth++;
      } else if (!quoted && c == ')') {
        depth--;
      } else if (!quoted && depth == 0 && c == ',') {
        parts.add(s.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(s.substring(start));
    return parts;
  }

  private static Pg2SpannerException notUnderstood(TablePlan table, ColumnPlan column) {
    return new Pg2SpannerException(ExitCode.PLAN_INVALID, "key column " + table.target() + "." + column.target()
        + " is computed by " + column.generatedExpression() + ", which a live run cannot evaluate to delete rows. "
        + "Use the hash-shard key strategy plan writes (a shard column over key columns), or "
        + "migrate without --live");
  }
}
