package dev.pg2spanner.canonical;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The canonical text of a Spanner {@link Value}: the one function both sides of verify go through (source rows as
 * the converter's mutation values, target rows as read back from Spanner), so that equal values have equal text and
 * different values different text.
 *
 * <p>Forms, per Spanner type (each is self-delimiting, so values inside arrays and key texts cannot alias):
 * <ul>
 *   <li>NULL of any type: {@code NULL} — distinct from {@code ''} and from an empty array {@code []};
 *   <li>BOOL {@code TRUE}/{@code FALSE}; INT64 decimal ({@code 42});
 *   <li>FLOAT64/FLOAT32: the IEEE bits, {@code FLOAT64 0x3ff8000000000000 (1.5)} — the bits decide (so −0 ≠ +0 and
 *       ±Infinity are exact), the decimal is only for people reading a key. Every NaN maps to the one canonical NaN
 *       because Spanner's wire format carries NaN as the text "NaN" and cannot keep a payload;
 *   <li>NUMERIC {@code NUMERIC 1.5} ({@code stripTrailingZeros().toPlainString()}, so 1.50 = 1.5);
 *   <li>STRING as a SQL literal, {@code 'it''s'} (quotes doubled): exact and unambiguous, and readable in a
 *       differing-key report (chosen over a length prefix for that reason; both are prefix-free);
 *   <li>BYTES {@code b64'…'}; DATE {@code DATE 2024-01-31}; TIMESTAMP microseconds since the epoch,
 *       {@code TIMESTAMP 1706659200000000} (a sub-microsecond remainder, which PostgreSQL never produces, is kept as
 *       {@code .nnn} so no value is lost);
 *   <li>JSON parsed and re-serialised with sorted keys, no whitespace, numbers as exact decimals with trailing
 *       zeros stripped, the first of duplicate keys kept (as Spanner does) — so Spanner's normalisation of what it
 *       stores does not show as a difference, while a different value does;
 *   <li>ARRAY {@code [e1, e2, NULL]}: elements in order, each in its element type's form, NULL elements marked.
 * </ul>
 * Thread-safe.
 */
public final class Canonical {

  /** Row hashes are the first 128 bits of SHA-256: collisions are out of reach for any table size. */
  public static final int ROW_HASH_BYTES = 16;

  private static final JsonFactory JSON = JsonFactory.builder().build();
  /** Lower-case, zero-padded hex digits (every float value of verify goes through it: no String.format). */
  private static final java.util.HexFormat HEX = java.util.HexFormat.of();

  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
    }
  });

  private Canonical() {}

  /**
   * The canonical text of one value.
   *
   * @param value not null (a SQL NULL is a {@code Value} whose {@code isNull()} is true)
   * @throws IllegalArgumentException for a type no Spanner column of this tool has (STRUCT, PROTO, ENUM)
   */
  public static String of(Value value) {
    Objects.requireNonNull(value, "value");
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  /**
   * The 128-bit hash of one row: SHA-256 over the number of values and each value's canonical text, each
   * length-prefixed (so no two rows alias by moving text across a column boundary), truncated to 16 bytes.
   *
   * @param values the row's loaded columns in the plan's order; not null, no null elements
   */
  public static byte[] rowHash(List<Value> values) {
    MessageDigest sha = SHA256.get();
    sha.reset();
    updateInt(sha, values.size());
    for (Value v : values) {
      byte[] text = of(v).getBytes(StandardCharsets.UTF_8);
      updateInt(sha, text.length);
      sha.update(text);
    }
    byte[] full = sha.digest();
    byte[] hash = new byte[ROW_HASH_BYTES];
    System.arraycopy(full, 0, hash, 0, ROW_HASH_BYTES);
    return hash;
  }

  /**
   * The 64-bit content hash of a keyless table's row ({@link dev.pg2spanner.plan.RowHash}, issue 30): the first 8
   * bytes, big-endian, of {@link #rowHash} — SHA-256 over the value count and each value's canonical text,
   * length-prefixed, so NULL and '' differ, no text moves across a column boundary, and the column order counts. The
   * loader stores it and the live applier looks rows up by it; equal rows (duplicates) share it, and a collision only
   * costs the comparison of the rows found.
   *
   * @param values the hashed columns' values in {@code RowHash.columns()} order; not null, no null elements
   */
  public static long rowHash64(List<Value> values) {
    byte[] hash = rowHash(values);
    long h = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      h = (h << 8) | (hash[i] & 0xff);
    }
    return h;
  }

  /**
   * The key text verify reports and matches rows by: the canonical texts of the key values, joined with
   * {@code ", "} (unambiguous because each canonical form is self-delimiting). Both sides must build it with this
   * function; {@link dev.pg2spanner.load.row.RowKey} decides which values name a row.
   *
   * @param keyValues the key columns' values, in key order; not null
   */
  public static String keyText(List<Value> keyValues) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < keyValues.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      append(out, keyValues.get(i));
    }
    return out.toString();
  }

  private static void updateInt(MessageDigest sha, int n) {
    sha.update((byte) (n >>> 24));
    sha.update((byte) (n >>> 16));
    sha.update((byte) (n >>> 8));
    sha.update((byte) n);
  }

  private static void append(StringBuilder out, Value value) {
    if (value.isNull()) {
      out.append("NULL");
      return;
    }
    Type type = value.getType();
    switch (type.getCode()) {
      case BOOL -> scalar(out, Type.Code.BOOL, value.getBool());
      case INT64 -> scalar(out, Type.Code.INT64, value.getInt64());
      case PG_OID -> scalar(out, Type.Code.INT64, value.getInt64());
      case FLOAT32 -> scalar(out, Type.Code.FLOAT32, value.getFloat32());
      case FLOAT64 -> scalar(out, Type.Code.FLOAT64, value.getFloat64());
      case NUMERIC -> scalar(out, Type.Code.NUMERIC, value.getNumeric());
      case PG_NUMERIC -> scalar(out, Type.Code.PG_NUMERIC, value.getString());
      case STRING -> scalar(out, Type.Code.STRING, value.getString());
      case JSON -> scalar(out, Type.Code.JSON, value.getJson());
      case PG_JSONB -> scalar(out, Type.Code.JSON, value.getPgJsonb());
      case BYTES -> scalar(out, Type.Code.BYTES, value.getBytes());
      case DATE -> scalar(out, Type.Code.DATE, value.getDate());
      case TIMESTAMP -> scalar(out, Type.Code.TIMESTAMP, value.getTimestamp());
      case UUID -> scalar(out, Type.Code.UUID, value.getUuid());
      case ARRAY -> array(out, type.getArrayElementType().getCode(), value);
      default -> throw new IllegalArgumentException("verify has no canonical form for Spanner type " + type);
    }
  }

  private static void array(StringBuilder out, Type.Code element, Value value) {
    List<?> elements;
    try {
      elements = ArrayValues.elements(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("verify has no canonical form for Spanner type " + value.getType(), e);
    }
    Type.Code code = switch (element) {
      case PG_OID -> Type.Code.INT64;
      case PG_JSONB -> Type.Code.JSON;
      default -> element;
    };
    out.append('[');
    for (int i = 0; i < elements.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      Object e = elements.get(i);
      if (e == null) {
        out.append("NULL");
      } else {
        scalar(out, code, e);
      }
    }
    out.append(']');
  }

  /** One non-null scalar (a column value or an array element) given as the Java object the client returns. */
  private static void scalar(StringBuilder out, Type.Code code, Object v) {
    switch (code) {
      case BOOL -> out.append((Boolean) v ? "TRUE" : "FALSE");
      case INT64 -> out.append((long) (Long) v);
      case FLOAT32 -> {
        float f = (Float) v;
        // floatToIntBits (not Raw) folds every NaN into the canonical one; see the class comment.
        out.append("FLOAT32 0x").append(HEX.toHexDigits(Float.floatToIntBits(f)))
            .append(" (").append(f).append(')');
      }
      case FLOAT64 -> {
        double d = (Double) v;
        out.append("FLOAT64 0x").append(HEX.toHexDigits(Double.doubleToLongBits(d)))
            .append(" (").append(d).append(')');
      }
      case NUMERIC -> out.append("NUMERIC ").append(((BigDecimal) v).stripTrailingZeros().toPlainString());
      case PG_NUMERIC -> {
        String text = (String) v;
        out.append("NUMERIC ");
        try {
          out.append(new BigDecimal(text).stripTrailingZeros().toPlainString());
        } catch (NumberFormatException notANumber) {
          out.append(text); // NaN: PostgreSQL-dialect NUMERIC has it, and it is equal only to itself
        }
      }
      case STRING -> quote(out, (String) v);
      case JSON -> json(out, (String) v);
      case BYTES -> out.append("b64'").append(((ByteArray) v).toBase64()).append('\'');
      case DATE -> out.append("DATE ").append((Date) v);
      case TIMESTAMP -> {
        Timestamp t = (Timestamp) v;
        long micros = Math.addExact(Math.multiplyExact(t.getSeconds(), 1_000_000L), t.getNanos() / 1000);
        out.append("TIMESTAMP ").append(micros);
        int subMicro = t.getNanos() % 1000;
        if (subMicro != 0) {
          out.append('.').append(String.format(Locale.ROOT, "%03d", subMicro));
        }
      }
      case UUID -> out.append("UUID ").append(v.toString().toLowerCase(Locale.ROOT));
      default -> throw new IllegalArgumentException("verify has no canonical form for Spanner type " + code);
    }
  }

  private static void quote(StringBuilder out, String s) {
    out.append('\'');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\'') {
        out.append('\'');
      }
      out.append(c);
    }
    out.append('\'');
  }

  /**
   * {@code JSON '…'} with the normalised document; text that is not JSON at all (which Spanner would never return)
   * is kept as {@code JSON? '…'} so it compares unequal instead of failing the whole verify.
   */
  private static void json(StringBuilder out, String text) {
    String normalised;
    try (JsonParser parser = JSON.createParser(text)) {
      StringBuilder doc = new StringBuilder(text.length());
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new IOException("empty JSON document");
      }
      jsonValue(parser, doc);
      if (parser.nextToken() != null) {
        throw new IOException("trailing content after the JSON document");
      }
      normalised = doc.toString();
    } catch (IOException notJson) {
      out.append("JSON? ");
      quote(out, text);
      return;
    }
    out.append("JSON ");
    quote(out, normalised);
  }

  /** Writes the value at the parser's current token, leaving the parser on its last token. */
  private static void jsonValue(JsonParser p, StringBuilder out) throws IOException {
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        // Sorted keys; the first of duplicate keys wins, as in Spanner's JSON normalisation.
        TreeMap<String, String> members = new TreeMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          StringBuilder member = new StringBuilder();
          jsonValue(p, member);
          members.putIfAbsent(name, member.toString());
        }
        out.append('{');
        boolean firstMember = true;
        for (var m : members.entrySet()) {
          if (!firstMember) {
            out.append(',');
          }
          firstMember = false;
          jsonString(out, m.getKey());
          out.append(':').append(m.getValue());
        }
        out.append('}');
      }
      case START_ARRAY -> {
        out.append('[');
        boolean firstElement = true;
        while (p.nextToken() != JsonToken.END_ARRAY) {
          if (!firstElement) {
            out.append(',');
          }
          firstElement = false;
          jsonValue(p, out);
        }
        out.append(']');
      }
      case VALUE_STRING -> jsonString(out, p.getText());
      // Numbers compare by value (1.50 = 1.5 = 15e-1); toString, not toPlainString, so 1e300000 stays short.
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> out.append(p.getDecimalValue().stripTrailingZeros());
      case VALUE_TRUE -> out.append("true");
      case VALUE_FALSE -> out.append("false");
      case VALUE_NULL -> out.append("null");
      default -> throw new IOException("unexpected JSON token " + t);
    }
  }

  private static void jsonString(StringBuilder out, String s) {
    out.append('"');
    JsonStringEncoder.getInstance().quoteAsString(s, out);
    out.append('"');
  }
}
