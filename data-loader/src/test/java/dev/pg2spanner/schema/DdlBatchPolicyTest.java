package dev.pg2spanner.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DdlBatchPolicyTest {

  private static List<String> indexes(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> "CREATE INDEX i" + i + " ON t" + i + " (c)").toList();
  }

  private static List<String> tables(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> "CREATE TABLE t" + i + " (\n  id INT64\n) PRIMARY KEY (id)")
        .toList();
  }

  @Test
  void theEmulatorSendsAWholePhaseUpToFiveHundredStatementsOneRequestAtATime() {
    DdlBatchPolicy emulator = DdlBatchPolicy.forTarget(true);
    assertThat(emulator.inFlight()).isEqualTo(1);
    assertThat(emulator.group(indexes(532))).extracting(List::size).containsExactly(500, 32);
    assertThat(emulator.group(tables(139))).hasSize(1);
  }

  @Test
  void realSpannerPutsAtMostTenValidatingStatementsInARequestAndRunsSeveral() {
    DdlBatchPolicy spanner = DdlBatchPolicy.forTarget(false);
    assertThat(spanner.inFlight()).isEqualTo(DdlBatchPolicy.SPANNER_IN_FLIGHT).isGreaterThan(1);
    assertThat(spanner.group(indexes(25))).extracting(List::size).containsExactly(10, 10, 5);
    // Tables on an empty database validate nothing: only the statement cap applies.
    assertThat(spanner.group(tables(139))).extracting(List::size).containsExactly(100, 39);
  }

  @Test
  void groupsKeepTheOrderOfTheMigrationAndCountOnlyValidatingStatementsAgainstTheirCap() {
    List<String> mixed = new ArrayList<>();
    mixed.addAll(tables(3));
    mixed.addAll(indexes(3));
    mixed.add("ALTER TABLE t1 ADD CONSTRAINT fk FOREIGN KEY (p) REFERENCES t2 (id) ON DELETE NO ACTION");
    mixed.add("ALTER TABLE t1 ADD CONSTRAINT ck CHECK (id > 0)");
    List<List<String>> groups = new DdlBatchPolicy(100, 2, 1).group(mixed);
    assertThat(groups).extracting(List::size).containsExactly(5, 2, 1);
    assertThat(groups.stream().flatMap(List::stream).toList()).isEqualTo(mixed);
    assertThat(new DdlBatchPolicy(4, 4, 1).group(mixed)).extracting(List::size).containsExactly(4, 4);
    assertThat(DdlBatchPolicy.forTarget(true).group(List.of())).isEmpty();
  }

  @Test
  void validatingStatementsAreIndexesForeignKeysAndChecks() {
    assertThat(DdlBatchPolicy.validates("CREATE UNIQUE NULL_FILTERED INDEX a ON b (c)")).isTrue();
    assertThat(DdlBatchPolicy.validates("ALTER TABLE t ADD CONSTRAINT c CHECK (x > 0)")).isTrue();
    assertThat(DdlBatchPolicy.validates("CREATE TABLE t (\n  id INT64\n) PRIMARY KEY (id)")).isFalse();
    assertThat(DdlBatchPolicy.validates("CREATE SEQUENCE s OPTIONS (sequence_kind = 'bit_reversed_positive')"))
        .isFalse();
  }

  @Test
  void sizesMustBePositiveAndOptionsNarrowThePolicy() {
    assertThatThrownBy(() -> new DdlBatchPolicy(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(DdlBatchPolicy.forTarget(false).withBatchSize(5)).isEqualTo(new DdlBatchPolicy(5, 5, 3));
    assertThat(DdlBatchPolicy.forTarget(true).withInFlight(2).inFlight()).isEqualTo(2);
  }
}
