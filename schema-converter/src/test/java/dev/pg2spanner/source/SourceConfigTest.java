package dev.pg2spanner.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.InvalidValueException;
import org.junit.jupiter.api.Test;

class SourceConfigTest {

  @Test
  void passwordsInTheUrlAreMaskedEverywhereTheConfigIsPrinted() {
    SourceConfig config = new SourceConfig(
        "jdbc:postgresql://db.example:6432/app?user=mig&password=s3cr3t&sslmode=require", Secret.of("other"));
    assertThat(config.redactedUrl())
        .isEqualTo("jdbc:postgresql://db.example:6432/app?user=mig&password=****&sslmode=require");
    assertThat(config.toString()).doesNotContain("s3cr3t").doesNotContain("other");
    assertThat(config.endpoint()).isEqualTo("db.example:6432/app");
    assertThat(config.user()).contains("mig");
    assertThat(config.urlHasPassword()).isTrue();
  }

  @Test
  void secretNeverPrintsItself() {
    assertThat(Secret.of("hunter2").toString()).isEqualTo("****");
    assertThat(Secret.of("hunter2").reveal()).isEqualTo("hunter2");
  }

  @Test
  void aUrlForAnotherDriverIsRejectedWithTheExpectedForm() {
    assertThatThrownBy(() -> new SourceConfig("jdbc:mysql://x/y?password=pw", null))
        .as("a malformed value is a usage error (exit 2), not a connection failure")
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("jdbc:postgresql://HOST:PORT/DATABASE")
        .hasMessageNotContaining("=pw");
  }

  @Test
  void quotingDoublesEmbeddedQuotesAndKeepsCase() {
    assertThat(PgNames.quote("Order \"x\"")).isEqualTo("\"Order \"\"x\"\"\"");
    assertThat(PgNames.qualified("public", "select")).isEqualTo("\"public\".\"select\"");
    assertThat(PgNames.literal("it's")).isEqualTo("'it''s'");
    assertThatThrownBy(() -> PgNames.quote("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anUnreadableBoundIsRefusedNotSilentlyDropped() {
    // pgjdbc would warn and then wait without any bound: a silent server would hold the command forever.
    assertThatThrownBy(() -> new SourceConfig(
        "jdbc:postgresql://db.example:5432/app?user=mig&password=s3cr3t&loginTimeout=abc", null))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("loginTimeout=abc is not a whole number of seconds")
        .hasMessageNotContaining("s3cr3t");
    assertThatThrownBy(() -> new SourceConfig("jdbc:postgresql://db.example/app?connectTimeout=-1", null))
        .hasMessageContaining("connectTimeout=-1");
    assertThatThrownBy(() -> new SourceConfig("jdbc:postgresql://db.example/app?socketTimeout=1.5", null))
        .hasMessageContaining("socketTimeout=1.5");
    SourceConfig ok = new SourceConfig("jdbc:postgresql://db.example/app?loginTimeout=0&connectTimeout=30", null);
    assertThat(ok.urlSets("loginTimeout")).isTrue();
    assertThat(ok.urlSets("socketTimeout")).isFalse();
  }
}
