package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.nullable;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.mapping.ProbedValues;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.ValueConversion;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 28: plan runs the load's converter over the values a column's conversion could refuse, and plans again around
 * what it refused; the converter is data-loader's, here a stand-in that refuses what a test says.
 */
class PlanProbingTest {

  private static final PgType JSON = PgType.builtin("json", "json");
  private static final PgType TEXT = PgType.builtin("text", "text");

  private static PlanInputs inputs() {
    return new PlanInputs(catalog(List.of(table("docs", 1, List.of(column("id", BIGINT), nullable("j", JSON),
        nullable("note", TEXT)), List.of(), List.of())), List.of()), Map.of(), Map.of(), Map.of());
  }

  private static Planner planner() {
    return new Planner(new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(),
        Instant.parse("2026-11-27T00:00:00Z"), 1.0));
  }

  /** Refuses two values of any column it is asked about as JSON; nothing else. Records what it was asked. */
  private static final class RefusingJson implements ValueProbe {
    final List<String> asked = new ArrayList<>();

    @Override
    public Map<String, ProbedValues> probe(java.sql.Connection c, dev.pg2spanner.catalog.PgTable table,
        dev.pg2spanner.plan.TablePlan draft, dev.pg2spanner.spanner.SpannerDialect dialect, List<String> columns,
        long maxRows) {
      Map<String, ProbedValues> out = new LinkedHashMap<>();
      for (String name : columns) {
        ColumnPlan col = draft.column(name).orElseThrow();
        asked.add(name + " as " + col.conversion());
        boolean json = col.conversion() == ValueConversion.JSON;
        out.put(name, new ProbedValues(name, col.conversion(), col.targetType(), false, 5, false, json ? 2 : 0,
            json ? "{\"a\":1,\"a\":2}" : null, json ? "Spanner JSON keeps one of duplicate keys" : null));
      }
      return out;
    }
  }

  @Test
  void aColumnWhoseValuesTheConverterRefusesIsPlannedAgainAsTextAndTheTextIsTriedToo() throws Exception {
    RefusingJson probe = new RefusingJson();
    Plan plan = PlanRun.planProbing(null, planner(), inputs(), probe).getKey();
    ColumnPlan j = plan.tables().get(0).column("j").orElseThrow();
    assertThat(j.conversion()).isEqualTo(ValueConversion.JSON_TEXT);
    assertThat(j.targetType()).isEqualTo("STRING(MAX)");
    // Text and integers are not tried (sizes are the aggregate's); the fallback is, once, then nothing changes.
    assertThat(probe.asked).containsExactly("j as JSON", "j as JSON_TEXT");
    assertThat(plan.tables().get(0).findings()).filteredOn(f -> f.code() == FindingCode.LOSSY_TYPE
        && "j".equals(f.column())).singleElement().satisfies(f -> assertThat(f.message())
        .contains("refused 2 values in the 5 rows it read as JSON (first: '{\"a\":1,\"a\":2}'"));
  }

  @Test
  void aProbeThatFailsLeavesTheTypesToTheEvidenceAndThePlanIsStillMade() throws Exception {
    ValueProbe failing = (c, table, draft, dialect, columns, maxRows) -> {
      throw new IllegalStateException("no binary decoder");
    };
    Plan plan = PlanRun.planProbing(null, planner(), inputs(), failing).getKey();
    assertThat(plan.tables().get(0).column("j").orElseThrow().conversion()).isEqualTo(ValueConversion.JSON);
  }
}
