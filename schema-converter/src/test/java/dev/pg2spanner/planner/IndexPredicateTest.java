package dev.pg2spanner.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgIndexStats;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Which partial indexes Spanner can express as NULL_FILTERED: predicates that only ask key columns to be set. */
class IndexPredicateTest {

  private static PgIndex index(String... columns) {
    return new PgIndex("i", "btree", true, null,
        Arrays.stream(columns).map(c -> new PgIndex.Element(c, null, false, false)).toList(), java.util.List.of(),
        null, false, true, "CREATE UNIQUE INDEX i ...", new PgIndexStats(null, 0));
  }

  @Test
  void notNullTestsOfKeyColumnsAreANullFilter() {
    assertThat(Planner.isNotNullPredicate("email IS NOT NULL", index("email"))).isTrue();
    assertThat(Planner.isNotNullPredicate("((a IS NOT NULL) AND (b IS NOT NULL))", index("a", "b"))).isTrue();
    assertThat(Planner.isNotNullPredicate("a IS NOT NULL AND b IS NOT NULL", index("b", "a"))).isTrue();
    assertThat(Planner.isNotNullPredicate("(\"Email\" IS NOT NULL)", index("Email"))).isTrue();
  }

  @Test
  void anythingElseIsNot() {
    // The boundary: one more condition, or a column outside the key, and the index is a real partial index.
    assertThat(Planner.isNotNullPredicate("(a IS NOT NULL) AND (c IS NOT NULL)", index("a", "b"))).isFalse();
    assertThat(Planner.isNotNullPredicate("(a IS NOT NULL) AND (a > 0)", index("a"))).isFalse();
    assertThat(Planner.isNotNullPredicate("(a IS NOT NULL) OR (b IS NOT NULL)", index("a", "b"))).isFalse();
    assertThat(Planner.isNotNullPredicate("a IS NULL", index("a"))).isFalse();
    assertThat(Planner.isNotNullPredicate("(status = 'a IS NOT NULL'::text)", index("status"))).isFalse();
    assertThat(Planner.isNotNullPredicate("lower(a) IS NOT NULL", index("a"))).isFalse();
  }

  @Test
  void quotedNamesWithQuotesOrTheWordAndAreReadAsNames() {
    // Fixed: the old text matcher shared one quote flag between ' and ", and split on AND inside quoted names.
    assertThat(Planner.isNotNullPredicate("((\"it's\" IS NOT NULL) AND (b IS NOT NULL))", index("it's", "b")))
        .isTrue();
    assertThat(Planner.isNotNullPredicate("(\"x and y\" IS NOT NULL)", index("x and y"))).isTrue();
  }
}
