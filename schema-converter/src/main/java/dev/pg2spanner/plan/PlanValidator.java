package dev.pg2spanner.plan;

import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.spanner.SpannerType;
import dev.pg2spanner.spanner.SpannerType.Base;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The semantic checks a plan must pass before anything is applied: what the records' constructors cannot see
 * because it spans several fields or tables (names, key layout, interleaving, references). Every problem names
 * the field by its path, says what is wrong and what to do.
 */
public final class PlanValidator {

  /** Limits both dialects share (name length); per-dialect checks ask the plan's own dialect. */
  private static final SpannerLimits LIMITS = SpannerLimits.GOOGLE_STANDARD_SQL;

  private static final String NAME_RULE = "use letters, digits and underscores, starting with a letter, "
      + "at most " + LIMITS.maxIdentifierLength() + " characters";

  /**
   * Which target types each conversion can write. The loader compiles one converter per (conversion, type) pair,
   * so a person editing {@code targetType} must stay inside this table. For an ARRAY column the conversion
   * applies to each element and the element type must fit.
   */
  private static final Map<ValueConversion, Set<Base>> FITS = new EnumMap<>(ValueConversion.class);

  static {
    FITS.put(ValueConversion.BOOL, EnumSet.of(Base.BOOL));
    FITS.put(ValueConversion.INT64, EnumSet.of(Base.INT64));
    FITS.put(ValueConversion.FLOAT32, EnumSet.of(Base.FLOAT32));
    FITS.put(ValueConversion.FLOAT64, EnumSet.of(Base.FLOAT64));
    FITS.put(ValueConversion.NUMERIC, EnumSet.of(Base.NUMERIC));
    FITS.put(ValueConversion.NUMERIC_TEXT, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.MONEY_NUMERIC, EnumSet.of(Base.NUMERIC));
    FITS.put(ValueConversion.STRING, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.BYTES, EnumSet.of(Base.BYTES));
    FITS.put(ValueConversion.DATE, EnumSet.of(Base.DATE));
    FITS.put(ValueConversion.TIMESTAMP, EnumSet.of(Base.TIMESTAMP));
    FITS.put(ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC, EnumSet.of(Base.TIMESTAMP));
    FITS.put(ValueConversion.JSON, EnumSet.of(Base.JSON));
    FITS.put(ValueConversion.JSON_TEXT, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.UUID_TEXT, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.KEY_UUID, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.ENUM_TEXT, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.INTERVAL_ISO8601, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.TIME_TEXT, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.BIT_TEXT, EnumSet.of(Base.STRING));
    FITS.put(ValueConversion.TEXT_OUTPUT, EnumSet.of(Base.STRING));
    // Added columns are never converted; any scalar type Spanner can generate or default is fine.
    FITS.put(ValueConversion.SYNTHETIC, EnumSet.complementOf(EnumSet.of(Base.ARRAY)));
  }

  /** The canonical UUID text is 36 characters. */
  private static final int UUID_LENGTH = 36;

  private PlanValidator() {}

  /**
   * Every problem found, each as {@code "tables[2].columns[1].targetType: 'STRNG(10)' is not a Spanner GoogleSQL
   * column type (...)"}; empty when the plan can be applied.
   */
  public static List<String> problems(Plan plan) {
    Checker checker = new Checker(plan);
    checker.run();
    if (checker.typesOfTheOtherDialect > 0) {
      // Said first, so that a person who changed target.dialect by hand sees the cause before the column list.
      String other = checker.dialect.isPostgres() ? SpannerDialect.GOOGLE_STANDARD_SQL.dialect()
          : SpannerDialect.POSTGRESQL.dialect();
      checker.problems.add(0, "target.dialect: is " + plan.target().dialect() + ", but "
          + checker.typesOfTheOtherDialect + " column type(s) below are written in the " + other + " dialect; "
          + "set target.dialect back to " + other + ", or plan again with --dialect "
          + (checker.dialect.isPostgres() ? "googlesql" : "postgresql"));
    }
    return List.copyOf(checker.problems);
  }

  /** Whether {@code conversion} can write a column of {@code type} (the element type, for arrays). */
  static boolean fits(ValueConversion conversion, SpannerType type) {
    SpannerType scalar = type.isArray() ? type.element() : type;
    if (type.isArray() && (conversion == ValueConversion.SYNTHETIC || conversion == ValueConversion.KEY_UUID)) {
      return false;
    }
    if (!FITS.get(conversion).contains(scalar.base())) {
      return false;
    }
    boolean uuid = conversion == ValueConversion.UUID_TEXT || conversion == ValueConversion.KEY_UUID;
    return !uuid || scalar.length() == null || scalar.length() >= UUID_LENGTH;
  }

  /** The types {@code conversion} loads into, as {@code dialect} spells them. */
  private static String needs(ValueConversion conversion, SpannerDialect dialect) {
    String uuidText = SpannerType.string(UUID_LENGTH).ddl(dialect) + " or longer, or "
        + SpannerType.STRING_MAX.ddl(dialect);
    if (conversion == ValueConversion.SYNTHETIC) {
      return dialect.isPostgres() ? "a scalar type (not an array)" : "a scalar type (not an ARRAY)";
    }
    if (conversion == ValueConversion.UUID_TEXT) {
      return uuidText + (dialect.isPostgres() ? " (or an array of it)" : " (or an ARRAY of it)");
    }
    if (conversion == ValueConversion.KEY_UUID) {
      return uuidText + (dialect.isPostgres() ? " (never an array)" : " (never an ARRAY)");
    }
    if (dialect.isPostgres()) {
      String scalars = FITS.get(conversion).stream()
          .map(b -> b == Base.STRING ? "varchar(n)|varchar" : new SpannerType(b, null, null).ddl(dialect))
          .collect(Collectors.joining(" or "));
      return scalars + " (or an array of it, T[], for an array column)";
    }
    String scalars = FITS.get(conversion).stream()
        .map(b -> b == Base.STRING || b == Base.BYTES ? b + "(n|MAX)" : b.name())
        .collect(Collectors.joining(" or "));
    return scalars + " (or ARRAY<" + scalars + "> for an array column)";
  }

