package dev.pg2spanner.mapping;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one column's values showed. The fact names are the constants below; each fact is present only when
 * its {@link EvidenceNeed} was collected. Counts are numbers of values (of elements, for an array column's value
 * needs), over the rows examined.
 *
 * @param column the source column name (never null)
 * @param sampled true when the table was read with TABLESAMPLE: the facts describe a sample, not every row
 * @param rowsExamined how many rows the query read
 * @param facts fact name → value (Long counts and maxima, String texts), sorted by name; null = empty. A null
 *     value means the aggregate had no input (e.g. every value NULL)
 */
public record ColumnEvidence(String column, boolean sampled, long rowsExamined, Map<String, Object> facts) {

  /** Non-null values in the column. */
  public static final String NON_NULL = "non_null_values";

  /** NUMERIC_FIT: values equal to NaN. */
  public static final String NUMERIC_NAN = "numeric_nan";
  /** NUMERIC_FIT: values equal to ±Infinity (PostgreSQL 14 and later). */
  public static final String NUMERIC_INFINITY = "numeric_infinity";
  /** NUMERIC_FIT: finite values whose absolute value is ≥ 10^29 (more than 29 integer digits). */
  public static final String NUMERIC_TOO_MANY_INTEGER_DIGITS = "numeric_too_many_integer_digits";
  /** NUMERIC_FIT: finite values with more than 9 fractional digits after trailing zeros are removed. */
  public static final String NUMERIC_TOO_MANY_FRACTION_DIGITS = "numeric_too_many_fraction_digits";
  /** NUMERIC_FIT: the most integer digits of any finite value. */
  public static final String NUMERIC_MAX_INTEGER_DIGITS = "numeric_max_integer_digits";
  /** NUMERIC_FIT: the most significant fractional digits of any finite value (trailing zeros removed). */
  public static final String NUMERIC_MAX_FRACTION_DIGITS = "numeric_max_fraction_digits";

  /** TEMPORAL_RANGE: values equal to infinity or -infinity. */
  public static final String TEMPORAL_INFINITY = "temporal_infinity";
  /** TEMPORAL_RANGE: finite values before 0001-01-01 (BC), in UTC for timestamptz. */
  public static final String TEMPORAL_BEFORE_YEAR_1 = "temporal_before_year_1";
  /** TEMPORAL_RANGE: finite values on or after 10000-01-01, in UTC for timestamptz. */
  public static final String TEMPORAL_AFTER_YEAR_9999 = "temporal_after_year_9999";

  /** TEXT_SIZE: the largest value in bytes. */
  public static final String MAX_OCTETS = "max_octets";
  /** TEXT_SIZE: values larger than Spanner's 10 MiB cell limit. */
  public static final String OVER_CELL_LIMIT = "over_cell_limit";
  /** TEXT_SIZE: text values longer than STRING's 2,621,440 characters (a limit of its own, below 10 MiB in ASCII). */
  public static final String OVER_STRING_CHARS = "over_string_chars";

  /** ARRAY_DIMENSIONS: values with more than one dimension. */
  public static final String ARRAY_MULTIDIMENSIONAL = "array_multidimensional";
  /** ARRAY_DIMENSIONS: values whose first subscript is not 1 (e.g. '[0:2]={1,2,3}'). */
  public static final String ARRAY_LOWER_BOUND_NOT_1 = "array_lower_bound_not_1";

  /** JSON_DEPTH: documents with an object or array nested more than 80 levels deep. */
  public static final String JSON_TOO_DEEP = "json_too_deep";
  /** JSON_DEPTH: documents whose text is larger than 10 MiB. */
  public static final String JSON_OVER_SIZE = "json_over_size";
  /** JSON_DEPTH: documents holding a number Spanner cannot keep exactly (not an INT64/UINT64 integer and not
   *  round-trippable through a double). */
  public static final String JSON_INEXACT_NUMBERS = "json_inexact_numbers";
  public ColumnEvidence {
    Objects.requireNonNull(column, "column");
    facts = facts == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(facts));
  }

  /** A count fact; a missing or null fact counts as 0. */
  public long count(String fact) {
    Object v = facts.get(fact);
    return v instanceof Number n ? n.longValue() : 0L;
  }

  /** True when the fact was collected (even if its value is null). */
  public boolean has(String fact) {
    return facts.containsKey(fact);
  }
}
