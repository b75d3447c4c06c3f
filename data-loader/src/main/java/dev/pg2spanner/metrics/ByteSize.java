package dev.pg2spanner.metrics;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size as an operator writes it ({@code --max-slot-wal 20GB}): a number and a unit read as PostgreSQL reads its
 * own size settings ({@code max_slot_wal_keep_size}, {@code pg_size_pretty}): 1 kB = 1024 bytes, so a limit copied
 * from the server's configuration means the same here. Units: B, kB, MB, GB, TB (any case), also KiB, MiB, GiB,
 * TiB; no unit means bytes.
 */
public final class ByteSize {

  private static final Pattern SIZE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([A-Za-z]*)\\s*");

  private ByteSize() {}

  /**
   * Parses a size.
   *
   * @return the size in bytes (at least 1)
   * @throws IllegalArgumentException naming the value and the form expected
   */
  public static long parse(String text) {
    Matcher m = SIZE.matcher(text == null ? "" : text);
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a size: write a number and a unit, e.g. 20GB, 512MB "
          + "or 1.5TB (1 kB = 1024 bytes, as PostgreSQL counts)");
    }
    long unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "", "b" -> 1L;
      case "k", "kb", "kib" -> 1L << 10;
      case "m", "mb", "mib" -> 1L << 20;
      case "g", "gb", "gib" -> 1L << 30;
      case "t", "tb", "tib" -> 1L << 40;
      default -> throw new IllegalArgumentException("'" + text + "': unknown unit '" + m.group(2) + "'; use B, kB, "
          + "MB, GB or TB (1 kB = 1024 bytes, as PostgreSQL counts)");
    };
    BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit));
    if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    long value = bytes.longValue();
    if (value < 1) {
      throw new IllegalArgumentException("'" + text + "' is not a positive size");
    }
    return value;
  }

  /** "1.5 GB", "300 MB", "12 kB", "17 bytes": as {@code pg_size_pretty} would put it, one decimal above MB. */
  public static String format(long bytes) {
    if (bytes < 10L << 10) {
      return bytes + " bytes";
    }
    if (bytes < 10L << 20) {
      return (bytes >> 10) + " kB";
    }
    if (bytes < 1L << 30) {
      return String.format(Locale.ROOT, "%.1f MB", bytes / (double) (1L << 20));
    }
    if (bytes < 1L << 40) {
      return String.format(Locale.ROOT, "%.1f GB", bytes / (double) (1L << 30));
    }
    return String.format(Locale.ROOT, "%.1f TB", bytes / (double) (1L << 40));
  }
}