  /** One pass over the plan; collects problems in document order. */
  private static final class Checker {
    private final Plan plan;
    /** The plan's dialect and its limits (GoogleSQL when target.dialect is not one). */
    private final SpannerDialect dialect;
    /** Column types that are not this dialect's but are the other's: a target.dialect changed by hand. */
    private int typesOfTheOtherDialect;
    private final List<String> problems = new ArrayList<>();
    /** Target table name (exact) → index in tables. */
    private final Map<String, Integer> tableIndex = new HashMap<>();
    /** Per table: column target name (exact) → parsed type, or null when the type did not parse. */
    private final List<Map<String, SpannerType>> columnTypes = new ArrayList<>();
    /** Schema-object namespace: "schema\0name" lower-cased → who took it, for the duplicate message. */
    private final Map<String, String> namespace = new HashMap<>();
    private final Set<String> sequenceNames = new HashSet<>();
    /** The interleave hierarchy as declared, broken or not. */
    private InterleaveTree tree;

    Checker(Plan plan) {
      this.plan = plan;
      SpannerDialect dialect;
      try {
        dialect = plan.target().spannerDialect();
      } catch (IllegalArgumentException e) {
        dialect = null;
      }
      this.dialect = dialect == null ? SpannerDialect.GOOGLE_STANDARD_SQL : dialect;
    }

    private boolean parsesInOtherDialect(String text) {
      try {
        SpannerType.parse(this.dialect.isPostgres() ? SpannerDialect.GOOGLE_STANDARD_SQL : SpannerDialect.POSTGRESQL,
            text);
        return true;
      } catch (IllegalArgumentException e) {
        return false;
      }
    }

    void add(String path, String message) {
      problems.add(path + ": " + message);
    }

    void run() {
      if (!dialect.dialect().equals(plan.target().dialect())) {
        add("target.dialect", "'" + plan.target().dialect() + "' is not supported; use "
            + SpannerDialect.GOOGLE_STANDARD_SQL.dialect() + " or " + SpannerDialect.POSTGRESQL.dialect());
      }
      if (plan.target().nodes() < 1) {
        add("target.nodes", plan.target().nodes() + " is not a node count; write the expected number of Spanner "
            + "nodes (1 or more)");
      }
      if (plan.tables().isEmpty()) {
        add("tables", "is empty; a plan needs at least one table (run `pg2spanner plan` on schemas that have "
            + "tables)");
        return;
      }
      indexTables();
      tree = InterleaveTree.of(plan.tables());
      for (SequencePlan s : plan.sequences()) {
        sequenceNames.add(s.target());
      }
      for (int i = 0; i < plan.tables().size(); i++) {
        columnTypes.add(checkColumns(i, plan.tables().get(i)));
      }
      for (int i = 0; i < plan.tables().size(); i++) {
        TablePlan t = plan.tables().get(i);
        String p = "tables[" + i + "]";
        checkPrimaryKey(p, i, t);
        checkKeyStrategy(p, i, t);
        checkInterleave(p, i, t);
        checkIndexes(p, i, t);
        checkForeignKeys(p, i, t);
        checkChecks(p, t);
        checkSplitPoints(p, i, t);
        checkRowHash(p, i, t);
      }
      checkInterleaveChains();
      checkSequences();
    }

    /**
     * Split points: each a prefix of the primary key whose parts parse as the key columns' types (INT64 or STRING;
     * others cannot be split yet), strictly ascending in key order, so that Spanner accepts the request.
     */
    private void checkSplitPoints(String p, int i, TablePlan t) {
      List<List<String>> points = t.splitPoints();
      List<String> previous = null;
      for (int j = 0; j < points.size(); j++) {
        String sp = p + ".splitPoints[" + j + "]";
        List<String> point = points.get(j);
        if (point.isEmpty() || point.size() > t.primaryKey().size()) {
          add(sp, "has " + point.size() + " part(s); a split point gives 1 to " + t.primaryKey().size()
              + " values, the first parts of the primary key (" + String.join(", ", t.primaryKey().stream()
                  .map(KeyPart::column).toList()) + ")");
          return;
        }
        for (int k = 0; k < point.size(); k++) {
          SpannerType type = columnTypes.get(i).get(t.primaryKey().get(k).column());
          String value = point.get(k);
          if (type == null) {
            return; // the key column's own problem is reported with the key
          }
          if (value == null) {
            add(sp + "[" + k + "]", "is null; a split point value must be given");
            return;
          }
          if (type.base() == SpannerType.Base.INT64) {
            try {
              Long.parseLong(value);
            } catch (NumberFormatException e) {
              add(sp + "[" + k + "]", "'" + value + "' is not a whole number, but key column "
                  + t.primaryKey().get(k).column() + " is " + type.ddl(dialect));
              return;
            }
          } else if (type.base() != SpannerType.Base.STRING) {
            add(sp + "[" + k + "]", "key column " + t.primaryKey().get(k).column() + " is " + type.ddl(dialect)
                + "; split points are supported on " + SpannerType.INT64.ddl(dialect) + " and "
                + SpannerType.STRING_MAX.ddl(dialect) + " key columns only, remove them");
            return;
          }
        }
        if (previous != null && compareKeys(previous, point, t, i) >= 0) {
          add(sp, point + " does not come after " + previous + " in key order; list split points in ascending key "
              + "order, each once");
          return;
        }
        previous = point;
      }
    }

    /** Key order of two split points (a shorter prefix sorts before its extensions). */
    private int compareKeys(List<String> a, List<String> b, TablePlan t, int i) {
      for (int k = 0; k < Math.min(a.size(), b.size()); k++) {
        KeyPart part = t.primaryKey().get(k);
        SpannerType type = columnTypes.get(i).get(part.column());
        int c = type.base() == SpannerType.Base.INT64 ? Long.compare(Long.parseLong(a.get(k)),
            Long.parseLong(b.get(k))) : byCodePoint(a.get(k), b.get(k));
        if (c != 0) {
          return part.descending() ? -c : c;
        }
      }
      return Integer.compare(a.size(), b.size());
    }

