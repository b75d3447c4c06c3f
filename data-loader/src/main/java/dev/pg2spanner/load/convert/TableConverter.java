package dev.pg2spanner.load.convert;

import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.row.CommitLimits;
import dev.pg2spanner.load.row.ConvertedRow;
import dev.pg2spanner.load.row.RejectedRow;
import dev.pg2spanner.load.row.RowKey;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.RowHash;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Turns the rows of one planned table into Spanner insert-or-update mutations. Compiled once per {@link TablePlan}:
 * the select list, one {@link ColumnReader} per loaded column and the key layout are fixed here, so converting a row
 * does no reflection, type lookup or string switch. Immutable and thread-safe (several pieces of one table may be
 * read at once).
 *
 * <p>Columns: a column is read by its source name and written under its target name when
 * {@link ColumnPlan#isLoaded()}. Generated columns and added (SYNTHETIC) columns are left to Spanner, except an added
 * key column without a generated expression (the {@code synthetic} key of a table without a primary key): the loader
 * writes it with a UUID derived from the source relation and the row's {@code ctid}, so a retried or resumed piece
 * overwrites its rows instead of duplicating them. That is stable only while rows do not move: VACUUM FULL, CLUSTER
 * or pg_repack on the source between a crash and {@code --resume} give rows new ctids, and the resumed pieces would
 * then add a second copy of rows already written.
 *
 * <p>Select list: the loaded columns' expressions in plan order, then {@code ctid::text} (for the key of rejected
 * rows and synthetic keys), then, for synthetic-key tables only, the relation name as a literal. Values are read by
 * position because this class wrote that list; looking each cell up by name would cost a map lookup per value on
 * the hottest path of the tool.
 */
public final class TableConverter {

  private final String table;
  private final ColumnReader[] readers;
  /** How a row of this table is named; its loaded columns are read into {@link #keySlot}. */
  private final RowKey rowKey;
  /** For each reader, its slot in {@link #rowKey}'s columns, or -1. */
  private final int[] keySlot;
  private final int keyColumns;
  private final SyntheticKey syntheticKey;
  private final int ctidPosition;
  private final String selectList;
  private final List<String> loadedColumns;
  private final List<String> sourceColumns;
  /** Whether {@link #copySql} asks for the binary format (always, unless the caller asked for text). */
  private final boolean binaryCopy;
  private final SpannerDialect dialect;
  /** The row hash column (issue 30), or null when the table has none (or no longer hashes every column it names). */
  private final String rowHashColumn;
  /** For the row hash: the readers whose values it covers, in {@code RowHash.columns()} order. */
  private final int[] hashedReaders;
  private final List<String> hashedColumns;

