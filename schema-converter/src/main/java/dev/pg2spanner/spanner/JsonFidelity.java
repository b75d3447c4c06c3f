package dev.pg2spanner.spanner;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Would Spanner's JSON type keep this PostgreSQL {@code json}/{@code jsonb} document's value? One rule, used by
 * {@code plan} (to predict, per column, how many documents would change) and by the loader (to dead-letter such a
 * document rather than write a changed value).
 *
 * <p>Spanner's JSON (https://cloud.google.com/spanner/docs/reference/standard-sql/data-types#json_type) keeps an
 * integer in INT64 or UINT64 range exactly and any other number as a double; it refuses strings holding U+0000 or
 * an unpaired surrogate (legal in PostgreSQL's {@code json}), keeps one of duplicate object keys (PostgreSQL's
 * {@code json} keeps all of them), and refuses documents nested deeper than {@link #MAX_DEPTH}. Key order and
 * whitespace are not values and are not checked.
 */
public final class JsonFidelity {

  /** Spanner's maximum nesting of JSON objects and arrays. */
  public static final int MAX_DEPTH = 80;

  private static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
  private static final JsonFactory FACTORY = JsonFactory.builder()
      // PostgreSQL accepts documents of any size and number length; Spanner's own limits are checked here.
      .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(Integer.MAX_VALUE)
          .maxStringLength(Integer.MAX_VALUE).maxNestingDepth(Integer.MAX_VALUE).build())
      .build();

  /** What changes or is refused. */
  public enum Kind {
    /** A number beyond INT64/UINT64 that a double does not hold exactly: Spanner would store a rounded value. */
    INEXACT_NUMBER,
    /** A string with U+0000 or an unpaired surrogate: Spanner refuses the document. */
    REFUSED_STRING,
    /** An object with the same key twice: Spanner keeps only one of them. */
    DUPLICATE_KEY,
    /** Nesting deeper than {@link #MAX_DEPTH}: Spanner refuses the document. */
    TOO_DEEP,
    /** Not JSON at all (cannot come from PostgreSQL's json types; reported for completeness). */
    MALFORMED
  }

  /**
   * The first problem found.
   *
   * @param kind what kind
   * @param detail a short phrase naming the value, e.g. "the number 12345678901234567890123"
   */
  public record Problem(Kind kind, String detail) {
    /** A sentence for a dead-letter reason. */
    public String reason() {
      return switch (kind) {
        case INEXACT_NUMBER -> "Spanner JSON would round " + detail + " (an integer beyond 64 bits that is not "
            + "exact as a double); the plan can keep this column's text instead";
        case REFUSED_STRING -> "Spanner JSON refuses " + detail;
        case DUPLICATE_KEY -> "Spanner JSON keeps one of duplicate keys, and this document repeats " + detail;
        case TOO_DEEP -> "Spanner JSON refuses documents nested deeper than " + MAX_DEPTH + " levels";
        case MALFORMED -> "not a JSON document (" + detail + ")";
      };
    }
  }

  private JsonFidelity() {}

  /** The first value of {@code json} that Spanner JSON would change or refuse, or empty when it keeps it all. */
  public static Optional<Problem> check(String json) {
    return scan(json, true);
  }

  /**
   * The first value of {@code json} that a Spanner {@code jsonb} column (the PostgreSQL dialect, which keeps
   * PostgreSQL's own jsonb rules) would change or refuse: a key or string holding U+0000 or an unpaired surrogate, which
   * PostgreSQL's {@code json} type accepts as escapes, or an object that repeats a key, of which jsonb keeps only the
   * last; empty when there is none. Numbers and nesting are kept there as PostgreSQL's jsonb keeps them.
   */
  public static Optional<Problem> checkForJsonb(String json) {
    return scan(json, false);
  }

  /**
   * One pass over the document: keys and strings Spanner refuses and repeated keys always; with {@code spannerJson}
   * also the nesting depth and numbers that would not stay exact (Spanner JSON's own rules, which jsonb does not have).
   */
  private static Optional<Problem> scan(String json, boolean spannerJson) {
    Deque<Set<String>> objects = new ArrayDeque<>();
    int depth = 0;
    try (JsonParser p = FACTORY.createParser(json)) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        switch (t) {
          case START_OBJECT, START_ARRAY -> {
            objects.push(t == JsonToken.START_OBJECT ? new HashSet<>() : Set.of());
            if (spannerJson && ++depth > MAX_DEPTH) {
              return Optional.of(new Problem(Kind.TOO_DEEP, "depth " + depth));
            }
          }
          case END_OBJECT, END_ARRAY -> {
            objects.pop();
            depth--;
          }
          case FIELD_NAME -> {
            String name = p.currentName();
            Optional<Problem> bad = refusedString(name, "the key");
            if (bad.isPresent()) {
              return bad;
            }
            if (!objects.peek().add(name)) {
              return Optional.of(new Problem(Kind.DUPLICATE_KEY, "the key \"" + excerpt(name) + "\""));
            }
          }
          case VALUE_STRING -> {
            Optional<Problem> bad = refusedString(p.getText(), "a string");
            if (bad.isPresent()) {
              return bad;
            }
          }
          case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
            String text = p.getText();
            if (spannerJson && !exact(new BigDecimal(text))) {
              return Optional.of(new Problem(Kind.INEXACT_NUMBER, "the number " + excerpt(text)));
            }
          }
          default -> { }
        }
      }
    } catch (IOException | NumberFormatException e) {
      return Optional.of(new Problem(Kind.MALFORMED, excerpt(String.valueOf(e.getMessage()))));
    }
    return Optional.empty();
  }

  /**
   * {@link #check} for a document whose object keys are already unique: PostgreSQL's {@code jsonb} output (jsonb
   * keeps only the last of duplicate keys on input). One pass over the characters settles the common document, in
   * which no string holds a backslash-u escape, a NUL or a surrogate, no number has an exponent or more than
   * {@value #PLAIN_NUMBER_CHARS} characters (so at most 15 significant digits, which a double holds exactly), and
   * nesting stays within {@link #MAX_DEPTH}; any other document gets the full check, so both answer alike.
   */
  public static Optional<Problem> checkUniqueKeys(String json) {
    return plainlyKept(json) ? Optional.empty() : check(json);
  }

  /** A number of at most this many characters (sign and point included) and no exponent is kept exactly. */
  static final int PLAIN_NUMBER_CHARS = 15;

  /** True when {@code json} has nothing {@link #check} could object to, keys aside; false when unsure. */
  static boolean plainlyKept(String json) {
    int depth = 0;
    boolean inString = false;
    int n = json.length();
    for (int i = 0; i < n; i++) {
      char c = json.charAt(i);
      if (inString) {
        if (c == '"') {
          inString = false;
        } else if (c == '\\') {
          if (i + 1 >= n || json.charAt(i + 1) == 'u') {
            return false;
          }
          i++;
        } else if (c == 0 || Character.isSurrogate(c)) {
          return false;
        }
        continue;
      }
      if (c == '"') {
        inString = true;
      } else if (c == '{' || c == '[') {
        if (++depth > MAX_DEPTH) {
          return false;
        }
      } else if (c == '}' || c == ']') {
        depth--;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        int start = i;
        while (i + 1 < n && isNumberPart(json.charAt(i + 1))) {
          i++;
          char d = json.charAt(i);
          if (d == 'e' || d == 'E') {
            return false;
          }
        }
        if (i - start + 1 > PLAIN_NUMBER_CHARS) {
          return false;
        }
      }
    }
    return !inString && depth == 0;
  }

  private static boolean isNumberPart(char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  }

  /**
   * True when Spanner JSON keeps the number exactly: an integer in INT64 or UINT64 range, or a value equal to the
   * shortest decimal that round-trips through a double (Spanner prints a double that way). The same rule as the
   * plan's SQL evidence for jsonb ({@code EvidenceCollector}).
   */
  static boolean exact(BigDecimal n) {
    if (n.signum() == 0) {
      return true;
    }
    BigDecimal stripped = n.stripTrailingZeros();
    if (stripped.scale() <= 0) {
      BigInteger i = stripped.toBigIntegerExact();
      if (i.compareTo(INT64_MIN) >= 0 && i.compareTo(UINT64_MAX) <= 0) {
        return true;
      }
    }
    double d = n.doubleValue();
    if (Double.isInfinite(d) || d == 0.0) {
      return false;
    }
    BigDecimal exactBinary = new BigDecimal(d);
    for (int digits = 1; digits <= 17; digits++) {
      BigDecimal shortest = exactBinary.round(new MathContext(digits));
      if (shortest.doubleValue() == d) {
        return shortest.compareTo(n) == 0;
      }
    }
    return false;
  }

  private static Optional<Problem> refusedString(String s, String what) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\u0000') {
        return Optional.of(new Problem(Kind.REFUSED_STRING, what + " holding U+0000 (\\u0000)"));
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        return Optional.of(new Problem(Kind.REFUSED_STRING, what + " holding an unpaired surrogate (\\u"
            + Integer.toHexString(c) + ")"));
      }
      if (Character.isLowSurrogate(c)) {
        return Optional.of(new Problem(Kind.REFUSED_STRING, what + " holding an unpaired surrogate (\\u"
            + Integer.toHexString(c) + ")"));
      }
    }
    return Optional.empty();
  }

  private static String excerpt(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }
}
