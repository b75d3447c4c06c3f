package dev.pg2spanner.targetdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.InvalidValueException;
import org.junit.jupiter.api.Test;

class SpannerTargetTest {

  @Test
  void parsesADatabasePath() {
    SpannerTarget t = SpannerTarget.parse("projects/p1/instances/inst-1/databases/app_db", "127.0.0.1:9010");
    assertThat(t.project()).isEqualTo("p1");
    assertThat(t.instance()).isEqualTo("inst-1");
    assertThat(t.database()).isEqualTo("app_db");
    assertThat(t.isEmulator()).isTrue();
    assertThat(t.path()).isEqualTo("projects/p1/instances/inst-1/databases/app_db");
  }

  @Test
  void rejectsMalformedPathsAndIdsWithTheExpectedForm() {
    assertThatThrownBy(() -> SpannerTarget.parse("p1/inst/db", null))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("projects/PROJECT/instances/INSTANCE/databases/DATABASE");
    assertThatThrownBy(() -> SpannerTarget.parse("projects/p/instances/i/databases/db", null))
        .hasMessageContaining("instance id 'i' is not valid");
    assertThatThrownBy(() -> SpannerTarget.parse("projects/p/instances/inst/databases/Db", null))
        .hasMessageContaining("database id 'Db' is not valid");
  }

  @Test
  void rejectsAnEmulatorAddressThatIsNotHostAndPort() {
    String path = "projects/p/instances/inst/databases/db";
    for (String bad : new String[] {"notahost:99999", "localhost", "host:0", ":9010", "a b:1"}) {
      assertThatThrownBy(() -> SpannerTarget.parse(path, bad)).as(bad)
          .isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("'" + bad + "'").hasMessageContaining("HOST:PORT");
    }
    for (String good : new String[] {"127.0.0.1:9010", "localhost:9010", "emulator.internal:1", "[::1]:9010"}) {
      assertThat(SpannerTarget.parse(path, good).emulatorHost()).isEqualTo(good);
    }
  }
}
