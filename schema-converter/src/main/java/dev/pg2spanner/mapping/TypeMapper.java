package dev.pg2spanner.mapping;

import static dev.pg2spanner.finding.Severity.ERROR;
import static dev.pg2spanner.finding.Severity.INFO;
import static dev.pg2spanner.finding.Severity.WARNING;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The PostgreSQL → Spanner type mapping: ONE declarative table from type name (the catalog's
 * {@code typname} and the SQL spellings people write) to a small named rule. Enums, domains, arrays, composites
 * and pseudo-types are recognised by kind; a name nobody listed maps to an explicit unsupported rule, never to a
 * silent STRING. {@code docs/type-mapping.md} is the human form of this table. Each rule takes the target database's
 * dialect: it decides what a type can hold there (a PostgreSQL-dialect numeric holds every finite PostgreSQL value)
 * and how notes spell types, so no later step rewrites a mapping or its prose.
 */
public final class TypeMapper {

  private static final Rule ENUM = new EnumRule();
  private static final Rule DOMAIN = new DomainRule();
  private static final Rule ARRAY = new ArrayRule();
  private static final Rule COMPOSITE = new UnsupportedRule("a composite (row) type would arrive as one opaque "
      + "text value; flatten it into columns (or a JSON column) in the source, or choose text in the plan.");
  private static final Rule PSEUDO = new UnsupportedRule("pseudo-types hold no storable values.");
  private static final Rule USER_RANGE = FixedRule.text(ValueConversion.TEXT_OUTPUT, WARNING,
      "Spanner has no range types: the range's text (e.g. '[1,5)') is kept; containment and overlap operators "
          + "are lost (consider two bound columns).");
  private static final Rule UNKNOWN = new UnsupportedRule("no rule covers this type (an extension or "
      + "user-defined base type), so its values' meaning in Spanner is unknown.");

  /** The table; declared after the shared rules above because building it uses them. */
  private static final Map<String, Rule> TABLE = table();

  private TypeMapper() {}

