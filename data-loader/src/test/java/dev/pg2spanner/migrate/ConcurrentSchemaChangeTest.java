package dev.pg2spanner.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConcurrentSchemaChangeTest {

  @Test
  void anotherFailureOrTheLastAttemptIsReportedAtOnce() throws Exception {
    List<String> notes = new ArrayList<>();
    assertThat(ConcurrentSchemaChange.waitToRetry("Duplicate name in schema: Orders", 1, notes::add)).isFalse();
    assertThat(ConcurrentSchemaChange.waitToRetry(null, 1, notes::add)).isFalse();
    assertThat(ConcurrentSchemaChange.waitToRetry("FAILED_PRECONDITION: concurrent schema change",
        ConcurrentSchemaChange.ATTEMPTS, notes::add)).isFalse();
    assertThat(notes).isEmpty();
  }
}
