package dev.pg2spanner.hotspot;

import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A way applications put the time an id was made into the id itself, and how to read that time back. Each layout is
 * a candidate: {@link TimeEncodedIdRule} decodes sampled keys with every layout and keeps only a layout whose times
 * are plausible and follow the order rows were written in, so a number or text that merely fits a layout proves
 * nothing.
 *
 * <p>Sixty-four-bit layouts keep a time field in their top bits and a worker or shard number and a sequence below it:
 * {@code id = (time - epoch) / unit << shift | ...}. Text layouts lead with the time in a fixed alphabet. A date
 * prefix is the digits {@code YYYYMMDD} in front of an order or invoice number.
 */
public enum IdLayout {
  /** Twitter's Snowflake: 41 bits of milliseconds since 2010-11-04T01:42:54.657Z, 10 worker bits, 12 sequence bits. */
  TWITTER_SNOWFLAKE(Form.BITS, 22, 1288834974657L, 1, "Snowflake layout, epoch 2010-11-04", null),
  /** Discord's Snowflake: Twitter's bit layout with milliseconds since 2015-01-01. */
  DISCORD_SNOWFLAKE(Form.BITS, 22, 1420070400000L, 1, "Snowflake layout, epoch 2015-01-01 (Discord's)", null),
  /** Instagram's: 41 bits of milliseconds since 2011-08-24T21:07:01.721Z, 13 shard bits, 10 sequence bits. */
  INSTAGRAM(Form.BITS, 23, 1314220021721L, 1, "Instagram's layout (13 shard bits, 10 sequence bits), epoch 2011-08-24",
      null),
  /** Sony's Sonyflake: 39 bits of 10 ms units since 2014-09-01, 8 sequence bits, 16 machine bits. */
  SONYFLAKE(Form.BITS, 24, 1409529600000L, 10, "Sonyflake layout (10 ms units), epoch 2014-09-01", null),
  /** Snowflake's bit layout with milliseconds since 1970, as many libraries default to; Snowflake dates from 2010. */
  UNIX_SNOWFLAKE(Form.BITS, 22, 0, 1, "Snowflake layout, Unix epoch", Instant.parse("2010-06-01T00:00:00Z")),
  /** Mastodon's: 48 bits of Unix milliseconds, 16 sequence bits (Mastodon 2.0, 2017). */
  MASTODON(Form.BITS, 16, 0, 1, "Mastodon's layout (Unix milliseconds above 16 sequence bits)",
      Instant.parse("2017-01-01T00:00:00Z")),
  /**
   * ULID: 48 bits of Unix milliseconds then 80 random bits, 26 characters of Crockford's base32; TypeIDs (a prefix
   * and an underscore before a UUIDv7 in the same alphabet) read the same way. The ULID specification dates from
   * 2016.
   */
  ULID(Form.TEXT, 0, 0, 1, "ULID (Unix milliseconds in Crockford base32)", Instant.parse("2016-01-01T00:00:00Z")),
  /** KSUID: 32 bits of seconds since 2014-05-13T16:53:20Z then 128 random bits, 27 characters of base62. */
  KSUID(Form.TEXT, 0, 1400000000000L, 1000, "KSUID (seconds since 2014-05-13 in base62)", null),
  /** {@code YYYYMMDD} in front of the rest of an order or invoice number, in a number or after a few letters. */
  DATE_PREFIX(Form.DECIMAL, 0, 0, 86_400_000L, "a YYYYMMDD date prefix", Instant.parse("1990-01-01T00:00:00Z"));

  /** How the time is stored. */
  enum Form {
    /** In the top bits of a positive 64-bit integer. */
    BITS,
    /** At the start of a text id. */
    TEXT,
    /** As decimal digits at the start of a number or a text. */
    DECIMAL
  }

  private static final Pattern ULID_TEXT = Pattern.compile(
      "^(?:[A-Za-z][A-Za-z0-9]{0,62}_)?([0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25})$");
  private static final Pattern KSUID_TEXT = Pattern.compile("^[0-9A-Za-z]{27}$");
  private static final Pattern DATE_TEXT = Pattern.compile("^(?:[A-Za-z]{1,8}[-_/]?)?(\\d{8})");
  private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final BigInteger KSUID_LIMIT = BigInteger.ONE.shiftLeft(160);

  private final Form form;
  private final int shift;
  private final long epochMillis;
  private final long unitMillis;
  private final String description;
  private final Instant firstPlausible;