  private static Map<String, Rule> table() {
    Map<String, Rule> t = new LinkedHashMap<>();
    Rule int64 = FixedRule.exact(SpannerType.INT64, ValueConversion.INT64);
    put(t, int64, "int2", "smallint", "smallserial", "serial2");
    put(t, int64, "int4", "integer", "int", "serial", "serial4");
    put(t, int64, "int8", "bigint", "bigserial", "serial8");
    put(t, FixedRule.noted(SpannerType.INT64, ValueConversion.INT64, INFO, "an object identifier of the source "
        + "server; the number is kept but refers to nothing in Spanner."), "oid");
    put(t, FixedRule.exact(SpannerType.FLOAT32, ValueConversion.FLOAT32), "float4", "real");
    put(t, FixedRule.exact(SpannerType.FLOAT64, ValueConversion.FLOAT64), "float8", "double precision", "float");
    put(t, new NumericRule(), "numeric", "decimal");
    put(t, FixedRule.noted(SpannerType.NUMERIC, ValueConversion.MONEY_NUMERIC, INFO, "the amount is kept "
        + "exactly as a number; the currency symbol and lc_monetary formatting are not."), "money");
    put(t, FixedRule.exact(SpannerType.BOOL, ValueConversion.BOOL), "bool", "boolean");

    put(t, FixedRule.sized(SpannerType.STRING_MAX, ValueConversion.STRING), "text");
    put(t, new LengthRule("varchar(n)", ValueConversion.STRING, false, null, null), "varchar",
        "character varying");
    put(t, new LengthRule("char(n)", ValueConversion.STRING, false, INFO, "the blank padding is kept (values "
        + "arrive padded to n characters) and Spanner comparisons count trailing blanks, which PostgreSQL's "
        + "char(n) ignores."), "bpchar", "character");
    put(t, FixedRule.exact(SpannerType.string(63), ValueConversion.STRING), "name");
    put(t, FixedRule.noted(SpannerType.STRING_MAX, ValueConversion.STRING, INFO, "PostgreSQL's one-byte internal "
        + "type; a byte above 127 arrives as its octal escape text (e.g. '\\351')."), "char", "\"char\"");
    put(t, FixedRule.noted(SpannerType.STRING_MAX, ValueConversion.STRING, WARNING, "the text is kept, but "
        + "comparisons, uniqueness and ORDER BY become case-sensitive in Spanner.").sizeChecked(), "citext");
    put(t, FixedRule.sized(SpannerType.BYTES_MAX, ValueConversion.BYTES), "bytea");
    put(t, FixedRule.noted(SpannerType.string(36), ValueConversion.UUID_TEXT, INFO, "Spanner (this emulator) has "
        + "no UUID column type: the canonical lower-case text is kept, the form Spanner's UUID function produces."),
        "uuid");

    put(t, new TemporalRule(SpannerType.DATE, ValueConversion.DATE, null), "date");
    put(t, new TemporalRule(SpannerType.TIMESTAMP, ValueConversion.TIMESTAMP, null), "timestamptz",
        "timestamp with time zone");
    put(t, new TemporalRule(SpannerType.TIMESTAMP, ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC, "a timestamp "
        + "without time zone has no zone: its wall-clock value is stored as that instant in UTC (read without the "
        + "session time zone), so Spanner shows it with +00:00."), "timestamp", "timestamp without time zone");
    put(t, FixedRule.text(ValueConversion.TIME_TEXT, INFO, "Spanner has no TIME type: the text as PostgreSQL "
        + "prints it is kept ('24:00:00' included); it still sorts correctly as text, but time arithmetic is "
        + "lost."), "time", "time without time zone");
    put(t, FixedRule.text(ValueConversion.TIME_TEXT, WARNING, "Spanner has no TIME type: the text with its "
        + "offset is kept (e.g. '10:00:00+02'); comparisons no longer account for the offset."), "timetz",
        "time with time zone");
    put(t, FixedRule.text(ValueConversion.INTERVAL_ISO8601, WARNING, "Spanner has no INTERVAL column type: "
        + "kept as ISO 8601 text ('1 mon' → 'P1M' and '30 days' → 'P30D' stay distinct); interval arithmetic "
        + "and ordering are lost."), "interval");
    put(t, new LengthRule("bit(n)", ValueConversion.BIT_TEXT, true, INFO, "kept as a string of '0'/'1'; bit "
        + "operators are lost."), "bit");
    put(t, new LengthRule("varbit(n)", ValueConversion.BIT_TEXT, true, INFO, "kept as a string of '0'/'1'; bit "
        + "operators are lost."), "varbit", "bit varying");

    put(t, new JsonRule(false), "json");
    put(t, new JsonRule(true), "jsonb");

    Rule network = textOutput("Spanner has no network address type: the text is kept (e.g. '10.0.0.0/8'); "
        + "containment operators are lost and text ordering differs from address ordering.");
    put(t, network, "inet", "cidr");
    put(t, textOutput("Spanner has no MAC address type: the text is kept (e.g. '08:00:2b:01:02:03')."),
        "macaddr", "macaddr8");
    put(t, FixedRule.text(ValueConversion.TEXT_OUTPUT, WARNING, "Spanner has no XML type: the document text is "
        + "kept; XPath and validation are lost.").sizeChecked(), "xml");
    put(t, textOutput("Spanner has no tsvector/tsquery: the text is kept, but full-text search must be rebuilt "
        + "with Spanner's TOKENLIST columns and SEARCH indexes."), "tsvector", "tsquery");
    put(t, textOutput("Spanner has no geometric types: the text is kept (e.g. '(1,2)'); geometric operators "
        + "are lost."), "point", "line", "lseg", "box", "path", "polygon", "circle");
    put(t, USER_RANGE, "int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
        "int4multirange", "int8multirange", "nummultirange", "tsmultirange", "tstzmultirange", "datemultirange");
    put(t, textOutput("describes the source server's own state (log positions, transaction ids, snapshots, "
        + "row locations); the text is kept but means nothing in Spanner."), "pg_lsn", "txid_snapshot",
        "pg_snapshot", "xid", "xid8", "cid", "tid");
    put(t, textOutput("a reference to a source catalog object: the name PostgreSQL prints is kept, the link to "
        + "the object is not."), "regclass", "regproc", "regprocedure", "regoper", "regoperator", "regtype",
        "regconfig", "regdictionary", "regnamespace", "regrole", "regcollation");
    put(t, textOutput("Spanner has no hstore: the text is kept (e.g. '\"a\"=>\"1\"'); consider converting it "
        + "to jsonb in the source to get a JSON column."), "hstore");
    // The server's own data types: PostgreSQL prints each losslessly, so its text is kept (a finding says it means
    // nothing in Spanner), rather than stopping the plan over a type no application reads.
    put(t, textOutput("it holds access privileges of the source server (e.g. 'role=arwd/owner'); the text is kept "
        + "but grants nothing in Spanner."), "aclitem");
    put(t, FixedRule.text(ValueConversion.TEXT_OUTPUT, WARNING, "PostgreSQL's internal planner, statistics or index "
        + "data: the text PostgreSQL prints is kept but means nothing in Spanner.").sizeChecked(),
        "pg_node_tree", "pg_ndistinct", "pg_dependencies", "pg_mcv_list", "pg_brin_bloom_summary",
        "pg_brin_minmax_multi_summary", "gtsvector");
    put(t, textOutput("a cursor name, meaningful only inside a source session; the text is kept."), "refcursor");
    put(t, textOutput("Spanner has no jsonpath type: the path's text is kept (e.g. '$.a[*] ? (@ > 1)'); "
        + "JSON path queries must be written in Spanner's JSON functions."), "jsonpath");
    // int2vector and oidvector columns are arrays (ArrayRule: ARRAY<INT64>); as the element of an array of them
    // (int2vector[]) each vector keeps its text, since Spanner arrays cannot nest.
    put(t, textOutput("a vector of integers inside an array: each vector's text is kept (e.g. '1 2'), since "
        + "Spanner arrays cannot nest."), "int2vector", "oidvector");
    return Collections.unmodifiableMap(t);
  }

