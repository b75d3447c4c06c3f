package dev.pg2spanner.canonical;

import com.google.cloud.spanner.Value;
import java.util.List;

/** The elements of a Spanner ARRAY value: the one place that knows which getter each element type needs. */
public final class ArrayValues {

  private ArrayValues() {}

  /**
   * The elements (null for a NULL element) of a non-NULL ARRAY value.
   *
   * @throws IllegalArgumentException for an element type without a getter here (STRUCT, PROTO, ENUM, INTERVAL)
   */
  public static List<?> elements(Value array) {
    return switch (array.getType().getArrayElementType().getCode()) {
      case BOOL -> array.getBoolArray();
      case INT64, PG_OID -> array.getInt64Array();
      case FLOAT32 -> array.getFloat32Array();
      case FLOAT64 -> array.getFloat64Array();
      case NUMERIC -> array.getNumericArray();
      case PG_NUMERIC, STRING -> array.getStringArray();
      case JSON -> array.getJsonArray();
      case PG_JSONB -> array.getPgJsonbArray();
      case BYTES -> array.getBytesArray();
      case DATE -> array.getDateArray();
      case TIMESTAMP -> array.getTimestampArray();
      case UUID -> array.getUuidArray();
      default -> throw new IllegalArgumentException("no elements of Spanner type " + array.getType());
    };
  }
}
