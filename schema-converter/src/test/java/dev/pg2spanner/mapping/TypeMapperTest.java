package dev.pg2spanner.mapping;

import static dev.pg2spanner.mapping.PgTypes.array;
import static dev.pg2spanner.mapping.PgTypes.builtin;
import static dev.pg2spanner.mapping.PgTypes.domain;
import static dev.pg2spanner.mapping.PgTypes.enumType;
import static dev.pg2spanner.mapping.PgTypes.numeric;
import static dev.pg2spanner.mapping.PgTypes.sized;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.catalog.PgType.Kind;
import dev.pg2spanner.expression.SpannerExpression;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TypeMapperTest {

  /** The GoogleSQL dialect, which the snapshot and most cases map for (the PostgreSQL dialect has its own cases). */
  private static final dev.pg2spanner.spanner.SpannerDialect GOOGLE =
      dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;

  private static final String SNAPSHOT = "mapping/type-table.snapshot";

  // ---- the whole table as one snapshot ----

  /** The table, then the mapping of every name in it and of the parameterised forms, one line each. */
  static String renderTable() {
    StringBuilder s = new StringBuilder();
    s.append("# TypeMapper.describeTable(): PostgreSQL type name -> rule\n");
    TypeMapper.describeTable().forEach((name, rule) -> s.append(name).append(" = ").append(rule).append('\n'));
    s.append("\n# TypeMapper.map(type) for every name in the table (unparameterised)\n");
    TypeMapper.describeTable().keySet().stream().filter(n -> !n.startsWith("<"))
        .forEach(n -> s.append(n).append(" -> ").append(TypeMapper.map(builtin(n), GOOGLE).summary()).append('\n'));
    s.append("\n# Parameterised and by-kind types\n");
    List<PgType> samples = List.of(numeric(38, 9), numeric(39, 9), numeric(19, 10), numeric(10, null),
        numeric(5, -2), sized("varchar", "character varying(255)", 255),
        sized("varchar", "character varying(10485760)", 10_485_760), sized("bpchar", "character(3)", 3),
        sized("bit", "bit(8)", 8), sized("varbit", "bit varying", null), array(builtin("int4"), 1),
        array(builtin("text"), 1), array(builtin("int4"), 2), array(numeric(null, null), 1),
        array(enumType("mood", "sad", "ok"), 1), array(PgTypes.of("public", "address", Kind.COMPOSITE), 1),
        enumType("mpaa_rating", "G", "PG", "PG-13", "R", "NC-17"),
        domain("year", builtin("int4"), false, "CHECK (((VALUE >= 1901) AND (VALUE <= 2155)))"),
        domain("zip", builtin("text"), true, "CHECK ((VALUE ~ '^[0-9]{5}$'::text))"),
        PgTypes.of("public", "address", Kind.COMPOSITE), PgTypes.of("pg_catalog", "anyelement", Kind.PSEUDO),
        PgTypes.of("public", "floatrange", Kind.RANGE), PgTypes.of("public", "geometry", Kind.BASE));
    for (PgType t : samples) {
      s.append(t.display()).append(" -> ").append(TypeMapper.map(t, GOOGLE).summary()).append('\n');
    }
    return s.toString();
  }

  @Test
  void wholeTableMatchesTheReviewedSnapshot() throws IOException {
    String actual = renderTable();
    if (Boolean.getBoolean("update.snapshots")) {
      Files.writeString(Path.of("src/test/resources", SNAPSHOT), actual, StandardCharsets.UTF_8);
    }
    String expected;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(SNAPSHOT)) {
      assertThat(in).as("snapshot %s (create it with -Dupdate.snapshots=true, then review it)", SNAPSHOT)
          .isNotNull();
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!actual.equals(expected)) {
      // A line diff, so a mismatch shows only what changed (- in the snapshot, + now).
      List<String> now = actual.lines().toList();
      List<String> was = expected.lines().toList();
      StringBuilder diff = new StringBuilder();
      was.stream().filter(line -> !now.contains(line)).forEach(line -> diff.append("- ").append(line).append('\n'));
      now.stream().filter(line -> !was.contains(line)).forEach(line -> diff.append("+ ").append(line).append('\n'));
      fail("type table differs from %s; if the change is intended, rerun with -Dupdate.snapshots=true and review "
          + "it:%n%s", SNAPSHOT, diff.length() == 0 ? "(same lines, different order)" : diff);
    }
  }

  @Test
  void everyBuiltinNameHasItsOwnRuleNotTheUnknownFallback() {
    for (String name : TypeMapper.names()) {
      TypeMapping m = TypeMapper.map(builtin(name), GOOGLE);
      assertThat(m.notes()).as(name)
          .noneMatch(n -> n.message().contains("no rule covers this type"));
    }
  }

  // ---- names and aliases ----

  @ParameterizedTest
  @CsvSource({"int4,integer", "int8,bigint", "int2,smallint", "float8,double precision", "float4,real",
      "varchar,character varying", "bpchar,character", "timestamptz,timestamp with time zone",
      "timestamp,timestamp without time zone", "bool,boolean", "timetz,time with time zone",
      "varbit,bit varying", "numeric,decimal"})
  void sqlNamesAndCatalogNamesMapAlike(String typname, String sqlName) {
    assertThat(TypeMapper.map(builtin(sqlName), GOOGLE)).isEqualTo(TypeMapper.map(PgType.builtin(typname, sqlName), GOOGLE));
    assertThat(TypeMapper.map(builtin(sqlName.toUpperCase().replace(" ", "  ")), GOOGLE).target())
        .isEqualTo(TypeMapper.map(builtin(typname), GOOGLE).target());
  }

  @Test
  void exactScalarTypes() {
    assertThat(TypeMapper.map(builtin("int8"), GOOGLE)).isEqualTo(TypeMapping.exact(SpannerType.INT64,
        ValueConversion.INT64));
    assertThat(TypeMapper.map(builtin("float4"), GOOGLE)).isEqualTo(TypeMapping.exact(SpannerType.FLOAT32,
        ValueConversion.FLOAT32));
    assertThat(TypeMapper.map(builtin("float8"), GOOGLE)).isEqualTo(TypeMapping.exact(SpannerType.FLOAT64,
        ValueConversion.FLOAT64));
    assertThat(TypeMapper.map(builtin("bool"), GOOGLE)).isEqualTo(TypeMapping.exact(SpannerType.BOOL,
        ValueConversion.BOOL));
    TypeMapping uuid = TypeMapper.map(builtin("uuid"), GOOGLE);
    assertThat(uuid.target()).isEqualTo(SpannerType.string(36));
    assertThat(uuid.conversion()).isEqualTo(ValueConversion.UUID_TEXT);
  }

  @Test
  void unknownTypesAreExplicitlyUnsupportedNeverASilentString() {
    for (PgType t : List.of(PgTypes.of("public", "geometry", Kind.BASE), PgTypes.of("x", "thing", Kind.OTHER),
        PgTypes.of("public", "address", Kind.COMPOSITE), PgTypes.of("pg_catalog", "record", Kind.PSEUDO))) {
      TypeMapping m = TypeMapper.map(t, GOOGLE);
      assertThat(m.isUnsupported()).as(t.display()).isTrue();
      assertThat(m.worstSeverity()).isEqualTo(Severity.ERROR);
      assertThat(m.notes().get(0).code()).isEqualTo(FindingCode.UNSUPPORTED_TYPE);
      // The way out is the code's remedy, rendered once per code by the reports, not repeated in each message.
      assertThat(m.notes().get(0).message()).contains(t.display()).doesNotContain("edit it in the plan");
      assertThat(m.notes().get(0).code().remedy()).contains("edit it in the plan");
      // Evidence cannot rescue an unsupported type.
      assertThat(TypeMapper.refine(t, m, null, GOOGLE)).isEqualTo(m);
    }
  }

  // ---- numeric ----

  @Nested
  class Numeric {

    @ParameterizedTest
    @CsvSource({"38,9,true", "29,0,true", "30,0,false", "39,9,false", "19,10,false", "10,9,true", "18,10,false",
        "5,-2,true"})
    void declaredPrecisionAndScaleDecideTheFirstMapping(int p, int s, boolean fits) {
      TypeMapping m = TypeMapper.map(numeric(p, s), GOOGLE);
      assertThat(m.target()).isEqualTo(fits ? SpannerType.NUMERIC : SpannerType.STRING_MAX);
      assertThat(m.conversion()).isEqualTo(fits ? ValueConversion.NUMERIC : ValueConversion.NUMERIC_TEXT);
      // Even a fitting numeric(p,s) needs the NaN count: PostgreSQL stores NaN in constrained columns.
      assertThat(m.evidence()).containsExactly(EvidenceNeed.NUMERIC_FIT);
    }

    @Test
    void unconstrainedNumericIsTextUntilEvidenceShowsEveryValueFits() {
      PgType t = numeric(null, null);
      TypeMapping first = TypeMapper.map(t, GOOGLE);
      assertThat(first.target()).isEqualTo(SpannerType.STRING_MAX);
      assertThat(first.worstSeverity()).isEqualTo(Severity.WARNING);

      TypeMapping fits = TypeMapper.refine(t, first, numericEvidence(false, 0, 0, 0, 0, 12, 9), GOOGLE);
      assertThat(fits.target()).isEqualTo(SpannerType.NUMERIC);
      assertThat(fits.conversion()).isEqualTo(ValueConversion.NUMERIC);
      assertThat(fits.notes()).singleElement().satisfies(n -> {
        assertThat(n.severity()).isEqualTo(Severity.INFO);
        assertThat(n.message()).contains("every value fits").contains("12 integer and 9 fractional");
        assertThat(n.evidence()).containsEntry(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, 9L)
            .containsEntry("rowsExamined", 100L);
      });

      // Without evidence it stays the safe text form.
      assertThat(TypeMapper.refine(t, first, null, GOOGLE)).isEqualTo(first);
    }

    @Test
    void valuesThatDoNotFitKeepTheirExactTextWithCountsInTheNote() {
      PgType t = numeric(null, null);
      TypeMapping m = TypeMapper.refine(t, TypeMapper.map(t, GOOGLE), numericEvidence(false, 1, 0, 0, 3, 5, 12), GOOGLE);
      assertThat(m.target()).isEqualTo(SpannerType.STRING_MAX);
      assertThat(m.conversion()).isEqualTo(ValueConversion.NUMERIC_TEXT);
      assertThat(m.notes()).singleElement().satisfies(n -> {
        assertThat(n.code()).isEqualTo(FindingCode.LOSSY_TYPE);
        assertThat(n.severity()).isEqualTo(Severity.WARNING);
        assertThat(n.message()).contains("3 values have more than 9 fractional digits; 1 NaN")
            .contains("in all 100 rows");
        assertThat(n.evidence()).containsEntry(ColumnEvidence.NUMERIC_NAN, 1L);
      });
    }

    @Test
    void aNanInAConstrainedColumnAlsoFallsBackToText() {
      PgType t = numeric(10, 2);
      TypeMapping m = TypeMapper.refine(t, TypeMapper.map(t, GOOGLE), numericEvidence(false, 2, 0, 0, 0, 8, 2), GOOGLE);
      assertThat(m.conversion()).isEqualTo(ValueConversion.NUMERIC_TEXT);
      assertThat(m.notes().get(0).message()).contains("2 NaN");
    }

    @Test
    void aSampleCannotProveEveryValueFits() {
      PgType t = numeric(null, null);
      TypeMapping m = TypeMapper.refine(t, TypeMapper.map(t, GOOGLE), numericEvidence(true, 0, 0, 0, 0, 3, 2), GOOGLE);
      assertThat(m.target()).isEqualTo(SpannerType.NUMERIC);
      assertThat(m.notes()).singleElement().satisfies(n -> {
        assertThat(n.severity()).isEqualTo(Severity.WARNING);
        assertThat(n.message()).contains("sample").contains("dead-letter");
      });
    }

    @Test
    void constrainedNumericWithoutEvidenceSaysWhatHappensToNan() {
      PgType t = numeric(12, 2);
      TypeMapping m = TypeMapper.refine(t, TypeMapper.map(t, GOOGLE), null, GOOGLE);
      assertThat(m.target()).isEqualTo(SpannerType.NUMERIC);
      assertThat(m.notes()).singleElement().satisfies(n -> assertThat(n.message()).contains("NaN")
          .contains("dead-letter"));
      // Fully examined and clean: exact, no note at all.
      assertThat(TypeMapper.refine(t, TypeMapper.map(t, GOOGLE), numericEvidence(false, 0, 0, 0, 0, 10, 2), GOOGLE).notes())
          .isEmpty();
    }

    @Test
    void evidenceMissingTheNeededFactsCountsAsNotCollected() {
      PgType t = numeric(null, null);
      TypeMapping first = TypeMapper.map(t, GOOGLE);
      ColumnEvidence unrelated = new ColumnEvidence("amount", false, 100,
          Map.of(ColumnEvidence.TEMPORAL_INFINITY, 0L));
      assertThat(TypeMapper.refine(t, first, unrelated, GOOGLE)).isEqualTo(first);
    }

    @Test
    void thePostgresDialectsNumericHoldsEveryFiniteValueSoOnlyInfinityIsChecked() {
      SpannerDialect pg = SpannerDialect.POSTGRESQL;
      // numeric(p,s) cannot hold ±Infinity in PostgreSQL, and NaN and every digit count fit: nothing to examine.
      PgType constrained = numeric(60, 20);
      TypeMapping declared = TypeMapper.map(constrained, pg);
      assertThat(declared).isEqualTo(TypeMapping.exact(SpannerType.NUMERIC, ValueConversion.NUMERIC));
      assertThat(TypeMapper.refine(constrained, declared, null, pg)).isEqualTo(declared);

      PgType t = numeric(null, null);
      TypeMapping first = TypeMapper.map(t, pg);
      assertThat(first.target()).isEqualTo(SpannerType.NUMERIC);
      assertThat(first.evidence()).containsExactly(EvidenceNeed.NUMERIC_FIT);
      assertThat(first.notes()).isEmpty();
      // 40 integer digits, 12 fractional and a NaN: all fine in this dialect, so no note.
      assertThat(TypeMapper.refine(t, first, numericEvidence(false, 1, 0, 1, 1, 40, 12), pg)).isEqualTo(first);
      assertThat(TypeMapper.refine(t, first, null, pg).notes()).singleElement().satisfies(n -> {
        assertThat(n.severity()).isEqualTo(Severity.INFO);
        assertThat(n.message()).startsWith("numeric → numeric: values were not examined; a ±Infinity value");
      });
      assertThat(TypeMapper.refine(t, first, numericEvidence(true, 0, 0, 0, 0, 40, 2), pg).notes()).singleElement()
          .satisfies(n -> assertThat(n.message()).contains("no sampled value is ±Infinity"));
      TypeMapping infinite = TypeMapper.refine(t, first, numericEvidence(false, 0, 4, 0, 0, 3, 2), pg);
      assertThat(infinite.target()).isEqualTo(SpannerType.STRING_MAX);
      assertThat(infinite.conversion()).isEqualTo(ValueConversion.NUMERIC_TEXT);
      assertThat(infinite.notes()).singleElement().satisfies(n -> {
        assertThat(n.severity()).isEqualTo(Severity.WARNING);
        assertThat(n.message()).isEqualTo("numeric does not fit Spanner numeric: 4 ±Infinity (in all 100 rows). The "
            + "plan keeps each value's exact decimal text in varchar: nothing is lost, but the column is no longer "
            + "numeric in Spanner.");
      });
    }
  }

  static ColumnEvidence numericEvidence(boolean sampled, long nan, long inf, long integerDigits,
      long fractionDigits, long maxInt, long maxFrac) {
    Map<String, Object> f = new HashMap<>();
    f.put(ColumnEvidence.NUMERIC_NAN, nan);
    f.put(ColumnEvidence.NUMERIC_INFINITY, inf);
    f.put(ColumnEvidence.NUMERIC_TOO_MANY_INTEGER_DIGITS, integerDigits);
    f.put(ColumnEvidence.NUMERIC_TOO_MANY_FRACTION_DIGITS, fractionDigits);
    f.put(ColumnEvidence.NUMERIC_MAX_INTEGER_DIGITS, maxInt);
    f.put(ColumnEvidence.NUMERIC_MAX_FRACTION_DIGITS, maxFrac);
    return new ColumnEvidence("amount", sampled, 100, f);
  }

  // ---- text, temporal, json ----

  @Test
  void lengthsWithinSpannersStringLimitNeedNoEvidence() {
    assertThat(TypeMapper.map(sized("varchar", "character varying(255)", 255), GOOGLE))
        .isEqualTo(TypeMapping.exact(SpannerType.string(255), ValueConversion.STRING));
    TypeMapping huge = TypeMapper.map(sized("varchar", "character varying(10485760)", 10_485_760), GOOGLE);
    assertThat(huge.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(huge.evidence()).containsExactly(EvidenceNeed.TEXT_SIZE);
    TypeMapping padded = TypeMapper.map(sized("bpchar", "character(3)", 3), GOOGLE);
    assertThat(padded.target()).isEqualTo(SpannerType.string(3));
    assertThat(padded.notes()).singleElement().satisfies(n -> assertThat(n.message()).contains("blank padding"));
  }

  @Test
  void spannersStringLengthLimitIsTheBoundary() {
    assertThat(TypeMapper.map(sized("varchar", "character varying(2621440)", 2_621_440), GOOGLE))
        .isEqualTo(TypeMapping.exact(SpannerType.string(2_621_440), ValueConversion.STRING));
    TypeMapping over = TypeMapper.map(sized("varchar", "character varying(2621441)", 2_621_441), GOOGLE);
    assertThat(over.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(over.evidence()).containsExactly(EvidenceNeed.TEXT_SIZE);
  }

  @Test
  void valuesOverTheCellLimitAreAnError() {
    PgType t = builtin("text");
    TypeMapping first = TypeMapper.map(t, GOOGLE);
    assertThat(first).isEqualTo(new TypeMapping(SpannerType.STRING_MAX, ValueConversion.STRING, null,
        Set.of(EvidenceNeed.TEXT_SIZE), null));
    ColumnEvidence ok = new ColumnEvidence("body", false, 5,
        Map.of(ColumnEvidence.OVER_CELL_LIMIT, 0L, ColumnEvidence.MAX_OCTETS, 1000L));
    assertThat(TypeMapper.refine(t, first, ok, GOOGLE)).isEqualTo(first);
    ColumnEvidence big = new ColumnEvidence("body", false, 5,
        Map.of(ColumnEvidence.OVER_CELL_LIMIT, 2L, ColumnEvidence.MAX_OCTETS, 20_000_000L));
    TypeMapping refined = TypeMapper.refine(t, first, big, GOOGLE);
    assertThat(refined.worstSeverity()).isEqualTo(Severity.ERROR);
    assertThat(refined.notes().get(0).message()).contains("2 values are larger than Spanner's 10 MiB");
    ColumnEvidence longText = new ColumnEvidence("body", false, 5, Map.of(ColumnEvidence.OVER_CELL_LIMIT, 0L,
        ColumnEvidence.OVER_STRING_CHARS, 1L, ColumnEvidence.MAX_OCTETS, 2_700_000L));
    assertThat(TypeMapper.refine(t, first, longText, GOOGLE).notes()).singleElement().satisfies(n -> assertThat(n.message())
        .startsWith("1 value is longer than 2,621,440 characters, Spanner's limit for one STRING(MAX) value"));
  }

  @Test
  void outOfRangeTimestampsKeepEveryRowAsText() {
    PgType t = builtin("timestamptz");
    TypeMapping first = TypeMapper.map(t, GOOGLE);
    assertThat(first.target()).isEqualTo(SpannerType.TIMESTAMP);
    assertThat(first.evidence()).containsExactly(EvidenceNeed.TEMPORAL_RANGE);
    ColumnEvidence bad = new ColumnEvidence("at", false, 10, Map.of(ColumnEvidence.TEMPORAL_INFINITY, 2L,
        ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, 1L, ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, 0L));
    TypeMapping m = TypeMapper.refine(t, first, bad, GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(m.conversion()).isEqualTo(ValueConversion.TEXT_OUTPUT);
    assertThat(m.notes()).singleElement().satisfies(n -> {
      assertThat(n.severity()).isEqualTo(Severity.WARNING);
      assertThat(n.message()).contains("2 ±infinity, 1 BC").contains("every row arrives")
          .contains("dead-letter");
    });
    ColumnEvidence clean = new ColumnEvidence("at", false, 10, Map.of(ColumnEvidence.TEMPORAL_INFINITY, 0L,
        ColumnEvidence.TEMPORAL_BEFORE_YEAR_1, 0L, ColumnEvidence.TEMPORAL_AFTER_YEAR_9999, 0L));
    assertThat(TypeMapper.refine(t, first, clean, GOOGLE)).isEqualTo(first);
    assertThat(TypeMapper.refine(t, first, null, GOOGLE).notes()).singleElement()
        .satisfies(n -> assertThat(n.message()).contains("not examined").contains("dead-letter"));
  }

  @Test
  void timestampWithoutTimeZoneIsWallClockAsUtc() {
    TypeMapping m = TypeMapper.map(builtin("timestamp"), GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.TIMESTAMP);
    assertThat(m.conversion()).isEqualTo(ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC);
    assertThat(m.notes()).singleElement().satisfies(n -> assertThat(n.message()).contains("UTC"));
  }

  @Test
  void jsonbThatSpannerWouldRejectIsKeptAsText() {
    PgType t = builtin("jsonb");
    TypeMapping first = TypeMapper.map(t, GOOGLE);
    assertThat(first.target()).isEqualTo(SpannerType.JSON);
    ColumnEvidence deep = new ColumnEvidence("doc", false, 3, Map.of(ColumnEvidence.JSON_TOO_DEEP, 1L,
        ColumnEvidence.JSON_INEXACT_NUMBERS, 0L, ColumnEvidence.JSON_OVER_SIZE, 0L));
    TypeMapping m = TypeMapper.refine(t, first, deep, GOOGLE);
    assertThat(m.conversion()).isEqualTo(ValueConversion.JSON_TEXT);
    assertThat(m.notes().get(0).message()).contains("1 document is nested deeper than 80 levels");
  }

  @Test
  void jsonWhoseValuesTheLoaderRefusesIsKeptAsText() {
    PgType t = builtin("json");
    TypeMapping first = TypeMapper.refine(t, TypeMapper.map(t, GOOGLE), null, GOOGLE);
    assertThat(first.target()).isEqualTo(SpannerType.JSON);
    // The loader's converter judges json documents (JsonFidelity): no aggregate evidence is asked for.
    assertThat(first.evidence()).isEmpty();
    ProbedValues clean = new ProbedValues("doc", ValueConversion.JSON, "JSON", false, 3, false, 0, null, null);
    assertThat(TypeMapper.afterProbe(t, first, List.of(clean), GOOGLE)).isEqualTo(first);
    ProbedValues lossy = new ProbedValues("doc", ValueConversion.JSON, "JSON", false, 5, false, 4,
        "{\"n\": 12345678901234567890123}", "Spanner JSON would round the number 12345678901234567890123");
    TypeMapping m = TypeMapper.afterProbe(t, first, List.of(lossy), GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(m.conversion()).isEqualTo(ValueConversion.JSON_TEXT);
    assertThat(m.notes()).singleElement().satisfies(n -> {
      assertThat(n.severity()).isEqualTo(Severity.WARNING);
      assertThat(n.message()).startsWith("json → STRING(MAX): the loader's converter refused 4 values in the 5 rows "
          + "it read as JSON (first: '{\"n\": 12345678901234567890123}': Spanner JSON would round the number")
          .contains("every row arrives");
      assertThat(n.evidence()).containsEntry("refused", 4L).containsEntry("triedType", "JSON");
    });
  }

  @Test
  void aProbeDecidesOnlyTheTypeItTried() {
    PgType vector = new PgType("pg_catalog", "int2", "int2vector", null, null, null, true, 0, PgType.Kind.BASE, null,
        List.of(), false, List.of());
    TypeMapping first = TypeMapper.map(vector, GOOGLE);
    // A probe of another type (here the scalar fallback) says nothing about this one.
    ProbedValues other = new ProbedValues("v", ValueConversion.INT64, "INT64", false, 3, false, 3, "x", "no");
    assertThat(TypeMapper.afterProbe(vector, first, List.of(other), GOOGLE)).isEqualTo(first);
    ProbedValues refused = new ProbedValues("v", ValueConversion.INT64, "ARRAY<INT64>", true, 3, false, 2, "1 2",
        "'1 2' is not array text output the loader understands");
    TypeMapping kept = TypeMapper.afterProbe(vector, first, List.of(refused), GOOGLE);
    assertThat(kept.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(kept.conversion()).isEqualTo(ValueConversion.TEXT_OUTPUT);
    assertThat(kept.notes()).singleElement().satisfies(n -> assertThat(n.message())
        .startsWith("int2vector → STRING(MAX): the loader's converter refused 2 values in the 3 rows it read as "
            + "ARRAY<INT64> (first: '1 2': "));
    // The fallback refused too (a value over the cell limit): no type keeps it, so it is an error.
    ProbedValues tooBig = new ProbedValues("v", ValueConversion.TEXT_OUTPUT, "STRING(MAX)", false, 3, false, 1,
        "1 1 1 1", "the value is 10485761 bytes in UTF-8; a Spanner cell holds at most 10 MiB");
    TypeMapping neither = TypeMapper.afterProbe(vector, first, List.of(refused, tooBig), GOOGLE);
    assertThat(neither.conversion()).isEqualTo(ValueConversion.TEXT_OUTPUT);
    assertThat(neither.notes()).extracting(MappingNote::severity).containsExactly(Severity.WARNING, Severity.ERROR);
    assertThat(neither.notes().get(1).message()).contains("their rows would be rejected to the dead-letter file");
  }

  // ---- arrays ----

  @Test
  void arraysMapElementByElement() {
    TypeMapping m = TypeMapper.map(array(builtin("int4"), 1), GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.arrayOf(SpannerType.INT64));
    assertThat(m.conversion()).isEqualTo(ValueConversion.INT64);
    assertThat(m.evidence()).containsExactly(EvidenceNeed.ARRAY_DIMENSIONS);
    // A text element's size is not an array cell's size: no TEXT_SIZE for arrays.
    assertThat(TypeMapper.map(array(builtin("text"), 1), GOOGLE).evidence()).containsExactly(EvidenceNeed.ARRAY_DIMENSIONS);
  }

  @Test
  void arrayNotesStateTheArraysPlannedTypeNotTheElements() {
    // The catalog lists oidvector as an array of oid whose display names no element (typcategory 'A').
    PgType oidvector = new PgType("pg_catalog", "oid", "oidvector", null, null, null, true, 0, PgType.Kind.BASE, null,
        List.of(), false, List.of());
    TypeMapping m = TypeMapper.refine(oidvector, TypeMapper.map(oidvector, GOOGLE), null, GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.arrayOf(SpannerType.INT64));
    assertThat(m.notes()).extracting(MappingNote::message)
        .anySatisfy(n -> assertThat(n).startsWith("oidvector → ARRAY<INT64>: each element: an object identifier"))
        .noneSatisfy(n -> assertThat(n).contains("→ INT64"));
    assertThat(TypeMapper.map(array(builtin("oid"), 1), GOOGLE).notes()).extracting(MappingNote::message)
        .allSatisfy(n -> assertThat(n).startsWith("oid[] → ARRAY<INT64>: each element: "));
    // An array of vectors keeps each vector's text: Spanner arrays cannot nest.
    TypeMapping vectors = TypeMapper.map(array(builtin("int2vector"), 1), GOOGLE);
    assertThat(vectors.target()).isEqualTo(SpannerType.arrayOf(SpannerType.STRING_MAX));
    assertThat(vectors.isUnsupported()).isFalse();
  }

  @Test
  void multiDimensionalArraysKeepTheirText() {
    TypeMapping declared = TypeMapper.map(array(builtin("int4"), 2), GOOGLE);
    assertThat(declared.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(declared.conversion()).isEqualTo(ValueConversion.TEXT_OUTPUT);
    assertThat(declared.notes().get(0).message()).contains("one-dimensional");

    PgType t = array(builtin("int4"), 1);
    ColumnEvidence found = new ColumnEvidence("grid", false, 4,
        Map.of(ColumnEvidence.ARRAY_MULTIDIMENSIONAL, 1L, ColumnEvidence.ARRAY_LOWER_BOUND_NOT_1, 0L));
    TypeMapping m = TypeMapper.refine(t, TypeMapper.map(t, GOOGLE), found, GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(m.notes().get(0).message()).contains("1 value has more than one dimension");
  }

  @Test
  void numericArrayElementsAreRefinedByTheirOwnEvidence() {
    PgType t = array(numeric(12, 2), 1);
    TypeMapping first = TypeMapper.map(t, GOOGLE);
    assertThat(first.target()).isEqualTo(SpannerType.arrayOf(SpannerType.NUMERIC));
    assertThat(first.evidence()).containsExactlyInAnyOrder(EvidenceNeed.ARRAY_DIMENSIONS,
        EvidenceNeed.NUMERIC_FIT);
    Map<String, Object> f = new HashMap<>(numericEvidence(false, 1, 0, 0, 0, 3, 2).facts());
    f.put(ColumnEvidence.ARRAY_MULTIDIMENSIONAL, 0L);
    f.put(ColumnEvidence.ARRAY_LOWER_BOUND_NOT_1, 2L);
    TypeMapping m = TypeMapper.refine(t, first, new ColumnEvidence("amounts", false, 100, f), GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.arrayOf(SpannerType.STRING_MAX));
    assertThat(m.conversion()).isEqualTo(ValueConversion.NUMERIC_TEXT);
    assertThat(m.notes()).extracting(MappingNote::message)
        .anySatisfy(msg -> assertThat(msg).contains("1 NaN"))
        .anySatisfy(msg -> assertThat(msg).contains("2 values have a first subscript other than 1"));
  }

  @Test
  void anArrayOfAnUnsupportedTypeIsUnsupported() {
    TypeMapping m = TypeMapper.map(array(PgTypes.of("public", "address", Kind.COMPOSITE), 1), GOOGLE);
    assertThat(m.isUnsupported()).isTrue();
    assertThat(m.notes().get(0).message()).contains("element type address is unsupported");
  }

  @Test
  void enumArraysCannotCarryTheLabelCheck() {
    TypeMapping m = TypeMapper.map(array(enumType("mood", "sad", "ok"), 1), GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.arrayOf(SpannerType.STRING_MAX));
    assertThat(m.conversion()).isEqualTo(ValueConversion.ENUM_TEXT);
    assertThat(m.checks()).extracting(SpannerExpression::googleSql).isEmpty();
    assertThat(m.notes()).extracting(MappingNote::code).contains(FindingCode.CHECK_NOT_TRANSLATED);
  }

  // ---- enums and domains ----

  @Test
  void aLabelThatSpellsThePlaceholderStaysALabel() {
    // The template's column is a typed placeholder: before, "{col}" was replaced in the text, labels included, and
    // the CHECK then refused the rows holding that label.
    TypeMapping m = TypeMapper.map(enumType("odd", "{col}", "x"), GOOGLE);
    assertThat(m.checksFor("status")).extracting(SpannerExpression::googleSql)
        .containsExactly("status IN ('{col}', 'x')");
    assertThat(m.checksFor("status").get(0).in(dev.pg2spanner.spanner.SpannerDialect.POSTGRESQL))
        .contains("status IN ('{col}', 'x')");
  }

  @Test
  void enumLabelsAreQuotedAsGoogleSqlStringLiterals() {
    TypeMapping m = TypeMapper.map(enumType("odd", "G", "it's", "back\\slash", "two\nlines", "ü"), GOOGLE);
    assertThat(m.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(m.conversion()).isEqualTo(ValueConversion.ENUM_TEXT);
    assertThat(m.checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} IN ('G', \"it's\", 'back\\\\slash', 'two\\nlines', 'ü')");
    assertThat(m.checksFor("Rating")).extracting(SpannerExpression::googleSql).containsExactly(
        "Rating IN ('G', \"it's\", 'back\\\\slash', 'two\\nlines', 'ü')");
  }

  @Test
  void simpleDomainChecksAreTranslated() {
    TypeMapping year = TypeMapper.map(domain("year", builtin("int4"), false,
        "CHECK (((VALUE >= 1901) AND (VALUE <= 2155)))"), GOOGLE);
    assertThat(year.target()).isEqualTo(SpannerType.INT64);
    assertThat(year.checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} >= 1901 AND {col} <= 2155");

    TypeMapping negative = TypeMapper.map(domain("temp", builtin("int4"), false,
        "CHECK ((VALUE > '-273'::integer))"), GOOGLE);
    assertThat(negative.checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} > -273");

    TypeMapping in = TypeMapper.map(domain("size", builtin("text"), false,
        "CHECK ((VALUE = ANY (ARRAY['S'::text, 'M'::text, 'it''s'::text])))"), GOOGLE);
    assertThat(in.checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} IN ('S', 'M', \"it's\")");

    TypeMapping varchar = TypeMapper.map(domain("code", sized("varchar", "character varying(2)", 2), false,
        "CHECK (((VALUE)::text = ANY ((ARRAY['x'::character varying, 'y'::character varying])::text[])))",
        "CHECK ((char_length((VALUE)::text) >= 1))", "CHECK (VALUE IS NOT NULL)"), GOOGLE);
    assertThat(varchar.target()).isEqualTo(SpannerType.string(2));
    assertThat(varchar.checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} IN ('x', 'y')", "CHAR_LENGTH({col}) >= 1",
        "{col} IS NOT NULL");
  }

  @Test
  void checksOnTextThatPostgresqlComparesDifferentlyAreNotTranslated() {
    // char(2) 'a ' equals 'a' in PostgreSQL but not in Spanner, which keeps the padding; citext ignores case.
    String in = "CHECK ((VALUE = ANY (ARRAY['a'::bpchar, 'b'::bpchar])))";
    TypeMapping padded = TypeMapper.map(domain("grade", sized("bpchar", "character(2)", 2), false, in), GOOGLE);
    TypeMapping caseless = TypeMapper.map(domain("tag", builtin("citext"), false,
        "CHECK ((VALUE = ANY (ARRAY['a'::citext, 'b'::citext])))"), GOOGLE);
    for (TypeMapping m : List.of(padded, caseless)) {
      assertThat(m.checks()).extracting(SpannerExpression::googleSql).isEmpty();
      assertThat(m.notes()).extracting(MappingNote::code).contains(FindingCode.CHECK_NOT_TRANSLATED);
    }
  }

  @Test
  void aDomainOverCharNOrCitextKeepsOnlyItsNullTests() {
    PgType char2 = sized("bpchar", "character(2)", 2);
    assertThat(TypeMapper.map(domain("grade", char2, false, "CHECK ((VALUE IS NOT NULL))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .containsExactly("{col} IS NOT NULL");
    assertThat(TypeMapper.map(domain("tag", builtin("citext"), false, "CHECK ((VALUE IS NOT NULL))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .containsExactly("{col} IS NOT NULL");
    // Through a domain over a domain too: the padding is the innermost base's.
    PgType grade = domain("grade", char2, false);
    assertReportedNotTranslated(domain("top_grade", grade, false, "CHECK (((VALUE)::text = 'A'::text))"));
  }

  @Test
  void domainChecksFollowTheRulesOfTableChecks() {
    // One translator: a domain CHECK is translated as a CHECK on a column of the domain's types would be.
    assertThat(TypeMapper.map(domain("doubled", builtin("int4"), false, "CHECK (((VALUE * 2) < 100))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .containsExactly("{col} * 2 < 100");
    assertThat(TypeMapper.map(domain("halved", builtin("int4"), false, "CHECK (((VALUE / 2) > 1))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .as("integer division truncates in PostgreSQL only").isEmpty();
    assertThat(TypeMapper.map(domain("modern", builtin("date"), false, "CHECK ((VALUE >= '1900-01-01'::date))"), GOOGLE)
        .checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} >= DATE '1900-01-01'");
    // A NUMERIC column is compared with a NUMERIC literal, not with a FLOAT64 one.
    assertThat(TypeMapper.map(domain("price", numeric(10, 2), false, "CHECK ((VALUE > 0.5))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .containsExactly("{col} > NUMERIC '0.5'");
    assertThat(TypeMapper.map(domain("price", numeric(10, 2), false, "CHECK ((VALUE > 'abc'::text))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .as("mismatched types").isEmpty();
  }

  @Test
  void checksThatAreNotSimpleAreReportedByName() {
    String regex = "CHECK ((VALUE ~ '^[0-9]{5}$'::text))";
    TypeMapping zip = TypeMapper.map(domain("zip", builtin("text"), true, regex,
        "CHECK ((VALUE <> ''::text))"), GOOGLE);
    assertThat(zip.checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} <> ''");
    assertThat(zip.notes()).filteredOn(n -> n.code() == FindingCode.CHECK_NOT_TRANSLATED).singleElement()
        .satisfies(n -> {
          assertThat(n.message()).contains(regex).contains("zip");
          assertThat(n.evidence()).containsEntry("check", regex);
        });
    assertThat(zip.notes()).filteredOn(n -> Boolean.TRUE.equals(n.evidence().get("notNull"))).hasSize(1);

    // Arithmetic (integer division differs) and mismatched literal types are not translated either.
    assertThat(TypeMapper.map(domain("even", builtin("int4"), false, "CHECK (((VALUE % 2) = 0))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .isEmpty();
    assertThat(TypeMapper.map(domain("odd", builtin("int4"), false, "CHECK ((VALUE <> 'x'::text))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .isEmpty();
  }

  /** The domain's one check is not translated, and a CHECK_NOT_TRANSLATED note says so. */
  private static void assertReportedNotTranslated(PgType domain) {
    TypeMapping m = TypeMapper.map(domain, GOOGLE);
    assertThat(m.checks()).extracting(SpannerExpression::googleSql).as(domain.domainChecks().toString()).isEmpty();
    assertThat(m.notes()).extracting(MappingNote::code).contains(FindingCode.CHECK_NOT_TRANSLATED);
  }

  @Test
  void domainChecksThatOrderStringsAreNotTranslated() {
    // PostgreSQL orders text by its collation, Spanner by code point: under ICU's root collation 'a' < 'B' (checked
    // here), in Spanner 'B' < 'a'.
    for (String check : List.of("CHECK ((VALUE > 'm'::text))", "CHECK (('a'::text <= VALUE))")) {
      assertReportedNotTranslated(domain("ordered", builtin("text"), false, check));
    }
    // Lengths are numbers, and equality does not depend on the collation (deterministic collations).
    assertThat(TypeMapper.map(domain("sized", builtin("text"), false, "CHECK ((char_length(VALUE) >= 2))",
        "CHECK ((VALUE <> 'x'::text))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql).hasSize(2);
  }

  @Test
  void domainChecksThatChangeCaseAreNotTranslated() {
    // PostgreSQL's lower()/upper() follow the column's collation: under "C" (and C.UTF-8) lower('ÉA') is 'Éa'.
    // Spanner's follow Unicode ('éa'), so CHECK (VALUE = lower(VALUE)) would reject rows PostgreSQL accepts.
    for (String check : List.of("CHECK ((VALUE = lower(VALUE)))", "CHECK ((upper(VALUE) <> ''::text))")) {
      assertReportedNotTranslated(domain("lowered", builtin("text"), false, check));
    }
  }

  @Test
  void domainCheckNumbersMustFitSpannerNumeric() {
    // Spanner NUMERIC holds 29 integer and 9 fractional digits; a longer literal would make the V4 DDL fail.
    PgType base = numeric(38, 9);
    assertThat(TypeMapper.map(base, GOOGLE).target()).isEqualTo(SpannerType.NUMERIC);
    String largest = "9".repeat(29) + ".999999999";
    assertThat(TypeMapper.map(domain("fits", base, false, "CHECK ((VALUE < " + largest + "))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .containsExactly("{col} < NUMERIC '" + largest + "'");
    assertThat(TypeMapper.map(domain("tiny", base, false, "CHECK ((VALUE > 0.000000001))"), GOOGLE).checks()).extracting(SpannerExpression::googleSql)
        .containsExactly("{col} > NUMERIC '0.000000001'");
    for (String tooLong : List.of("'1" + "0".repeat(29) + "'::numeric", "0.0000000001")) {
      assertReportedNotTranslated(domain("too_long", base, false, "CHECK ((VALUE < " + tooLong + "))"));
    }
  }

  @Test
  void aDomainWhoseBaseFallsBackToTextDropsItsNumericCheck() {
    PgType amount = domain("amount", numeric(null, null), false, "CHECK ((VALUE >= (0)::numeric))");
    TypeMapping first = TypeMapper.map(amount, GOOGLE);
    assertThat(first.target()).isEqualTo(SpannerType.STRING_MAX);
    assertThat(first.checks()).extracting(SpannerExpression::googleSql).isEmpty();
    assertThat(first.notes()).extracting(MappingNote::code).contains(FindingCode.CHECK_NOT_TRANSLATED);
    TypeMapping fits = TypeMapper.refine(amount, first, numericEvidence(false, 0, 0, 0, 0, 5, 2), GOOGLE);
    assertThat(fits.target()).isEqualTo(SpannerType.NUMERIC);
    assertThat(fits.checks()).extracting(SpannerExpression::googleSql).containsExactly("{col} >= 0");
  }

  @Test
  void describeTableListsEveryRuleIncludingTheByKindOnes() {
    Map<String, String> table = TypeMapper.describeTable();
    assertThat(table).containsKeys("int4", "integer", "character varying", "timestamp with time zone",
        "<array>", "<enum>", "<domain>", "<composite>", "<unknown>");
    List<String> unsupported = new ArrayList<>();
    table.forEach((k, v) -> {
      if (v.startsWith("unsupported")) {
        unsupported.add(k);
      }
    });
    assertThat(unsupported).contains("<unknown>", "<composite>", "<pseudo>").doesNotContain("aclitem", "jsonpath",
        "pg_node_tree", "refcursor");
  }
}
