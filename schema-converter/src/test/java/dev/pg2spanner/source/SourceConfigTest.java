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

  @Test
  void aKeepaliveSettingThatWouldTurnKeepaliveOffUnseenIsRefused() {
    // Found by hand: pgjdbc read tcpKeepAlive=maybe as false, and check passed with keepalive off.
    assertThatThrownBy(() -> new SourceConfig("jdbc:postgresql://db.example/app?tcpKeepAlive=maybe", null))
        .isInstanceOf(InvalidValueException.class).hasMessageContaining("tcpKeepAlive=maybe is not true or false");
    assertThat(new SourceConfig("jdbc:postgresql://db.example/app?tcpKeepAlive=FALSE", null)
        .urlSets("tcpKeepAlive")).isTrue();
  }

  @Test
  void aSocketFactoryThatCannotBeUsedIsRefusedBeforeAnyConnection() {
    // Found by hand: every connection then failed with "cannot reach ... check host and port".
    assertThatThrownBy(() -> new SourceConfig("jdbc:postgresql://db.example/app?socketFactory=com.example.Nope",
        null)).isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("socketFactory=com.example.Nope is not a javax.net.SocketFactory");
    assertThatThrownBy(() -> new SourceConfig("jdbc:postgresql://db.example/app?socketFactory=java.lang.String",
        null)).hasMessageContaining("socketFactory=java.lang.String");
    assertThat(new SourceConfig("jdbc:postgresql://db.example/app?socketFactory=javax.net.ssl.SSLSocketFactory",
        null).urlSets("socketFactory")).isTrue();
  }
}