    /** Spanner orders STRING by UTF-8 bytes, which is code point order (not Java's UTF-16 order). */
    private static int byCodePoint(String a, String b) {
      int[] x = a.codePoints().toArray();
      int[] y = b.codePoints().toArray();
      return java.util.Arrays.compare(x, y);
    }

    private void indexTables() {
      Map<String, Integer> sources = new HashMap<>();
      for (int i = 0; i < plan.tables().size(); i++) {
        TablePlan t = plan.tables().get(i);
        String p = "tables[" + i + "]";
        Integer firstSource = sources.putIfAbsent(t.source(), i);
        if (firstSource != null) {
          add(p + ".source", "'" + t.source() + "' is already planned as tables[" + firstSource + "]; a source "
              + "table may appear once, delete one of the two entries");
        }
        if (t.rowsEstimate() != null && (t.rowsEstimate() < 0 || t.rowsEstimate().isNaN())) {
          add(p + ".rowsEstimate", t.rowsEstimate() + " is not a row count; write a number ≥ 0, or remove it "
              + "when unknown");
        }
        if (t.bytesEstimate() < 0) {
          add(p + ".bytesEstimate", t.bytesEstimate() + " is negative; write the size in bytes (0 when unknown)");
        }
        if (checkName(p + ".target", t.target())) {
          claim(p + ".target", "table", t.targetSchema(), t.targetName());
        }
        tableIndex.putIfAbsent(t.target(), i);
      }
    }

    private Map<String, SpannerType> checkColumns(int i, TablePlan t) {
      String p = "tables[" + i + "].columns";
      Map<String, SpannerType> types = new HashMap<>();
      if (t.columns().isEmpty()) {
        add(p, "is empty; a table needs at least one column");
      } else if (t.columns().size() > dialect.limits().maxColumnsPerTable()) {
        List<String> added = t.columns().stream().filter(c -> c.source() == null).map(ColumnPlan::target).toList();
        // Said apart, so the count can be checked against the source's own (issue 28).
        add(p, "has " + t.columns().size() + " columns" + (added.isEmpty() ? "" : " (" + (t.columns().size()
            - added.size()) + " from the source and " + added.size() + " the plan added: " + String.join(", ", added)
            + ")") + "; Spanner allows at most " + dialect.limits().maxColumnsPerTable() + " per table: move some to another "
            + "table with the same key, or leave the table out");
      }
      Map<String, Integer> seen = new HashMap<>();
      for (int j = 0; j < t.columns().size(); j++) {
        ColumnPlan c = t.columns().get(j);
        String cp = p + "[" + j + "]";
        if (legalIdentifier(cp + ".target", c.target())) {
          Integer first = seen.putIfAbsent(c.target().toLowerCase(Locale.ROOT), j);
          if (first != null) {
            add(cp + ".target", "'" + c.target() + "' is already used by columns[" + first + "] ('"
                + t.columns().get(first).target() + "'); Spanner column names are case-insensitive, "
                + "pick another name");
          }
        }
        SpannerType type = null;
        try {
          type = SpannerType.parse(dialect, c.targetType());
        } catch (IllegalArgumentException e) {
          add(cp + ".targetType", e.getMessage());
          if (parsesInOtherDialect(c.targetType())) {
            typesOfTheOtherDialect++;
          }
        }
        types.putIfAbsent(c.target(), type);
        if (type != null && !fits(c.conversion(), type)) {
          add(cp + ".targetType", type.ddl(dialect) + " does not fit conversion " + c.conversion() + ", which needs "
              + needs(c.conversion(), dialect) + "; change targetType to one of those");
        }
        boolean added = c.source() == null;
        if (added && c.conversion() != ValueConversion.SYNTHETIC) {
          add(cp + ".conversion", c.conversion() + " needs a source column, but source is null (a column the "
              + "plan adds); use SYNTHETIC for added columns, or set source");
        }
        if (!added && c.conversion() == ValueConversion.SYNTHETIC) {
          add(cp + ".conversion", "SYNTHETIC is only for columns the plan adds (source null), but this column "
              + "comes from source column '" + c.source() + "'; restore the conversion `pg2spanner plan` wrote");
        }
        if (added && c.notNull() && blank(c.defaultExpression()) && blank(c.generatedExpression())) {
          add(cp, "added column '" + c.target() + "' is NOT NULL but has neither defaultExpression nor "
              + "generatedExpression, and the loader never writes it; add one of them (e.g. defaultExpression: "
              + "GENERATE_UUID())");
        }
        if (c.conversion() == ValueConversion.KEY_UUID) {
          if (blank(c.uuidNamespace())) {
            add(cp + ".uuidNamespace", "is required for conversion KEY_UUID: the namespace UUID the integer values "
                + "are mapped in; copy it from the column this one references (`pg2spanner plan` writes it)");
          } else if (!isUuid(c.uuidNamespace())) {
            add(cp + ".uuidNamespace", "'" + c.uuidNamespace() + "' is not a UUID; restore the value `pg2spanner "
                + "plan` wrote");
          }
        } else if (c.uuidNamespace() != null) {
          add(cp + ".uuidNamespace", "is only used with conversion KEY_UUID, but the conversion is "
              + c.conversion() + "; remove uuidNamespace");
        }
        if (c.defaultExpression() != null && c.generatedExpression() != null) {
          add(cp, "has both defaultExpression and generatedExpression; Spanner allows one, remove the other");
        }
      }
      return types;
    }