  private static Rule textOutput(String note) {
    return FixedRule.text(ValueConversion.TEXT_OUTPUT, WARNING, note);
  }

  private static void put(Map<String, Rule> table, Rule rule, String... names) {
    for (String name : names) {
      if (table.put(name, rule) != null) {
        throw new IllegalStateException("type listed twice: " + name);
      }
    }
  }

  /** The table's key for a name: lower case, single spaces ("Character  Varying" → "character varying"). */
  static String key(String name) {
    return name.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
  }

  static Rule ruleFor(PgType type) {
    if (type.array()) {
      return ARRAY;
    }
    return switch (type.kind()) {
      case ENUM -> ENUM;
      case DOMAIN -> DOMAIN;
      case COMPOSITE -> COMPOSITE;
      case PSEUDO -> PSEUDO;
      case RANGE, MULTIRANGE -> TABLE.getOrDefault(key(type.name()), USER_RANGE);
      case BASE, OTHER -> TABLE.getOrDefault(key(type.name()), UNKNOWN);
    };
  }

  /**
   * The first, catalog-only mapping of a column type.
   *
   * @param type the column's type (not null)
   * @param dialect the target database's dialect (not null): what its types hold decides some mappings (numeric),
   *     and every note names types as it spells them
   * @return never null: unknown types map to an explicit unsupported rule (an UNSUPPORTED_TYPE ERROR note)
   */
  public static TypeMapping map(PgType type, SpannerDialect dialect) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(dialect, "dialect");
    return ruleFor(type).map(type, dialect);
  }

  /**
   * The final mapping once the column's values were examined.
   *
   * @param type the column's type (not null)
   * @param first what {@link #map} returned for it (not null)
   * @param evidence the column's facts, or null when they were not collected (then each rule says in a note
   *     what happens to a value that does not fit). Evidence that lacks the facts of a need {@code first}
   *     asked for counts as not collected, so a partial answer never reads as "every value fits".
   * @param dialect as for {@link #map}; the same one {@code first} was made for
   * @return never null
   */
  public static TypeMapping refine(PgType type, TypeMapping first, ColumnEvidence evidence,
      SpannerDialect dialect) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(dialect, "dialect");
    if (first.isUnsupported()) {
      return first;
    }
    ColumnEvidence usable = evidence != null && first.evidence().stream()
        .allMatch(need -> evidence.has(sentinel(need))) ? evidence : null;
    return ruleFor(type).refine(type, first, usable, dialect);
  }

  /**
   * The mapping once the load's own converter ran over the column's values ({@link ProbedValues}): unchanged when it
   * refused none of them as {@code mapping} loads them, or when it was not run that way. When it refused some, the
   * column takes the type that keeps every value — each value's text as PostgreSQL prints it ({@code JSON_TEXT} for
   * JSON, {@code NUMERIC_TEXT} for numbers, {@code TEXT_OUTPUT} otherwise, an array's whole text for an array) — with
   * a LOSSY_TYPE warning that gives the count and the first refused value; where no Spanner type keeps them (a text
   * already, refused for its size) an ERROR says their rows would be dead-lettered. A fallback the converter also
   * refused values of is judged the same way, from its own probe.
   *
   * @param type the column's type (not null)
   * @param mapping the mapping after the evidence ({@link #refine}) (not null)
   * @param probes what the converter did with the column's values, one per (conversion, array) tried; null = none
   * @param dialect as for {@link #map}
   * @return never null
   */
  public static TypeMapping afterProbe(PgType type, TypeMapping mapping, List<ProbedValues> probes,
      SpannerDialect dialect) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(mapping, "mapping");
    ProbedValues probe = probes == null ? null
        : probes.stream().filter(p -> p.tried(mapping)).findFirst().orElse(null);
    if (probe == null || probe.refused() == 0) {
      return mapping;
    }
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("pgType", type.display());
    facts.put("triedType", mapping.target().ddl(dialect));
    facts.put("triedConversion", mapping.conversion().name());
    facts.put("rowsExamined", probe.rowsExamined());
    facts.put("sampled", probe.sampled());
    facts.put("refused", probe.refused());
    if (probe.firstValue() != null) {
      facts.put("firstRefusedValue", probe.firstValue());
    }
    if (probe.firstReason() != null) {
      facts.put("firstReason", probe.firstReason());
    }
    String refused = "the loader's converter refused " + probe.refused()
        + (probe.refused() == 1 ? " value" : " values") + " in the " + probe.rowsExamined()
        + (probe.rowsExamined() == 1 ? " row" : " rows") + " it read" + (probe.sampled() ? " (a sample of the table)"
        : "") + " as " + mapping.target().ddl(dialect) + (probe.firstValue() == null ? ""
        : " (first: '" + shortExcerpt(probe.firstValue()) + "': " + probe.firstReason() + ")");
    TypeMapping kept = keepingData(mapping);
    if (kept == null) {
      return mapping.withNote(new MappingNote(FindingCode.LOSSY_TYPE, ERROR, MappingNote.change(type,
          mapping.target(), refused + ". No Spanner column holds these values as they are: their rows would be "
              + "rejected to the dead-letter file.", dialect), facts));
    }
    List<MappingNote> notes = new java.util.ArrayList<>();
    mapping.notes().stream().filter(n -> n.severity() == ERROR).forEach(notes::add);
    notes.add(new MappingNote(FindingCode.LOSSY_TYPE, WARNING, MappingNote.change(type, kept.target(), refused
        + ". So that every row arrives, the plan keeps each value's text as PostgreSQL prints it ("
        + kept.conversion() + "); it is no longer " + mapping.target().ddl(dialect) + " in Spanner.", dialect),
        facts));
    return afterProbe(type, new TypeMapping(kept.target(), kept.conversion(), notes, mapping.evidence(), List.of()),
        probes, dialect);
  }

  /** The type that keeps every value of a column {@code mapping} loads, or null when {@code mapping} already does. */
  private static TypeMapping keepingData(TypeMapping mapping) {
    if (mapping.target().isArray()) {
      return TypeMapping.exact(SpannerType.STRING_MAX, ValueConversion.TEXT_OUTPUT);
    }
    return switch (mapping.conversion()) {
      case JSON -> TypeMapping.exact(SpannerType.STRING_MAX, ValueConversion.JSON_TEXT);
      case NUMERIC, MONEY_NUMERIC -> TypeMapping.exact(SpannerType.STRING_MAX, ValueConversion.NUMERIC_TEXT);
      case DATE, TIMESTAMP, TIMESTAMP_WALL_CLOCK_AS_UTC, BOOL, INT64, FLOAT32, FLOAT64 ->
          TypeMapping.exact(SpannerType.STRING_MAX, ValueConversion.TEXT_OUTPUT);
      default -> null;
    };
  }

  private static String shortExcerpt(String value) {
    return value.length() <= 80 ? value : value.substring(0, Character.isHighSurrogate(value.charAt(79)) ? 79 : 80)
        + "…";
  }

  /** The fact every collection of a need includes. */
  static String sentinel(EvidenceNeed need) {
    return switch (need) {
      case NONE -> ColumnEvidence.NON_NULL;
      case NUMERIC_FIT -> ColumnEvidence.NUMERIC_NAN;
      case TEMPORAL_RANGE -> ColumnEvidence.TEMPORAL_INFINITY;
      case TEXT_SIZE -> ColumnEvidence.OVER_CELL_LIMIT;
      case ARRAY_DIMENSIONS -> ColumnEvidence.ARRAY_MULTIDIMENSIONAL;
      case JSON_DEPTH -> ColumnEvidence.JSON_TOO_DEEP;
    };
  }

  /**
   * The whole declarative table, for the snapshot test and the docs: PostgreSQL type name (aliases included) →
   * rule description. Rules chosen by kind rather than name appear under {@code <array>}, {@code <composite>},
   * {@code <domain>}, {@code <enum>}, {@code <pseudo>}, {@code <range>} and {@code <unknown>}.
   */
  public static SortedMap<String, String> describeTable() {
    SortedMap<String, String> d = new TreeMap<>();
    TABLE.forEach((name, rule) -> d.put(name, rule.describe()));
    d.put("<array>", ARRAY.describe());
    d.put("<composite>", COMPOSITE.describe());
    d.put("<domain>", DOMAIN.describe());
    d.put("<enum>", ENUM.describe());
    d.put("<pseudo>", PSEUDO.describe());
    d.put("<range>", USER_RANGE.describe());
    d.put("<unknown>", UNKNOWN.describe());
    return Collections.unmodifiableSortedMap(d);
  }

  /** The names in the table, aliases included (for tests that map every entry). */
  static Set<String> names() {
    return TABLE.keySet();
  }

  static String needsText(Set<EvidenceNeed> needs) {
    return needs.stream().sorted().map(Enum::name).collect(Collectors.joining("+"));
  }
}
