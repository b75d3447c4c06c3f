package dev.pg2spanner.live.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Value;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The applier's own recent writes to tables found by content, looked up by their identity columns. */
class WrittenRowsTest {

  private static Map<String, String> identity(String kind, String n) {
    return Map.of("kind", kind, "n", n);
  }

  @Test
  void identicalRowsAreFoundOneAfterTheOtherAndAChangedIdentityNoLonger() {
    WrittenRows written = new WrittenRows();
    written.wrote("events", Key.of("r1"), Value.string("r1"), identity("'a'", "1"));
    written.wrote("events", Key.of("r2"), Value.string("r2"), identity("'a'", "1"));
    written.wrote("events", Key.of("r3"), Value.string("r3"), identity("'b'", "2"));
    List<String> names = List.of("kind", "n");

    WrittenRows.Found first = written.match("events", names, List.of("'a'", "1"));
    assertThat(first.key()).isIn(Key.of("r1"), Key.of("r2"));
    written.deleted("events", first.key());
    WrittenRows.Found second = written.match("events", names, List.of("'a'", "1"));
    assertThat(second.key()).isIn(Key.of("r1"), Key.of("r2")).isNotEqualTo(first.key());
    assertThat(second.rowKey()).isEqualTo(Value.string(second.key().getParts().iterator().next().toString()));
    written.wrote("events", second.key(), second.rowKey(), identity("'c'", "3")); // updated: another identity
    assertThat(written.match("events", names, List.of("'a'", "1"))).isNull();
    assertThat(written.match("events", names, List.of("'c'", "3")).key()).isEqualTo(second.key());
    // A lookup naming only some identity columns (a value the stream did not send) compares them row by row.
    assertThat(written.match("events", List.of("kind"), List.of("'b'")).key()).isEqualTo(Key.of("r3"));
    assertThat(written.match("events", List.of("n"), List.of("9"))).isNull();
    assertThat(written.match("other", names, List.of("'a'", "1"))).isNull();

    long generation = written.generation();
    written.clear();
    assertThat(written.generation()).isGreaterThan(generation);
    assertThat(written.match("events", names, List.of("'c'", "3"))).isNull();
    assertThat(written.size()).isZero();
  }
}