    private void checkPrimaryKey(String p, int i, TablePlan t) {
      String kp = p + ".primaryKey";
      if (t.primaryKey().isEmpty()) {
        add(kp, "is empty; Spanner needs a primary key: for a table without one use keyStrategy kind synthetic "
            + "with an added key column (source null, conversion SYNTHETIC)");
        return;
      }
      if (t.primaryKey().size() > dialect.limits().maxKeyColumns()) {
        add(kp, "has " + t.primaryKey().size() + " parts; Spanner allows at most " + dialect.limits().maxKeyColumns()
            + " key columns");
      }
      checkKeyParts(kp, i, t, t.primaryKey(), "key");
    }

    /** Existence, duplicates and key-able types, for primary keys and index keys alike. */
    private void checkKeyParts(String kp, int i, TablePlan t, List<KeyPart> parts, String what) {
      Set<String> seen = new HashSet<>();
      for (int k = 0; k < parts.size(); k++) {
        String column = parts.get(k).column();
        String cp = kp + "[" + k + "].column";
        if (!hasColumn(cp, i, t, column)) {
          continue;
        }
        if (!seen.add(column.toLowerCase(Locale.ROOT))) {
          add(cp, "'" + column + "' appears twice in the " + what + "; remove one");
        }
        SpannerType type = columnTypes.get(i).get(column);
        if (type != null && !dialect.canBeKey(type)) {
          add(cp, "'" + column + "' is " + type.ddl(dialect) + "; Spanner cannot use "
              + (dialect.isPostgres() ? "array, jsonb, numeric or real" : "ARRAY or JSON") + " columns in a "
              + what + ", choose another column" + (dialect.isPostgres() && SpannerDialect.GOOGLE_STANDARD_SQL
                  .canBeKey(type) ? " (or plan this table with --dialect googlesql, where it can)" : ""));
        }
        if (dialect.isPostgres() && what.equals("key") && parts.get(k).descending()) {
          add(kp + "[" + k + "].descending", "a PostgreSQL-dialect primary key has no descending parts; set "
              + "descending to false");
        }
      }
    }

    private void checkKeyStrategy(String p, int i, TablePlan t) {
      KeyStrategy s = t.keyStrategy();
      String sp = p + ".keyStrategy";
      String kind = s.kind().json();
      if (blank(s.reason())) {
        add(sp + ".reason", "is empty; say in one sentence why this table uses " + kind
            + " (the report shows it to reviewers)");
      }
      Set<String> used = switch (s.kind()) {
        case BIT_REVERSED -> Set.of("sequence");
        case HASH_SHARD -> Set.of("shardColumn", "shards", "shardSource");
        case UUID -> Set.of("keptKeyColumn");
        case KEEP, SWAP, SYNTHETIC -> Set.of();
      };
      unused(sp, kind, used, "sequence", s.sequence());
      unused(sp, kind, used, "shardColumn", s.shardColumn());
      unused(sp, kind, used, "shards", s.shards());
      unused(sp, kind, used, "shardSource", s.shardSource());
      unused(sp, kind, used, "keptKeyColumn", s.keptKeyColumn());
      String first = t.primaryKey().isEmpty() ? null : t.primaryKey().get(0).column();
      SpannerType firstType = first == null ? null : columnTypes.get(i).get(first);
      switch (s.kind()) {
        case BIT_REVERSED -> {
          if (blank(s.sequence())) {
            add(sp + ".sequence", "is required for kind bit-reversed; name the Spanner sequence (an entry of "
                + "sequences) that gives new rows their ids");
          } else if (!sequenceNames.contains(s.sequence())) {
            add(sp + ".sequence", "no entry of sequences has target '" + s.sequence() + "'"
                + suggest(s.sequence(), sequenceNames) + "; add the sequence or fix the name");
          }
          if (firstType != null && !firstType.equals(SpannerType.INT64)) {
            add(sp + ".kind", "bit-reversed needs a first key column of type " + SpannerType.INT64.ddl(dialect) + ", but '"
                + first + "' is "
                + firstType.ddl(dialect) + "; choose another kind (e.g. uuid or hash-shard)");
          }
        }
        case HASH_SHARD -> checkHashShard(sp, i, t, s, first);
        case UUID -> {
          if (firstType != null && !isUuidText(firstType)) {
            add(sp + ".kind", "uuid needs a " + SpannerType.string(UUID_LENGTH).ddl(dialect) + " or "
                + SpannerType.STRING_MAX.ddl(dialect) + " first key column, but '" + first + "' is "
                + firstType.ddl(dialect) + "; change that column's targetType or choose another kind (for an integer key, "
                + "`pg2spanner plan --key-strategy " + t.source() + "=uuid` remaps it and every reference to it)");
          }
          if (s.keptKeyColumn() != null && hasColumn(sp + ".keptKeyColumn", i, t, s.keptKeyColumn())
              && s.keptKeyColumn().equals(first)) {
            add(sp + ".keptKeyColumn", "'" + first + "' is the new UUID key itself; name the column that keeps "
                + "the old key values");
          }
        }
        case SYNTHETIC -> {
          if (first != null && t.column(first).map(c -> c.source() != null).orElse(false)) {
            add(sp + ".kind", "synthetic keys the table by a column the plan adds, but the first key column '"
                + first + "' comes from the source; use keep (or another kind) for a table with a key, or put the "
                + "added column first in primaryKey");
          }
        }
        case KEEP, SWAP -> {
          // Nothing beyond the key checks: both keep the table's own columns as its key.
        }
      }
    }

    private void checkHashShard(String sp, int i, TablePlan t, KeyStrategy s, String first) {
      int before = problems.size();
      checkHashShardFields(sp, i, t, s, first);
      if (problems.size() == before) {
        checkShardExpression(i, t, s);
      }
    }

