package dev.pg2spanner.hotspot;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Each layout reads the time out of ids published with their times, and reads nothing out of other values. */
class IdLayoutTest {

  private static Instant at(IdLayout layout, Object id) {
    OptionalLong ms = layout.millis(id);
    assertThat(ms).as(layout + " reads " + id).isPresent();
    return Instant.ofEpochMilli(ms.getAsLong());
  }

  @Test
  void discordsDocumentedSnowflake() {
    // Discord's API reference decodes this id to 2016-04-30 11:18:25.796 UTC.
    assertThat(at(IdLayout.DISCORD_SNOWFLAKE, 175928847299117063L)).isEqualTo("2016-04-30T11:18:25.796Z");
  }

  @Test
  void snowflakeLayoutsPutMillisecondsAboveTheirShift() {
    long ms = Instant.parse("2026-06-01T00:37:00Z").toEpochMilli();
    assertThat(at(IdLayout.TWITTER_SNOWFLAKE, ((ms - 1288834974657L) << 22) | (5 << 12) | 17))
        .isEqualTo("2026-06-01T00:37:00Z");
    assertThat(at(IdLayout.INSTAGRAM, ((ms - 1314220021721L) << 23) | (1234 << 10) | 3))
        .isEqualTo("2026-06-01T00:37:00Z");
    assertThat(at(IdLayout.UNIX_SNOWFLAKE, (ms << 22) | 99)).isEqualTo("2026-06-01T00:37:00Z");
    assertThat(at(IdLayout.MASTODON, (ms << 16) | 65535)).isEqualTo("2026-06-01T00:37:00Z");
    // Sonyflake counts 10 ms units.
    assertThat(at(IdLayout.SONYFLAKE, (((ms - 1409529600000L) / 10) << 24) | (7 << 16) | 42))
        .isEqualTo("2026-06-01T00:37:00Z");
    assertThat(IdLayout.TWITTER_SNOWFLAKE.millis(-5L)).isEmpty();
    assertThat(IdLayout.TWITTER_SNOWFLAKE.millis("123")).isEmpty();
    assertThat(IdLayout.TWITTER_SNOWFLAKE.bitReversible()).isTrue();
  }

  @Test
  void ulidsAndTypeIdsLeadWithUnixMilliseconds() {
    // The first ten characters of the ULID specification's example.
    assertThat(at(IdLayout.ULID, "01ARZ3NDEKTSV4RRFFQ69G5FAV")).isEqualTo(Instant.ofEpochMilli(1469922850259L));
    assertThat(at(IdLayout.ULID, "user_01arz3ndektsv4rrffq69g5fav")).isEqualTo(Instant.ofEpochMilli(1469922850259L));
    // Too long a time (first character above 7), a letter outside Crockford's alphabet, the wrong length.
    assertThat(IdLayout.ULID.millis("81ARZ3NDEKTSV4RRFFQ69G5FAV")).isEmpty();
    assertThat(IdLayout.ULID.millis("01ARZ3NDEKTSV4RRFFQ69G5FAU")).isEmpty();
    assertThat(IdLayout.ULID.millis("01ARZ3NDEKTSV4RRFFQ69G5FA")).isEmpty();
    assertThat(IdLayout.ULID.bitReversible()).isFalse();
  }

  @Test
  void ksuidsLeadWithSecondsSinceTheirEpoch() {
    // Segment's ksuid README inspects this one: 2017-10-09 21:00:47 -0700.
    assertThat(at(IdLayout.KSUID, "0ujtsYcgvSTl8PAuAdqWYSMnLOv")).isEqualTo("2017-10-10T04:00:47Z");
    // 27 base62 characters above 2^160 are not a KSUID.
    assertThat(IdLayout.KSUID.millis("zzzzzzzzzzzzzzzzzzzzzzzzzzz")).isEmpty();
    assertThat(IdLayout.KSUID.millis("0ujtsYcgvSTl8PAuAdqWYSMnLO")).isEmpty();
  }

  @Test
  void datePrefixesAreRealDatesInFrontOfMore() {
    assertThat(at(IdLayout.DATE_PREFIX, "ORD-20260601-000123")).isEqualTo("2026-06-01T00:00:00Z");
    assertThat(at(IdLayout.DATE_PREFIX, "20260601000123")).isEqualTo("2026-06-01T00:00:00Z");
    assertThat(at(IdLayout.DATE_PREFIX, 2026060100123L)).isEqualTo("2026-06-01T00:00:00Z");
    assertThat(IdLayout.DATE_PREFIX.millis("ORD-20261301-1")).as("month 13").isEmpty();
    assertThat(IdLayout.DATE_PREFIX.millis("SKU-000123")).isEmpty();
    assertThat(IdLayout.DATE_PREFIX.millis(1234567L)).as("fewer than eight digits").isEmpty();
    // A 64-bit id of 19 digits whose first eight happen to read as a date is not an order number.
    assertThat(IdLayout.DATE_PREFIX.millis(2026060112345678901L)).isEmpty();
    assertThat(IdLayout.DATE_PREFIX.bitReversible()).isFalse();
  }
}
