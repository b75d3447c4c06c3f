package dev.pg2spanner.naming;

import dev.pg2spanner.spanner.SpannerLimits;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns an arbitrary PostgreSQL name into a legal Spanner identifier ({@code [A-Za-z][A-Za-z0-9_]*}, at most 128
 * characters). Pure functions; collisions are not resolved here (see {@link Namespace}).
 */
final class Identifier {

  /** Spanner's identifier length limit (128). */
  static final int MAX_LENGTH = SpannerLimits.GOOGLE_STANDARD_SQL.maxIdentifierLength();

  private static final Pattern LEGAL = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
  private static final Pattern COMBINING_MARKS = Pattern.compile("\\p{M}+");
  private static final Pattern NOT_ALLOWED = Pattern.compile("[^A-Za-z0-9_]+");
  private static final Pattern UNDERSCORES = Pattern.compile("_{2,}");
  private static final int HASH_LENGTH = 8;

  /** Letters that Unicode decomposition does not reduce to ASCII but that have an obvious spelling. */
  private static final Map<String, String> LIGATURES = Map.ofEntries(
      Map.entry("ß", "ss"), Map.entry("æ", "ae"), Map.entry("Æ", "AE"), Map.entry("œ", "oe"),
      Map.entry("Œ", "OE"), Map.entry("ø", "o"), Map.entry("Ø", "O"), Map.entry("đ", "d"), Map.entry("Đ", "D"),
      Map.entry("ł", "l"), Map.entry("Ł", "L"), Map.entry("þ", "th"), Map.entry("Þ", "TH"));

  /**
   * The result of sanitising one name.
   *
   * @param name the legal identifier, never null
   * @param reasons why it differs from the input, empty when it does not
   */
  record Sanitized(String name, List<String> reasons) {
    Sanitized {
      reasons = List.copyOf(reasons);
    }

    boolean changed() {
      return !reasons.isEmpty();
    }
  }

  private Identifier() {}

  static boolean isLegal(String name) {
    return name.length() <= MAX_LENGTH && LEGAL.matcher(name).matches();
  }

  /**
   * A legal identifier for {@code original}: unchanged when already legal (case kept), else accents
   * transliterated, other characters replaced by {@code _}, a leading non-letter prefixed with {@code prefix},
   * and names over 128 characters cut with a stable hash of the original.
   *
   * @param original the source name, not null
   * @param prefix a single letter put before a name that does not start with a letter, e.g. "t" or "c"
   */
  static Sanitized sanitize(String original, String prefix) {
    if (isLegal(original)) {
      return new Sanitized(original, List.of());
    }
    List<String> reasons = new ArrayList<>();
    String name = original;
    if (!LEGAL.matcher(name).matches()) {
      String ascii = transliterate(name);
      String replaced = NOT_ALLOWED.matcher(ascii).replaceAll("_");
      replaced = UNDERSCORES.matcher(replaced).replaceAll("_");
      if (!replaced.equals(ascii) || !ascii.equals(name)) {
        reasons.add("contains characters Spanner identifiers do not allow");
      }
      // Separators at the end only come from replaced characters ("Prix (€)" -> "Prix_"): drop them.
      while (replaced.length() > 1 && replaced.endsWith("_") && !name.endsWith("_")) {
        replaced = replaced.substring(0, replaced.length() - 1);
      }
      if (replaced.isEmpty() || replaced.equals("_")) {
        // Nothing readable survives (e.g. a name in a non-Latin script): keep distinct names distinct.
        replaced = prefix + "_" + hash(original);
      } else if (!isAsciiLetter(replaced.charAt(0))) {
        reasons.add("does not start with a letter");
        replaced = replaced.startsWith("_") ? prefix + replaced : prefix + "_" + replaced;
      }
      name = replaced;
    }
    if (name.length() > MAX_LENGTH) {
      reasons.add("is longer than " + MAX_LENGTH + " characters");
      name = truncate(name, original, MAX_LENGTH);
    }
    return new Sanitized(name, reasons);
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }

  /** {@code base + suffix}, cutting {@code base} (with a hash of {@code base}) so the result fits 128 characters. */
  static String withSuffix(String base, String suffix) {
    String name = base + suffix;
    if (name.length() <= MAX_LENGTH) {
      return name;
    }
    return truncate(base, base, MAX_LENGTH - suffix.length()) + suffix;
  }

  /**
   * True when an unquoted identifier reaches {@code pgName} in PostgreSQL: PostgreSQL folds unquoted identifiers to
   * lower case, so only an all-lower-case name is reached without quotes ({@code orders}; {@code "Orders"} needs them).
   */
  static boolean reachedUnquoted(String pgName) {
    return pgName.equals(pgName.toLowerCase(Locale.ROOT));
  }

  /** The case-insensitive identity of a legal identifier (identifiers are ASCII, so ROOT lower case is exact). */
  static String key(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  private static String truncate(String name, String hashSource, int max) {
    String tail = "_" + hash(hashSource);
    String head = name.substring(0, max - tail.length());
    while (head.endsWith("_")) {
      head = head.substring(0, head.length() - 1);
    }
    return head + tail;
  }

  private static String transliterate(String name) {
    StringBuilder out = new StringBuilder(name.length());
    name.codePoints().forEach(cp -> {
      String s = new String(Character.toChars(cp));
      out.append(LIGATURES.getOrDefault(s, s));
    });
    String decomposed = Normalizer.normalize(out, Normalizer.Form.NFD);
    return COMBINING_MARKS.matcher(decomposed).replaceAll("");
  }

  /** The first {@value #HASH_LENGTH} hex digits of the SHA-256 of the name: stable across runs and JVMs. */
  static String hash(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, HASH_LENGTH);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime provides SHA-256", e);
    }
  }
}