    /**
     * The shard column computes what the strategy says: the expression a person may have edited is the one the
     * strategy's columns, their types and the shard count imply in this dialect, since the live path computes a
     * deleted row's shard from the strategy, not from the text (whitespace aside).
     */
    private void checkShardExpression(int i, TablePlan t, KeyStrategy s) {
      Optional<HashShard> shard = HashShard.of(t, dialect);
      int c = t.columns().stream().map(ColumnPlan::target).toList().indexOf(s.shardColumn());
      if (shard.isEmpty() || c < 0) {
        return;
      }
      String written = t.columns().get(c).generatedExpression();
      String implied = shard.get().expression(dialect);
      if (written != null && !written.strip().replaceAll("\\s+", " ").equals(implied)) {
        add("tables[" + i + "].columns[" + c + "].generatedExpression", "the shard column " + t.target() + "."
            + s.shardColumn() + " is computed by " + written.strip() + ", but its hash-shard strategy (shardSource "
            + s.shardSource() + ", shards " + s.shards() + ") implies " + implied + "; write that expression, or "
            + "change keyStrategy.shardSource/shards to match (a live run computes a deleted row's shard from the "
            + "strategy)");
      }
    }

    private void checkHashShardFields(String sp, int i, TablePlan t, KeyStrategy s, String first) {
      if (blank(s.shardColumn())) {
        add(sp + ".shardColumn", "is required for kind hash-shard; name the added shard column (the first key "
            + "part)");
      } else if (hasColumn(sp + ".shardColumn", i, t, s.shardColumn())) {
        if (!s.shardColumn().equals(first)) {
          add(sp + ".shardColumn", "'" + s.shardColumn() + "' must be the first key part, but primaryKey starts "
              + "with " + (first == null ? "nothing" : "'" + first + "'") + "; put it first in primaryKey");
        }
        SpannerType type = columnTypes.get(i).get(s.shardColumn());
        if (type != null && !type.equals(SpannerType.INT64)) {
          add(sp + ".shardColumn", "'" + s.shardColumn() + "' is " + type.ddl(dialect) + "; a shard column is "
              + SpannerType.INT64.ddl(dialect));
        }
        if (t.column(s.shardColumn()).map(c -> blank(c.generatedExpression())).orElse(false)) {
          add(sp + ".shardColumn", "'" + s.shardColumn() + "' has no generatedExpression; a shard column is a "
              + "STORED generated column such as MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), " 
              + (s.shards() == null ? 16 : s.shards()) + ")");
        }
      }
      if (s.shards() == null) {
        add(sp + ".shards", "is required for kind hash-shard; write the number of shards (2 or more, typically "
            + "the expected node count or a multiple of it)");
      } else if (s.shards() < 2) {
        add(sp + ".shards", s.shards() + " shards cannot spread writes; use 2 or more");
      }
      if (s.shardSource() == null || s.shardSource().isEmpty()) {
        add(sp + ".shardSource", "is required for kind hash-shard; list the key columns hashed into the shard");
        return;
      }
      Set<String> keyColumns = t.primaryKey().stream().map(KeyPart::column).collect(Collectors.toSet());
      for (int k = 0; k < s.shardSource().size(); k++) {
        String column = s.shardSource().get(k);
        String cp = sp + ".shardSource[" + k + "]";
        if (!hasColumn(cp, i, t, column)) {
          continue;
        }
        if (column.equals(s.shardColumn())) {
          add(cp, "the shard column cannot be hashed into itself; list the original key columns");
        } else if (!keyColumns.contains(column)) {
          add(cp, "'" + column + "' is not a key column; the shard must be derived from the key so that a row "
              + "never changes shard");
        }
      }
    }

    private void unused(String sp, String kind, Set<String> used, String field, Object value) {
      if (value != null && !used.contains(field)) {
        add(sp + "." + field, "is not used by kind " + kind + "; remove it"
            + (used.isEmpty() ? "" : " (" + kind + " uses " + String.join(", ", sorted(used)) + ")"));
      }
    }

    private void checkInterleave(String p, int i, TablePlan t) {
      Interleave in = t.interleave();
      if (in == null) {
        return;
      }
      String ip = p + ".interleave.parent";
      Integer parentIndex = tableIndex.get(in.parent());
      if (parentIndex == null) {
        add(ip, "no table has target '" + in.parent() + "'" + suggest(in.parent(), tableIndex.keySet())
            + "; name the parent's target, or set interleave: null");
        return;
      }
      if (parentIndex == i) {
        return; // reported as a cycle
      }
      TablePlan parent = plan.tables().get(parentIndex);
      List<KeyPart> parentKey = parent.primaryKey();
      List<KeyPart> key = t.primaryKey();
      boolean prefix = parentKey.size() <= key.size();
      for (int k = 0; prefix && k < parentKey.size(); k++) {
        prefix = parentKey.get(k).column().equals(key.get(k).column());
      }
      if (!prefix) {
        add(p + ".primaryKey", "must start with the primary key of its interleave parent '" + parent.target()
            + "' (" + columns(parentKey) + "), with the same column names in the same order, but it is ("
            + columns(key) + "); change the key, or set interleave: null");
        return;
      }
      for (int k = 0; k < parentKey.size(); k++) {
        String column = key.get(k).column();
        SpannerType mine = columnTypes.get(i).get(column);
        SpannerType theirs = columnTypes.get(parentIndex).get(parentKey.get(k).column());
        if (mine != null && theirs != null && !mine.equals(theirs)) {
          add(p + ".primaryKey[" + k + "].column", "'" + column + "' is " + mine.ddl(dialect) + " here but "
              + theirs.ddl(dialect) + " in interleave parent '" + parent.target() + "'; interleaved keys must have the "
              + "same types, align the targetType");
        }
        checkSameMapping(p + ".primaryKey[" + k + "].column", t, column, parent, parentKey.get(k).column());
      }
    }