  IdLayout(Form form, int shift, long epochMillis, long unitMillis, String description, Instant firstPlausible) {
    this.form = form;
    this.shift = shift;
    this.epochMillis = epochMillis;
    this.unitMillis = unitMillis;
    this.description = description;
    // A custom epoch is the day the scheme started; a time field of less than a day is a small number that happens
    // to fit the layout (a dense id, an order number), not an id made since.
    this.firstPlausible = firstPlausible == null ? Instant.ofEpochMilli(epochMillis).plus(Duration.ofDays(1))
        : firstPlausible;
  }

  /** How the reports name it, e.g. "Snowflake layout, epoch 2010-11-04". */
  public String description() {
    return description;
  }

  /**
   * The earliest time an id of this layout can plausibly carry: a day after its epoch, or, for layouts that count from
   * 1970, the year the scheme was published (no application made such ids before the scheme existed).
   */
  public Instant firstPlausible() {
    return firstPlausible;
  }

  /** The smallest step the decoded time takes (a millisecond, a second, a day). */
  public Duration resolution() {
    return Duration.ofMillis(unitMillis);
  }

  /**
   * True for 64-bit layouts: an application that makes such ids can bit-reverse each one it makes, which spreads them
   * evenly over the key space while they stay unique 64-bit integers.
   */
  public boolean bitReversible() {
    return form == Form.BITS;
  }

  /** True when the layout can be stored in a column whose sampled values are {@code value}'s class. */
  public boolean reads(Object value) {
    return switch (form) {
      case BITS -> value instanceof Long;
      case TEXT -> value instanceof String;
      case DECIMAL -> value instanceof Long || value instanceof String;
    };
  }

  /**
   * The time {@code value} carries, in milliseconds since 1970 (truncated to the layout's resolution), or empty when
   * the value does not have this layout's form.
   */
  public OptionalLong millis(Object value) {
    return switch (form) {
      case BITS -> value instanceof Long id && id > 0 ? OptionalLong.of(epochMillis + (id >>> shift) * unitMillis)
          : OptionalLong.empty();
      case TEXT -> value instanceof String s ? text(s) : OptionalLong.empty();
      // Order numbers are the date and a counter; 17 digits and more are 64-bit ids whose digits only look like one.
      case DECIMAL -> value instanceof Long n ? (n > 0 && n < 10_000_000_000_000_000L ? datePrefix(Long.toString(n))
          : OptionalLong.empty())
          : value instanceof String s ? datePrefixText(s) : OptionalLong.empty();
    };
  }

  private OptionalLong text(String s) {
    if (this == ULID) {
      Matcher m = ULID_TEXT.matcher(s);
      if (!m.matches()) {
        return OptionalLong.empty();
      }
      String time = m.group(1).substring(0, 10).toUpperCase(java.util.Locale.ROOT);
      long ms = 0;
      for (int i = 0; i < time.length(); i++) {
        ms = ms * 32 + CROCKFORD.indexOf(time.charAt(i));
      }
      return OptionalLong.of(ms);
    }
    if (!KSUID_TEXT.matcher(s).matches()) {
      return OptionalLong.empty();
    }
    BigInteger n = BigInteger.ZERO;
    BigInteger base = BigInteger.valueOf(62);
    for (int i = 0; i < s.length(); i++) {
      n = n.multiply(base).add(BigInteger.valueOf(BASE62.indexOf(s.charAt(i))));
    }
    if (n.compareTo(KSUID_LIMIT) >= 0) {
      return OptionalLong.empty(); // more than 160 bits: not a KSUID
    }
    return OptionalLong.of(epochMillis + n.shiftRight(128).longValueExact() * unitMillis);
  }

  private static OptionalLong datePrefixText(String s) {
    Matcher m = DATE_TEXT.matcher(s);
    return m.lookingAt() ? datePrefix(m.group(1)) : OptionalLong.empty();
  }

  /** Midnight UTC of the date {@code digits} starts with, if its first eight digits are a real date. */
  private static OptionalLong datePrefix(String digits) {
    if (digits.length() < 8) {
      return OptionalLong.empty();
    }
    try {
      LocalDate date = LocalDate.of(Integer.parseInt(digits.substring(0, 4)), Integer.parseInt(digits.substring(4, 6)),
          Integer.parseInt(digits.substring(6, 8)));
      return OptionalLong.of(date.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
    } catch (DateTimeException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