  private TableConverter(TablePlan plan, SpannerDialect dialect, boolean allowBinaryCopy) {
    this.table = plan.target();
    this.dialect = dialect;
    this.rowKey = RowKey.of(plan);
    // Key slots count only the loaded columns that name a row (a hash-shard column is computed by Spanner).
    Map<String, Integer> keyIndex = new HashMap<>();
    if (rowKey.kind() != RowKey.Kind.SYNTHETIC) {
      for (String column : rowKey.columns()) {
        keyIndex.put(column, keyIndex.size());
      }
    }
    List<String> keyTargets = plan.primaryKey().stream().map(KeyPart::column).toList();
    List<ColumnReader> compiled = new ArrayList<>();
    List<Integer> slots = new ArrayList<>();
    SyntheticKey synthetic = null;
    for (ColumnPlan column : plan.columns()) {
      if (column.isLoaded()) {
        compiled.add(ColumnReader.compile(column, compiled.size() + 1, dialect));
        slots.add(keyIndex.getOrDefault(column.target(), -1));
      } else if (column.source() == null && column.conversion() == ValueConversion.SYNTHETIC
          && column.generatedExpression() == null && keyTargets.contains(column.target())) {
        if (synthetic != null) {
          throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "table " + plan.target() + " has two added key "
              + "columns (" + synthetic.column + ", " + column.target() + "); keep one synthetic key column");
        }
        synthetic = SyntheticKey.of(plan.target(), column, dialect);
      }
    }
    this.readers = compiled.toArray(new ColumnReader[0]);
    this.keySlot = slots.stream().mapToInt(Integer::intValue).toArray();
    this.keyColumns = (int) slots.stream().filter(s -> s >= 0).count();
    this.syntheticKey = synthetic;
    this.ctidPosition = readers.length + 1;
    StringBuilder select = new StringBuilder();
    for (ColumnReader reader : readers) {
      select.append(reader.selectExpression).append(", ");
    }
    select.append("ctid::text");
    this.selectList = select.toString();
    List<String> loaded = new ArrayList<>();
    for (ColumnReader reader : readers) {
      loaded.add(reader.target);
    }
    if (synthetic != null) {
      loaded.add(synthetic.column);
    }
    this.loadedColumns = List.copyOf(loaded);
    List<String> sources = new ArrayList<>();
    for (ColumnReader reader : readers) {
      sources.add(reader.source());
    }
    this.sourceColumns = List.copyOf(sources);
    this.binaryCopy = allowBinaryCopy && readers.length > 0;
    int[] hashed = null;
    RowHash hash = plan.rowHash();
    if (hash != null && plan.column(hash.column()).isPresent() && !hash.columns().isEmpty()) {
      hashed = new int[hash.columns().size()];
      for (int h = 0; h < hashed.length; h++) {
        hashed[h] = loaded.indexOf(hash.columns().get(h));
        if (hashed[h] < 0 || hashed[h] >= readers.length) {
          hashed = null; // a hand-edited plan the validator refuses; never a hash of other columns
          break;
        }
      }
    }
    this.hashedReaders = hashed;
    this.rowHashColumn = hashed == null ? null : hash.column();
    this.hashedColumns = hashed == null ? List.of() : hash.columns();
  }

  /** The column the row hash is written to, or null when this table has none ({@link RowHash}). */
  public String rowHashColumn() {
    return rowHashColumn;
  }

  /** The target columns the row hash covers, in hash order; empty when there is no row hash. */
  public List<String> rowHashColumns() {
    return hashedColumns;
  }

  /** The dialect of the database the values are written to. */
  public SpannerDialect dialect() {
    return dialect;
  }

  /**
   * The converter of one table of a database in {@code dialect}.
   *
   * @throws Pg2SpannerException (PLAN_INVALID) for a plan the loader cannot write (e.g. a synthetic key column of
   *     a type it cannot generate)
   */
  public static TableConverter compile(TablePlan table, SpannerDialect dialect) {
    return new TableConverter(Objects.requireNonNull(table, "table"), dialect, true);
  }

  /**
   * One converter per target table of the plan, for {@link PieceReader}, in the plan's dialect: the one way the
   * loader, verify, the live stream and the Beam readers compile a plan, so none can write a PostgreSQL-dialect
   * plan's values as GoogleSQL ones.
   */
  public static Map<String, TableConverter> compileAll(dev.pg2spanner.plan.Plan plan) {
    return compileAll(plan, true);
  }

  /**
   * {@link #compileAll(dev.pg2spanner.plan.Plan)}, choosing whether {@link CopyPieceReader} may copy a table in
   * binary: false copies every table as text (the tests hold both formats to the same mutations).
   */
  public static Map<String, TableConverter> compileAll(dev.pg2spanner.plan.Plan plan, boolean binaryCopy) {
    SpannerDialect dialect = plan.target().spannerDialect();
    return plan.tables().stream().collect(Collectors.toUnmodifiableMap(TablePlan::target,
        t -> new TableConverter(t, dialect, binaryCopy)));
  }

  /**
   * The full SELECT of one piece, e.g.
   * {@code SELECT "id", "name"::text, ctid::text FROM ONLY "s"."t" WHERE ctid >= '(8,0)'::tid AND ctid < '(16,0)'::tid}.
   * A bound that does not restrict anything (block 0, the open end) is left out.
   */
  public String selectSql(Piece piece) {
    StringBuilder sql = new StringBuilder("SELECT ").append(selectList);
    if (syntheticKey != null) {
      sql.append(", ").append(PgNames.literal(relationName(piece))).append("::text");
    }
    sql.append(" FROM ").append(piece.only() ? "ONLY " : "")
        .append(PgNames.qualified(piece.relationSchema(), piece.relationName()));
    String where = piece.firstBlock() > 0 ? "ctid >= '(" + piece.firstBlock() + ",0)'::tid" : null;
    if (piece.endBlock() != null) {
      String upper = "ctid < '(" + piece.endBlock() + ",0)'::tid";
      where = where == null ? upper : where + " AND " + upper;
    }
    if (where != null) {
      sql.append(" WHERE ").append(where);
    }
    return sql.toString();
  }

  /**
   * The SELECT of the rows of {@code from} (e.g. {@code ONLY "s"."t"}) that {@code where} keeps, as
   * {@link #convert(ResultSet)} reads them: for looking rows up by key (continuous verification) rather than by
   * piece. Not for a table with a synthetic key (its key derives from each row's relation and location).
   */
  public String selectSql(String from, String where) {
    if (syntheticKey != null) {
      throw new IllegalStateException(table + " has a synthetic key: its rows are read by piece");
    }
    return "SELECT " + selectList + " FROM " + from + " WHERE " + where;
  }

  private static String relationName(Piece piece) {
    return piece.relationSchema() + "." + piece.relationName();
  }

  /** The target column names written, in order (the synthetic key, when there is one, last). */
  public List<String> loadedColumns() {
    return loadedColumns;
  }

  /**
   * Converts the current row of a result set produced by {@link #selectSql}. Never throws for a bad value: a value
   * that cannot be stored (or a NULL in a NOT NULL column) comes back as a {@link Rejected} naming the column.
   *
   * @throws SQLException only when the result set itself fails
   */
  public Result convert(ResultSet rs) throws SQLException {
    return convert(i -> readers[i].read(rs), false, new Origin() {
      @Override
      public Value syntheticKey() throws SQLException {
        return syntheticKey.value(rs.getString(ctidPosition + 1), rs.getString(ctidPosition));
      }

      @Override
      public String location() throws SQLException {
        return RowKey.location(rs.getString(ctidPosition));
      }
    });
  }

  /**
   * Converts a row given as each loaded column's text output — a change streamed by logical replication — with the
   * same per-column converters as {@link #convert(ResultSet)}, so a streamed row and a loaded row of the same values
   * become the same mutation. When every column is given the mutation is an insert-or-update of the whole row;
   * when some are not (unchanged TOASTed values, which logical replication does not send) it is an update of the
   * columns given, so Spanner keeps what it holds for the others.
   *
   * @param texts per loaded column, in {@link #sourceColumns()} order: the text, or null for SQL NULL
   * @param sent per loaded column: false when the change did not carry its value
   * @param relation the source relation the change is for, "schema.name" (a synthetic key is derived from it)
   * @param location where the change comes from, unique and stable (e.g. its WAL position and ordinal); names a row
   *     whose key cannot be converted, and derives a new synthetic key
   * @param existingSyntheticKey for a table with a synthetic key: the key of the Spanner row the change updates, or
   *     null to derive a new one (an insert)
   */
  public Result convertText(String[] texts, boolean[] sent, String relation, String location,
      Value existingSyntheticKey) {
    return convertText(texts, sent, Map.of(), relation, location, existingSyntheticKey);
  }

  /**
   * As {@link #convertText(String[], boolean[], String, String, Value)}, with the values the change did not carry
   * taken from {@code kept} where it holds them: the target's values of the row before the change (a row that moved
   * to another key keeps its unchanged TOASTed values), by target column. A row with every value is written whole.
   */
  public Result convertText(String[] texts, boolean[] sent, Map<String, Value> kept, String relation,
      String location, Value existingSyntheticKey) {
    if (texts.length != readers.length || sent.length != readers.length) {
      throw new IllegalArgumentException(table + " has " + readers.length + " loaded columns, the change gives "
          + texts.length);
    }
    boolean partial = false;
    for (int i = 0; i < sent.length; i++) {
      partial |= !sent[i] && !kept.containsKey(readers[i].target);
    }
    try {
      return convert(i -> !sent[i] ? kept.get(readers[i].target)
              : texts[i] == null ? readers[i].nullValue : readers[i].parse(texts[i]),
          partial, new Origin() {
            @Override
            public Value syntheticKey() {
              return existingSyntheticKey != null ? existingSyntheticKey : syntheticKey.value(relation, location);
            }

            @Override
            public String location() {
              return location;
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException("no result set is read here", e);
    }
  }

  /**
   * The piece as {@code COPY (SELECT ...) TO STDOUT}: each loaded column, then {@code ctid}, over the same rows as
   * {@link #selectSql}. In binary ({@link #copiesBinary}, the default): PostgreSQL's send functions cost it less than
   * its text output, and the loader decodes them without parsing; a column without a binary decoder is selected as
   * its output text ({@link BinaryValues#outputText}). Else as text: each column's own text output (what
   * {@link #convertText} parses, so the values are those a streamed change would carry). Read by
   * {@link CopyPieceReader}, on a snapshot reader (whose session settings fix the text forms).
   */
  public String copySql(Piece piece) {
    StringBuilder sql = new StringBuilder("COPY (SELECT ");
    for (ColumnReader reader : readers) {
      String q = PgNames.quote(reader.source());
      sql.append(binaryCopy && !reader.readsBinary() ? BinaryValues.outputText(q) : q).append(", ");
    }
    String select = selectSql(piece);
    // The FROM ... WHERE ... of the piece exactly as the result-set reader's.
    sql.append("ctid").append(select.substring(select.indexOf(" FROM ")));
    return sql.append(binaryCopy ? ") TO STDOUT (FORMAT binary)" : ") TO STDOUT").toString();
  }

  /** True when {@link #copySql} copies in binary: read its rows with {@link #convertCopied(CopyTuple, String)}. */
  public boolean copiesBinary() {
    return binaryCopy;
  }

  /**
   * Converts one row of {@link #copySql}'s binary output: each column's binary form decoded to the value or rejection
   * its text gives ({@link ColumnReader#parseCopied}), the synthetic key derived from the row's ctid as
   * {@link #convert(ResultSet)} derives it.
   *
   * @param cells per loaded column its field, then the row's ctid
   * @param relation the piece's source relation, "schema.name"
   */
  public Result convertCopied(CopyTuple cells, String relation) {
    int ctid = readers.length;
    return copied(cells.fields(), i -> cells.isNull(i) ? readers[i].nullValue
        : readers[i].parseCopied(cells.bytes(), cells.from(i), cells.length(i)),
        () -> BinaryValues.tid(cells.bytes(), cells.from(ctid), cells.length(ctid)), relation);
  }

  /**
   * Converts one row of {@link #copySql}'s output with the per-column parsers of {@link #convertText} (plain fields
   * straight from their bytes, {@link ColumnReader#parseAscii}); a synthetic key is derived from the relation and the
   * row's ctid exactly as {@link #convert(ResultSet)} derives it, so both readers write the same mutation for the
   * same row.
   *
   * @param cells per loaded column its field, then the row's ctid
   * @param relation the piece's source relation, "schema.name"
   */
  public Result convertCopied(CopyLine cells, String relation) {
    int ctid = readers.length;
    return copied(cells.fields(), i -> cells.isNull(i) ? readers[i].nullValue
        : cells.isPlain(i) ? readers[i].parseAscii(cells.bytes(), cells.from(i), cells.to(i))
        : readers[i].parse(cells.text(i)), () -> cells.text(ctid), relation);
  }

  /**
   * One COPY row, text or binary: its loaded columns' values from {@code cells}, and its ctid's text (printed only
   * when the row needs it: a synthetic key, or the name of a rejected row).
   *
   * @param fields the row's field count (the loaded columns, then the ctid)
   */
  private Result copied(int fields, Cells cells, java.util.function.Supplier<String> ctidText, String relation) {
    if (fields != readers.length + 1) {
      throw new IllegalArgumentException(table + " has " + readers.length + " loaded columns and a ctid, the COPY row "
          + "has " + fields + " fields");
    }
    try {
      return convert(cells, false, new Origin() {
        @Override
        public Value syntheticKey() {
          return syntheticKey.value(relation, ctidText.get());
        }

        @Override
        public String location() {
          return RowKey.location(ctidText.get());
        }
      });
    } catch (SQLException e) {
      throw new IllegalStateException("no result set is read here", e);
    }
  }

  /** One loaded column's value from its text output (see {@link #convertText}); the typed NULL for null. */
  public Value parseColumn(int index, String text) throws ValueRejection {
    ColumnReader reader = readers[index];
    return text == null ? reader.nullValue : reader.parse(text);
  }

  /** The source column names of the loaded columns, in converter order (what a streamed row must provide). */
  public List<String> sourceColumns() {
    return sourceColumns;
  }

  /** The values of one row, by loaded column; null for a value the change did not carry. */
  @FunctionalInterface
  private interface Cells {
    Value value(int index) throws SQLException, ValueRejection;
  }

  /** Where a row comes from: what derives its synthetic key and names it when its key cannot be converted. */
  private interface Origin {
    Value syntheticKey() throws SQLException;

    String location() throws SQLException;
  }

  private Result convert(Cells cells, boolean partial, Origin origin) throws SQLException {
    Mutation.WriteBuilder mutation = partial ? Mutation.newUpdateBuilder(table)
        : Mutation.newInsertOrUpdateBuilder(table);
    Value[] key = syntheticKey == null ? new Value[keyColumns] : null;
    Value[] row = hashedReaders == null ? null : new Value[readers.length];
    long bytes = 0;
    int written = 0;
    for (int i = 0; i < readers.length; i++) {
      ColumnReader reader = readers[i];
      Value value;
      try {
        value = cells.value(i);
      } catch (ValueRejection e) {
        return reject(cells, origin, reader.target, ValueParsers.excerpt(e.value()), e.getMessage());
      }
      if (value == null) {
        if (key != null && keySlot[i] >= 0) {
          return reject(cells, origin, reader.target, null, "the change did not carry the value of key column "
              + reader.target + " (an unchanged TOASTed value), so the row cannot be named");
        }
        continue;
      }
      if (reader.notNull && value.isNull()) {
        return reject(cells, origin, reader.target, null, "NULL in column " + reader.target + ", which the plan "
            + "makes NOT NULL");
      }
      mutation.set(reader.target).to(value);
      bytes += reader.size(value);
      written++;
      if (key != null && keySlot[i] >= 0) {
        key[keySlot[i]] = value;
      }
      if (row != null) {
        row[i] = value;
      }
    }
    if (row != null) {
      // A row written in part (an unchanged TOASTed value not known) gets NULL rather than a wrong hash: it is then
      // found by a scan. Every whole row gets the hash of its converted values.
      mutation.set(rowHashColumn).to(partial ? null : rowHash(row));
      bytes += 8;
      written++;
    }
    if (syntheticKey != null) {
      Value value = origin.syntheticKey();
      mutation.set(syntheticKey.column).to(value);
      bytes += syntheticKey.size;
      written++;
      return new Converted(ConvertedRow.keyedBy(mutation.build(), rowKey, new Value[] {value}, bytes, written));
    }
    if (key.length == 0) {
      return new Converted(new ConvertedRow(mutation.build(), origin.location(), bytes, written));
    }
    long keyBytes = rowKey.kind() == RowKey.Kind.PRIMARY_KEY ? keyBytes(key) : 0;
    if (keyBytes > CommitLimits.SPANNER.maxKeyBytes()) {
      // The emulator accepts such keys; Spanner does not, so the loader enforces the limit itself.
      return new Rejected(new RejectedRow(table, ValueParsers.excerpt(rowKey.text(key)), keyColumnName(), null,
          "the primary key is " + keyBytes + " bytes; Spanner allows at most " + CommitLimits.SPANNER.maxKeyBytes()
              + " bytes per key"));
    }
    return new Converted(ConvertedRow.keyedBy(mutation.build(), rowKey, key, bytes, written));
  }

  /** The row hash of a row's converted values, by reader index ({@link Canonical#rowHash64}). */
  private Long rowHash(Value[] row) {
    List<Value> values = new ArrayList<>(hashedReaders.length);
    for (int reader : hashedReaders) {
      if (row[reader] == null) {
        return null;
      }
      values.add(row[reader]);
    }
    return Canonical.rowHash64(values);
  }

  /** The key's size as Spanner counts it: UTF-8 bytes for strings, raw bytes, 8 for fixed-size values. */
  private static long keyBytes(Value[] key) {
    // Per row, so first a bound that needs no encoding: UTF-8 takes at most 3 bytes per UTF-16 unit.
    long bound = 0;
    for (Value v : key) {
      if (v != null && !v.isNull()) {
        bound += switch (v.getType().getCode()) {
          case STRING -> 3L * v.getString().length();
          case BYTES -> v.getBytes().length();
          case NUMERIC -> v.getNumeric().toPlainString().length();
          default -> 8;
        };
      }
    }
    if (bound <= CommitLimits.SPANNER.maxKeyBytes()) {
      return bound;
    }
    long total = 0;
    for (Value v : key) {
      if (v == null || v.isNull()) {
        continue;
      }
      total += switch (v.getType().getCode()) {
        case STRING -> v.getString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        case BYTES -> v.getBytes().length();
        case NUMERIC -> v.getNumeric().toPlainString().length();
        default -> 8;
      };
    }
    return total;
  }

  private String keyColumnName() {
    for (int i = 0; i < readers.length; i++) {
      if (keySlot[i] == 0) {
        return readers[i].target;
      }
    }
    return null;
  }

  /**
   * The key of a rejected row: its {@link RowKey} text when the identifying values convert, else its location (the
   * key may be the problem).
   */
  private Rejected reject(Cells cells, Origin origin, String column, String value, String reason)
      throws SQLException {
    String keyText = origin.location();
    if (syntheticKey != null) {
      keyText = rowKey.text(new Value[] {origin.syntheticKey()});
    } else if (keyColumns > 0) {
      Value[] key = new Value[keyColumns];
      try {
        for (int i = 0; i < readers.length; i++) {
          if (keySlot[i] >= 0) {
            key[keySlot[i]] = cells.value(i);
          }
        }
        if (java.util.Arrays.stream(key).allMatch(Objects::nonNull)) {
          keyText = rowKey.text(key);
        }
      } catch (ValueRejection e) {
        // keep the location
      }
    }
    return new Rejected(new RejectedRow(table, keyText, column, value, reason));
  }

  /** How this table's rows are named. */
  public RowKey rowKey() {
    return rowKey;
  }

  /** What {@link #convert} made of a row. */
  public sealed interface Result permits Converted, Rejected {}

  /** A row ready to write. */
  public record Converted(ConvertedRow row) implements Result {}

  /** A row that cannot be written, for the dead-letter file. */
  public record Rejected(RejectedRow row) implements Result {}

  /** The deterministic value of an added key column (see the class comment). */
  private record SyntheticKey(String column, Function<UUID, Value> fromUuid, long size) {

    static SyntheticKey of(String table, ColumnPlan column, SpannerDialect dialect) {
      SpannerType type = SpannerType.parse(dialect, column.targetType());
      return switch (type.base()) {
        case STRING -> {
          if (type.length() != null && type.length() < 36) {
            throw unsupported(table, column);
          }
          yield new SyntheticKey(column.target(), uuid -> Value.string(uuid.toString()), 36);
        }
        // 63 bits of the UUID: positive, and collisions are as unlikely as for a random INT64 key.
        case INT64 -> new SyntheticKey(column.target(),
            uuid -> Value.int64(uuid.getMostSignificantBits() & Long.MAX_VALUE), 8);
        default -> throw unsupported(table, column);
      };
    }

    private static Pg2SpannerException unsupported(String table, ColumnPlan column) {
      return new Pg2SpannerException(ExitCode.PLAN_INVALID, "the added key column " + table + "."
          + column.target() + " is " + column.targetType() + ", but the loader can only generate STRING(36 or more) "
          + "or INT64 synthetic keys; change its targetType in plan.yaml");
    }

    Value value(String relation, String ctid) {
      return fromUuid.apply(ValueParsers.syntheticKey(relation, ctid));
    }
  }
}