    /** Cycles, depth and order; each reported once, on the table where it is found. */
    private void checkInterleaveChains() {
      Set<String> reportedCycles = new HashSet<>();
      for (int i = 0; i < plan.tables().size(); i++) {
        String table = plan.tables().get(i).target();
        List<String> ancestors = tree.ancestors(table);
        String ip = "tables[" + i + "].interleave.parent";
        if (tree.inCycle(table)) {
          // On the cycle (not only below it) and the first of its tables: the walk comes back to the table.
          boolean onCycle = !ancestors.isEmpty() && ancestors.get(ancestors.size() - 1).equals(table);
          if (onCycle && reportedCycles.add(table)) {
            reportedCycles.addAll(ancestors);
            add(ip, "interleave cycle " + table + " → " + String.join(" → ", ancestors) + "; a table cannot be "
                + "its own ancestor, set interleave: null on one of them");
          }
          continue;
        }
        int depth = tree.depth(table);
        if (depth > dialect.limits().maxInterleaveDepth()) {
          add("tables[" + i + "].interleave", "interleaving depth " + depth + " exceeds Spanner's limit of "
              + dialect.limits().maxInterleaveDepth() + " (" + table + " → " + String.join(" → ", ancestors) + "); make one "
              + "of its ancestors top-level");
        }
        if (!ancestors.isEmpty() && tableIndex.get(ancestors.get(0)) > i) {
          add(ip, "parent '" + ancestors.get(0) + "' is tables[" + tableIndex.get(ancestors.get(0))
              + "], after this table; list parents before their interleaved children");
        }
      }
    }

    private void checkIndexes(String p, int i, TablePlan t) {
      Set<String> keyColumns = t.primaryKey().stream().map(KeyPart::column).collect(Collectors.toSet());
      for (int k = 0; k < t.indexes().size(); k++) {
        IndexPlan x = t.indexes().get(k);
        String xp = p + ".indexes[" + k + "]";
        claimChild(xp + ".target", "index", t, x.target());
        if (x.columns().isEmpty()) {
          add(xp + ".columns", "is empty; an index needs at least one key column");
        } else if (x.columns().size() > dialect.limits().maxIndexKeyColumns()) {
          add(xp + ".columns", "has " + x.columns().size() + " parts; Spanner allows at most "
              + dialect.limits().maxIndexKeyColumns() + " index key columns");
        }
        checkKeyParts(xp + ".columns", i, t, x.columns(), "index key");
        Set<String> indexColumns = x.columns().stream().map(KeyPart::column).collect(Collectors.toSet());
        Set<String> seen = new HashSet<>();
        for (int s = 0; s < x.storing().size(); s++) {
          String column = x.storing().get(s);
          String sp = xp + ".storing[" + s + "]";
          if (!hasColumn(sp, i, t, column)) {
            continue;
          }
          if (keyColumns.contains(column)) {
            add(sp, "'" + column + "' is a primary key column, which every index stores already; remove it");
          } else if (indexColumns.contains(column)) {
            add(sp, "'" + column + "' is a key column of this index; remove it from storing");
          } else if (!seen.add(column)) {
            add(sp, "'" + column + "' is listed twice; remove one");
          }
        }
        if (x.interleaveIn() != null) {
          checkIndexInterleave(xp + ".interleaveIn", t, x);
        }
      }
    }

    private void checkIndexInterleave(String path, TablePlan t, IndexPlan x) {
      Integer target = tableIndex.get(x.interleaveIn());
      if (target == null) {
        add(path, "no table has target '" + x.interleaveIn() + "'" + suggest(x.interleaveIn(), tableIndex.keySet())
            + "; name an interleave ancestor of '" + t.target() + "', or remove interleaveIn");
        return;
      }
      if (!tree.ancestors(t.target()).contains(x.interleaveIn())) {
        add(path, "'" + x.interleaveIn() + "' is not an interleave ancestor of '" + t.target() + "'; an index can "
            + "be interleaved only in a parent (or higher ancestor) of its table, remove interleaveIn");
        return;
      }
      List<KeyPart> ancestorKey = plan.tables().get(target).primaryKey();
      boolean prefix = ancestorKey.size() <= x.columns().size();
      for (int k = 0; prefix && k < ancestorKey.size(); k++) {
        prefix = ancestorKey.get(k).column().equals(x.columns().get(k).column());
      }
      if (!prefix) {
        add(path, "an index interleaved in '" + x.interleaveIn() + "' must start with its key ("
            + columns(ancestorKey) + "), but the index key is (" + columns(x.columns()) + "); fix the columns or "
            + "remove interleaveIn");
      }
    }

    private void checkForeignKeys(String p, int i, TablePlan t) {
      for (int k = 0; k < t.foreignKeys().size(); k++) {
        ForeignKeyPlan fk = t.foreignKeys().get(k);
        String fp = p + ".foreignKeys[" + k + "]";
        claimChild(fp + ".target", "foreign key", t, fk.target());
        if (!fk.isEnforced() && dialect.isPostgres()) {
          add(fp + ".enforced", "is false, but a PostgreSQL-dialect database has no informational (NOT ENFORCED) "
              + "foreign keys; set enforced to true or remove the foreign key");
        } else if (!fk.isEnforced() && fk.onDelete() == Interleave.OnDelete.CASCADE) {
          add(fp + ".onDelete", "is CASCADE but enforced is false: an informational (NOT ENFORCED) foreign key takes no "
              + "action on delete; set onDelete to NO_ACTION, or enforced to true");
        }
        if (fk.columns().isEmpty()) {
          add(fp + ".columns", "is empty; list the referencing columns");
        }
        checkColumnList(fp + ".columns", i, t, fk.columns());
        Integer ref = tableIndex.get(fk.referencedTable());
        if (ref == null) {
          add(fp + ".referencedTable", "no table has target '" + fk.referencedTable() + "'"
              + suggest(fk.referencedTable(), tableIndex.keySet()) + "; name a planned table's target, or delete "
              + "this foreign key");
          continue;
        }
        TablePlan referenced = plan.tables().get(ref);
        if (fk.referencedColumns().isEmpty()) {
          add(fp + ".referencedColumns", "is empty; list the referenced columns of '" + referenced.target() + "'");
        }
        checkColumnList(fp + ".referencedColumns", ref, referenced, fk.referencedColumns());
        if (fk.columns().size() != fk.referencedColumns().size()) {
          add(fp + ".referencedColumns", "has " + fk.referencedColumns().size() + " columns but columns has "
              + fk.columns().size() + "; a foreign key pairs them one to one");
          continue;
        }
        for (int c = 0; c < fk.columns().size(); c++) {
          SpannerType mine = columnTypes.get(i).get(fk.columns().get(c));
          SpannerType theirs = columnTypes.get(ref).get(fk.referencedColumns().get(c));
          if (mine != null && theirs != null && !sameKind(mine, theirs)) {
            add(fp + ".columns[" + c + "]", "'" + fk.columns().get(c) + "' is " + mine.ddl(dialect) + " but references '"
                + referenced.target() + "." + fk.referencedColumns().get(c) + "', which is " + theirs.ddl(dialect)
                + "; Spanner needs the same type on both sides");
          }
          checkSameMapping(fp + ".columns[" + c + "]", t, fk.columns().get(c), referenced,
              fk.referencedColumns().get(c));
        }
      }
    }

    /**
     * Both sides of a reference (foreign key or interleaved key prefix) must map integer ids to UUIDs the same way,
     * or every reference to a migrated row would point nowhere.
     */
    private void checkSameMapping(String path, TablePlan t, String column, TablePlan referenced, String theirs) {
      ColumnPlan a = t.column(column).orElse(null);
      ColumnPlan b = referenced.column(theirs).orElse(null);
      if (a == null || b == null) {
        return;
      }
      boolean aMapped = a.conversion() == ValueConversion.KEY_UUID;
      boolean bMapped = b.conversion() == ValueConversion.KEY_UUID;
      if (aMapped != bMapped) {
        ColumnPlan mapped = aMapped ? a : b;
        add(path, "'" + t.target() + "." + column + "' and '" + referenced.target() + "." + theirs + "' hold the "
            + "same values, but only '" + (aMapped ? t.target() : referenced.target()) + "." + mapped.target()
            + "' maps them to UUIDs (KEY_UUID); give both conversion KEY_UUID with uuidNamespace "
            + mapped.uuidNamespace() + ", or neither");
      } else if (aMapped && a.uuidNamespace() != null && !a.uuidNamespace().equals(b.uuidNamespace())) {
        add(path, "'" + t.target() + "." + column + "' maps ids in uuidNamespace " + a.uuidNamespace() + " but '"
            + referenced.target() + "." + theirs + "' in " + b.uuidNamespace() + "; they must be equal or no "
            + "reference will match");
      }
    }

    /**
     * The row hash (issue 30): its column is one the plan adds (SYNTHETIC, INT64, nullable, not a key column), its
     * index exists with that column first, and every hashed column is a loaded column of the table, once.
     */
    private void checkRowHash(String p, int i, TablePlan t) {
      RowHash h = t.rowHash();
      if (h == null) {
        return;
      }
      String hp = p + ".rowHash";
      ColumnPlan column = t.column(h.column()).orElse(null);
      if (column == null) {
        hasColumn(hp + ".column", i, t, h.column());
      } else if (column.source() != null || column.conversion() != ValueConversion.SYNTHETIC
          || column.generatedExpression() != null || column.notNull()
          || columnTypes.get(i).get(h.column()) != null
          && columnTypes.get(i).get(h.column()).base() != SpannerType.Base.INT64) {
        add(hp + ".column", "'" + h.column() + "' must be a nullable " + SpannerType.INT64.ddl(dialect) + " column "
            + "the plan adds (source null, conversion SYNTHETIC, no generatedExpression); the loader writes the row "
            + "hash into it. Fix the column, or remove rowHash (changes are then found by scanning the table)");
      } else if (t.primaryKey().stream().anyMatch(k -> k.column().equals(h.column()))) {
        add(hp + ".column", "'" + h.column() + "' is a primary key column; the row hash must be an ordinary column");
      }
      boolean indexed = t.indexes().stream().anyMatch(x -> x.target().equals(h.index()) && !x.columns().isEmpty()
          && x.columns().get(0).column().equals(h.column()));
      if (!indexed) {
        add(hp + ".index", "the table has no index '" + h.index() + "' whose first key column is " + h.column()
            + "; restore it in indexes, or remove rowHash (changes are then found by scanning the table)");
      }
      if (h.columns().isEmpty()) {
        add(hp + ".columns", "is empty; list the loaded columns the hash covers, or remove rowHash");
      }
      Set<String> seen = new HashSet<>();
      for (int c = 0; c < h.columns().size(); c++) {
        String name = h.columns().get(c);
        String cp = hp + ".columns[" + c + "]";
        if (!hasColumn(cp, i, t, name)) {
          continue;
        }
        if (!t.column(name).map(ColumnPlan::isLoaded).orElse(false)) {
          add(cp, "'" + name + "' is not a column the loader writes (it is added or generated), so it cannot be "
              + "hashed; remove it from rowHash.columns");
        } else if (!seen.add(name)) {
          add(cp, "'" + name + "' is listed twice; remove one");
        }
      }
    }

    private void checkColumnList(String path, int i, TablePlan t, List<String> columns) {
      Set<String> seen = new HashSet<>();
      for (int c = 0; c < columns.size(); c++) {
        String cp = path + "[" + c + "]";
        if (hasColumn(cp, i, t, columns.get(c)) && !seen.add(columns.get(c).toLowerCase(Locale.ROOT))) {
          add(cp, "'" + columns.get(c) + "' is listed twice; remove one");
        }
      }
    }

    private void checkChecks(String p, TablePlan t) {
      for (int k = 0; k < t.checks().size(); k++) {
        CheckPlan c = t.checks().get(k);
        String cp = p + ".checks[" + k + "]";
        claimChild(cp + ".target", "check constraint", t, c.target());
        if (blank(c.expression())) {
          add(cp + ".expression", "is empty; write the GoogleSQL condition (without CHECK), or delete this check");
        }
      }
    }

    private void checkSequences() {
      for (int k = 0; k < plan.sequences().size(); k++) {
        SequencePlan s = plan.sequences().get(k);
        String sp = "sequences[" + k + "]";
        if (checkName(sp + ".target", s.target())) {
          int dot = s.target().indexOf('.');
          claim(sp + ".target", "sequence", dot < 0 ? null : s.target().substring(0, dot),
              s.target().substring(dot + 1));
        }
        for (int u = 0; u < s.usedBy().size(); u++) {
          String entry = s.usedBy().get(u);
          String up = sp + ".usedBy[" + u + "]";
          int dot = entry == null ? -1 : entry.lastIndexOf('.');
          if (dot <= 0 || dot == entry.length() - 1) {
            add(up, "'" + entry + "' is not \"table.column\"; name the target table and column whose default "
                + "draws from this sequence");
            continue;
          }
          String table = entry.substring(0, dot);
          String column = entry.substring(dot + 1);
          Integer ti = tableIndex.get(table);
          if (ti == null) {
            add(up, "no table has target '" + table + "'" + suggest(table, tableIndex.keySet())
                + "; fix the name or remove this entry");
            continue;
          }
          SpannerType type = columnTypes.get(ti).get(column);
          if (!columnTypes.get(ti).containsKey(column)) {
            add(up, "table '" + table + "' has no column '" + column + "'"
                + suggest(column, columnTypes.get(ti).keySet()) + "; fix the name or remove this entry");
          } else if (type != null && !type.equals(SpannerType.INT64)) {
            add(up, "'" + entry + "' is " + type.ddl(dialect) + "; a sequence can only feed a column of type "
                + SpannerType.INT64.ddl(dialect));
          }
        }
      }
    }

    // ---- names ----

    /** Checks a possibly qualified name ("schema.name" when named schemas are on); true when it is legal. */
    private boolean checkName(String path, String name) {
      String[] parts = name.split("\\.", -1);
      if (parts.length > 2) {
        add(path, "'" + name + "' has " + parts.length + " dot-separated parts; write 'name' or 'schema.name'");
        return false;
      }
      if (parts.length == 2 && !plan.target().namedSchemas()) {
        add(path, "'" + name + "' names a schema, but target.namedSchemas is false; use a plain name (e.g. '"
            + parts[0] + "_" + parts[1] + "') or set target.namedSchemas: true");
        return false;
      }
      for (String part : parts) {
        if (!SpannerNames.IDENTIFIER.matcher(part).matches()) {
          String why = part.length() > LIMITS.maxIdentifierLength() ? " (" + part.length() + " characters)" : "";
          add(path, "'" + name + "' is not a legal Spanner name" + why + "; " + NAME_RULE);
          return false;
        }
      }
      return true;
    }

    /** A column name: one part. */
    private boolean legalIdentifier(String path, String name) {
      if (name.contains(".")) {
        add(path, "'" + name + "' is not a legal Spanner name; " + NAME_RULE);
        return false;
      }
      return checkName(path, name);
    }

    /** A child object's name lives in its table's schema unless it is qualified itself. */
    private void claimChild(String path, String kind, TablePlan t, String name) {
      if (!checkName(path, name)) {
        return;
      }
      int dot = name.indexOf('.');
      String schema = dot < 0 ? t.targetSchema() : name.substring(0, dot);
      if (!lower(schema).equals(lower(t.targetSchema()))) {
        add(path, "'" + name + "' is in schema '" + schema + "' but its table '" + t.target() + "' is not; "
            + "drop the schema prefix or use the table's schema");
        return;
      }
      claim(path, kind, schema, name.substring(dot + 1));
    }

    /** Tables, indexes, constraints and sequences share one case-insensitive namespace per schema. */
    private void claim(String path, String kind, String schema, String name) {
      String key = lower(schema) + "\0" + name.toLowerCase(Locale.ROOT);
      String owner = path + " ('" + (schema == null ? "" : schema + ".") + name + "')";
      String first = namespace.putIfAbsent(key, owner);
      if (first != null) {
        add(path, "the " + kind + " name '" + name + "' is already used by " + first + "; tables, indexes, "
            + "constraints and sequences share one namespace per schema and Spanner ignores case in names, so "
            + "pick another name");
      }
    }

    private boolean hasColumn(String path, int i, TablePlan t, String column) {
      if (columnTypes.get(i).containsKey(column)) {
        return true;
      }
      add(path, "table '" + t.target() + "' has no column '" + column + "'"
          + suggest(column, columnTypes.get(i).keySet()) + "; use a column's target name");
      return false;
    }
  }

  // ---- small helpers ----

  private static boolean isUuid(String text) {
    try {
      return java.util.UUID.fromString(text).toString().equalsIgnoreCase(text);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean isUuidText(SpannerType type) {
    return type.base() == Base.STRING && (type.length() == null || type.length() == UUID_LENGTH);
  }

  /** Same type apart from STRING/BYTES lengths, which Spanner does not compare for foreign keys. */
  private static boolean sameKind(SpannerType a, SpannerType b) {
    if (a.base() != b.base()) {
      return false;
    }
    return !a.isArray() || a.element().base() == b.element().base();
  }

  private static String suggest(String name, Set<String> candidates) {
    String best = null;
    for (String c : sorted(candidates)) {
      if (c.equalsIgnoreCase(name)) {
        return " (did you mean '" + c + "'? names are matched exactly)";
      }
      if (best == null && PlanReadErrors.distance(c.toLowerCase(Locale.ROOT), name.toLowerCase(Locale.ROOT)) <= 2) {
        best = c;
      }
    }
    return best == null ? "" : " (did you mean '" + best + "'?)";
  }

  private static List<String> sorted(Set<String> values) {
    return values.stream().sorted().toList();
  }

  private static String columns(List<KeyPart> parts) {
    return parts.stream().map(KeyPart::column).collect(Collectors.joining(", "));
  }

  private static String lower(String s) {
    return s == null ? "" : s.toLowerCase(Locale.ROOT);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
